"""Duplicate detection: is an incoming item NEW, an UPDATE or a DUPLICATE, and
which stored records repeat one another.

- ``rules``: the pairwise judgement (same item? claim known?) on embedded records.
- ``config``: the thresholds (``DedupeConfig``) and the config file that overrides them.
- ``results``: the typed verdicts, matches, flags and clusters the surfaces show.
- ``check`` and ``check_input``: ``kbsearch check``, from an input file to a ``CheckResult``.
- ``audit`` and ``neighbours``: ``kbsearch audit``, clusters of the same item across the store.
- ``rarity`` and ``flags``: name rarity and "claimed new" flags, shared by check and audit.
- ``calibrate``: fitting the thresholds on labelled pairs.

This file imports nothing, so that loading the result types loads no rules.
"""

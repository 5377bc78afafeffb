"""Duplicate detection: is an incoming item NEW, an UPDATE or a DUPLICATE, and
which stored records repeat one another.

- ``rules``: the pairwise judgement (same item? claim known?) and the verdict.
- ``features``, ``scorer``, ``names``: what the learned same-item decision reads,
  the logistic scorer itself, and how rare a shared name is.
- ``config``: ``DedupeConfig``, one validated file per model with both learned
  decisions and every number the gate uses, each with its derivation.
- ``results``: the typed verdicts, matches, flags and clusters the surfaces show.
- ``check`` and ``check_input``: ``kbsearch check``, from an input file to a ``CheckResult``.
- ``audit`` and ``neighbours``: ``kbsearch audit``, clusters of the same item across the store.
- ``flags``: "claimed new" flags, shared by check and audit.
- ``replay`` and ``calibrate``: labelled streams replayed through check, and
  fitting both decisions on them and on labelled sentence pairs.

This file imports nothing, so that loading the result types loads no rules.
"""

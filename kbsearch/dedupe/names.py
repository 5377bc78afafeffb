"""Which known records hold a coined name, as a whole word.

The lexical index matches three-character pieces, so its hits for a short
name are substrings ("DES" in "describes", "GEM" in "management"). Counting
them would make every short acronym look common; here each hit is checked
for the name as a word (no letter or digit on either side) before it counts.
Both the rarity of a shared name (a same-item feature) and the records that
share a rare one (extra candidates for ``check``) come from here.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field

from kbsearch.store import SearchFilter, Store
from kbsearch.store.per_generation import PerGeneration
from kbsearch.text.field_terms import is_field_term
from kbsearch.text.folding import fold

SCAN = 400
"""Substring hits read per name. A name held as a word by more records than
the scan finds counts as common whatever the true count."""
MIN_CHARS = 3
"""The lexical index cannot look up shorter names."""


KEPT_NAMES = 20_000
"""Names whose lookups a process keeps per store between writes; past it they start afresh."""


@dataclass
class NameLookups:
    """What the lookups found for one state of the index."""

    found: dict[str, list[int]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


_KEPT = PerGeneration(NameLookups, full=lambda kept: len(kept.found) + len(kept.counts) > KEPT_NAMES)


def kept_lookups(store: Store) -> NameLookups:
    """The lookups made through ``store`` since its index last changed. A warm process
    checks one briefing after another, and each name's lookup reads up to ``SCAN`` texts:
    8 ms of a served check went there. Called inside the store's snapshot."""
    return _KEPT.of(store)


class NameHolders:
    """Records holding a name as a word, looked up once per name (the store
    does not change while a check or an audit runs); with ``kept``, the
    lookups of earlier checks of the same index state too."""

    def __init__(self, store: Store, cap: int, kept: NameLookups | None = None) -> None:
        self.store = store
        self.cap = cap
        kept = kept or NameLookups()
        self._found = kept.found
        self._counts = kept.counts

    def holders(self, name: str) -> list[int]:
        """Up to ``cap`` + 1 records holding ``name`` as a word, in row order."""
        if name not in self._found:
            self._found[name] = self._lookup(name)
        return self._found[name]

    def count(self, name: str) -> int:
        """How many records hold ``name``, up to ``cap`` (a name too short to
        look up, or a term of the field such as LoRA or RAG, counts as ``cap``:
        common, however few records of a young index hold it yet; ``field_terms``).
        Only the count is kept when the rows were never asked for: audit counts the
        names of a million records."""
        if len(name) < MIN_CHARS or is_field_term(name):
            return self.cap
        if name in self._found:
            return min(self.cap, len(self._found[name]))
        if name not in self._counts:
            self._counts[name] = min(self.cap, len(self._lookup(name)))
        return self._counts[name]

    def _lookup(self, name: str) -> list[int]:
        if len(name) < MIN_CHARS:
            return []
        rows = self.store.rowids_holding(name, None, SCAN)
        # The lexical index holds folded text (C²KV as c2kv, lower case): look for the name folded too.
        word = fold(name)
        texts = self.store.lexical_documents(rows)
        found = [r for r in rows if holds_word(texts.get(r, ""), word)]
        return found[: self.cap + 1]


_WORD_CHARS = frozenset(string.ascii_lowercase + string.digits)


def holds_word(folded: str, word: str) -> bool:
    """Whether ``folded`` text holds ``word`` with no letter or digit on either side.
    (A regular expression per name took 0.3 to 0.6 ms to compile, per name per check.)"""
    start = folded.find(word) if word else -1
    while start >= 0:
        end = start + len(word)
        before = folded[start - 1] if start else ""
        after = folded[end] if end < len(folded) else ""
        if before not in _WORD_CHARS and after not in _WORD_CHARS:
            return True
        start = folded.find(word, start + 1)
    return False


def rare_name_candidates(holders: NameHolders, names: frozenset[str], flt: SearchFilter, rare: int) -> list[int]:
    """Records within ``flt`` that hold a name of the item held by at most
    ``rare`` records: a repeat in another language shares little but its names. A term of
    the field (LoRA) is no item's name, however few records hold it (``field_terms``)."""
    found: list[int] = []
    for name in sorted(n for n in names if not is_field_term(n)):
        rows = holders.holders(name)
        if rows and len(rows) <= rare:
            found += holders.store.restrict(rows, flt)
    return found


def counter(holders: NameHolders) -> Callable[[str], int]:
    return holders.count


def count_then(holders: NameHolders, arrived: int, flt: SearchFilter) -> Callable[[str], int]:
    """How many records held a name when the record at rowid ``arrived`` came in, as its check
    counted them: those stored before it (rowids are in storage order) within ``flt``, not it:
    check counts what the store holds, as its forms were fitted. A name's later holders made
    explain read a name common that the check had read rare."""

    def counted(name: str) -> int:
        if len(name) < MIN_CHARS or is_field_term(name):
            return holders.cap  # as ``NameHolders.count`` reads it
        rows = [r for r in holders.holders(name) if r < arrived]  # the earliest, in row order
        return min(holders.cap, len(holders.store.restrict(rows, flt)))

    return counted

"""Audit's second reading of a pair by its key points, as ``check`` reads it.

Audit builds each record from its whole-record vectors alone (``judging``: a
million records' key-point passages would be read a few times each), so it
decides a pair with ``same_item``, the summary form. ``check``, ``similar``
and ``explain`` read an item's key points (要点) and decide it with
``claims_same_item``. An update -- one system told again with new facts --
reads as another item by its summary and as the same one by its key points:
probe 16 (a month of briefings) had check call eight updates UPDATE of their
first-seen records, and audit cluster five; "MarlSpire adds a vLLM plugin"
was the same item as "MarlSpire -- prompt n-gram drafting" to check
(1.00 ≥ 0.45) and different to audit (0.14 < 0.30).

So a pair the summary form calls one item is read again by the key points
whenever the later record has them (the key-point form is check's decision for
such an item, and audit joins no pair check calls two items), and a pair the
summary form calls two items is read again, with every
passage vector of both records, when the later record has key points and
the two share a rare coined name (one at most ``rare_name_records`` records
name, as ``check`` counts it): the pairs where the two forms part (a retold
system keeps its name) and that are few (a rare name is held by at most five
records). The key-point form's judgement replaces the summary one, so audit
and check agree on the pair; its neighbourhood is audit's own. A join, or a
pair set apart near the line, is then decided with the judge's token alignment
too (``audit_align``).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from functools import partial

from kbsearch.dedupe.audit_align import PairAligner
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Match, Rule
from kbsearch.dedupe.roster import Roster
from kbsearch.dedupe.rules import compare
from kbsearch.store import Store

Nearest = Callable[[], list[Embedded]]
"""The later record's nearest records, built when a pair ``audit_align`` decides again asks."""
CACHE_RECORDS = 2_000
"""Records kept with all their passage vectors (a few KB each)."""


class KeyPointReading:
    """Reads again, by their key points, the pairs the summary form set apart that check would not."""

    def __init__(
        self, store: Store, roster: Roster, config: DedupeConfig, name_count: Callable[[str], int], aligner: PairAligner
    ) -> None:
        self.store, self.roster, self.config, self.name_count = store, roster, config, name_count
        self.aligner = aligner
        self.items: OrderedDict[int, Embedded] = OrderedDict()
        self.read = 0
        """Pairs read again."""
        self.loaded = 0
        """Records loaded with their passage vectors."""
        self.seconds = 0.0
        """Time spent loading the passage vectors of pairs read again (``bench/audit_phases.py`` prints it)."""

    def judge(self, pair: tuple[int, Embedded, int, Embedded], around: Neighbourhood, nearest: Nearest) -> Match:
        """The pair (later row and record, earlier row and record, as built from their whole-record
        vectors) as audit judges it (``audit_judgement``), reading their passage vectors when asked,
        and for a join or a pair near the line the judge's token vectors of the later record's
        ``nearest`` too."""
        align = partial(self._aligned, around=around, nearest=nearest)
        return audit_judgement(pair[1], pair[3], around, self.config, self.name_count, lambda: self._pair(pair), align)

    def _aligned(
        self, pair: tuple[Embedded, Embedded], match: Match, around: Neighbourhood, nearest: Nearest
    ) -> Match | None:
        return self.aligner.judge(pair, match, around, nearest, self.name_count)

    def _pair(self, pair: tuple[int, Embedded, int, Embedded]) -> tuple[Embedded, Embedded] | None:
        started = time.perf_counter()
        item, known = self._full(pair[0], pair[1]), self._full(pair[2], pair[3])
        self.seconds += time.perf_counter() - started
        if item is None or known is None:
            return None
        self.read += 1
        return item, known

    def _full(self, row: int, built: Embedded) -> Embedded | None:
        if row not in self.items:
            vectors = self.store.passage_vectors([int(self.roster.rowids[row])]).get(int(self.roster.rowids[row]))
            if vectors is None:
                return None
            self.items[row] = built.with_passages(vectors)
            self.loaded += 1
            while len(self.items) > CACHE_RECORDS:
                self.items.popitem(last=False)
        self.items.move_to_end(row)
        return self.items[row]


Aligned = Callable[[tuple[Embedded, Embedded], Match], Match | None]
"""The pair as decided, decided again with the judge's token alignment, or None
(``audit_align.PairAligner.judge``: a join, or a pair set apart near the line, only when check
would align it)."""


def audit_judgement(
    item: Embedded,
    known: Embedded,
    around: Neighbourhood,
    config: DedupeConfig,
    name_count: Callable[[str], int],
    full: Callable[[], tuple[Embedded, Embedded] | None],
    align: Aligned | None = None,
) -> Match:
    """How audit judges the later record ``item`` against the earlier ``known``, both built from
    their whole-record vectors: by ``compare`` (the summary form), then, when ``read_again`` asks,
    by ``compare`` on ``full()``, the two with every passage vector (key points included; None:
    one has none stored, and the summary judgement stands). Then ``align`` decides again, with
    the token alignment, a pair read in check's own form (by its key points, or an item with
    none by its summary) that it joins or sets apart near the line. ``explain`` tells audit's view so."""
    match = compare(item, known, config, around, name_count)
    both = full() if read_again(item, known, match, config, name_count) else None
    if both is not None:
        match = compare(*both, config, around, name_count)
    checks_form = both is not None or not item.record.claims  # the form check decides the pair by
    aligned = align((both or (item, known)), match) if align is not None and checks_form else None
    if aligned is not None:
        return aligned
    if both is not None:
        return _unaligned(match, config)
    return _unaligned_summary(match, config) if checks_form else match


def read_again(
    item: Embedded, known: Embedded, match: Match, config: DedupeConfig, name_count: Callable[[str], int]
) -> bool:
    """Whether audit reads the pair again by its key points: the summary form decided it (learned,
    no exact evidence), the later record ``item`` has key points and the config a key-point form;
    and either the summary form called it the same item (check decides such an item by its key
    points: probe 23's Kite joined Pipit's cluster at 0.54 ≥ 0.30, where check read 0.01 < 0.45),
    or it set the two apart and they share a rare coined name (held by at most
    ``rare_name_records`` records)."""
    if match.rule is not Rule.learned or config.claims_same_item is None or not item.record.claims:
        return False
    if match.same_item:
        return True
    return any(name_count(name) <= config.rare_name_records for name in item.names & known.names)


def _unaligned(match: Match, config: DedupeConfig) -> Match:
    """A key-point reading that joins the pair without the alignment (``audit_align`` reads it for
    every join it can: past its bound, or without a token encoder, it cannot) says it read no
    token alignment when check would: check decides such an item by ``aligned_claims_same_item``
    (its own threshold, from the judge's token vectors, which audit does not store), so the two
    may part (probe 23: Marten, NEW at the gate at 0.39 < 0.55, joined Vireo at 0.85 ≥ 0.45)."""
    if not match.same_item or config.aligned_claims_same_item is None or not match.reasons:
        return match
    reasons = [unaligned_reason(match.reasons[0]), *match.reasons[1:]]
    return match.model_copy(update={"reasons": reasons})


def _unaligned_summary(match: Match, config: DedupeConfig) -> Match:
    """A summary reading of an item without key points (check's form for it) that joins the pair
    unaligned says so, when a judge gives check the aligned form: the alignment could not be read
    (the bound on an audit's token reading spent, no token encoder, or a text too long)."""
    if config.judge is None or config.aligned_same_item is None:
        return match
    if match.rule is not Rule.learned or not match.same_item or "aligned" in match.form or not match.reasons:
        return match
    reasons = [unaligned_reason(match.reasons[0], "summary"), *match.reasons[1:]]
    return match.model_copy(update={"reasons": reasons})


def unaligned_reason(reason: str, name: str = "key points") -> str:
    """``reason`` saying that its reading by the form ``name`` lacked check's token alignment,
    inside the brackets that name the form (``rules.compare``), not in a second pair."""
    form = f" ({name} form)"
    first = reason[: -len(form)] if reason.endswith(form) else reason
    return f"{first} ({name} form, without check's token alignment)"

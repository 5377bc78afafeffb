"""How audit judges a pair, for ``explain``: the function audit runs, on audit's kind of neighbourhood.

``explain`` used to model audit as check's judgement on the whole texts, in check's
neighbourhood. Audit does otherwise in two ways (probe 37: explain said audit read Merrowind's
two acquisitions as "different items (0.00)" where audit had joined them at 0.99): it judges
the later record against the earlier, read again by its key points when ``read_again`` asks
(``key_points.audit_judgement``, called here as audit calls it), and a pair across languages
against the later record's nearest records in the earlier one's language
(``judging.Candidates.around_reader``), where check's neighbourhood mixes both languages and
its summary form there sank the pair. A join, or a pair set apart near the line, is decided with
the judge's token alignment, as audit decides it (``audit_align``), when explain is given the token
encoder.
This module builds that neighbourhood from the later
record's nearest stored records; audit's own also counts the records that have it among theirs,
so the note still says audit may move it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from kbsearch.dedupe.audit_align import PairAligner, TokenSource
from kbsearch.dedupe.audit_as_checked import CheckCandidates, CheckerSource
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.flags import seen_order
from kbsearch.dedupe.key_points import audit_judgement
from kbsearch.dedupe.results import Match
from kbsearch.dedupe.rules import around_of
from kbsearch.filters import SearchFilter
from kbsearch.records import Kind
from kbsearch.store import Store

Loader = Callable[[list[int]], list[Embedded]]
"""Stored records by rowid, with their vectors (``related.load_rows``)."""


def audit_match(
    store: Store,
    a: Embedded,
    b: Embedded,
    config: DedupeConfig,
    name_count: Callable[[str], int],
    load: Loader,
    tokens: TokenSource | None = None,
    checker: CheckerSource | None = None,
) -> tuple[Match, bool]:
    """Audit's judgement of the pair, and whether A is the later record audit judged; ``tokens``:
    the judge's token encoder, which audit reads for a join or a pair near the line (``audit_align``);
    ``checker``: check's candidate search, which audit reads for a pair across languages."""
    rowids = store.rowids_of([a.record.id, b.record.id])
    a_later = _order(a, rowids.get(a.record.id)) > _order(b, rowids.get(b.record.id))
    later, earlier = (a, b) if a_later else (b, a)
    around, nearest = _around(store, later, earlier, config, load)
    item, known = (Embedded.whole_only(r.record, r.whole, r.judge) for r in (later, earlier))
    full = (_untokened(later), _untokened(earlier))
    as_checked = CheckCandidates(store, checker, config) if checker is not None else None
    aligner = PairAligner(config, tokens, as_checked=as_checked)
    align = lambda pair, match: aligner.judge(pair, match, around, lambda: nearest, name_count)  # noqa: E731
    return audit_judgement(item, known, around, config, name_count, lambda: full, align), a_later


def _untokened(record: Embedded) -> Embedded:
    """``record`` without the token vectors check's reading gave it: audit's records have none
    but those ``audit_align`` reads. Read with them and without the neighbourhood's
    alignment (probe 39), explain said audit joined at 1.00 a pair audit set apart."""
    if record.judge_tokens is None:
        return record
    bare = copy.copy(record)
    bare.judge_tokens = None
    return bare


def _order(record: Embedded, rowid: int | None) -> tuple[object, ...]:
    r = record.record
    return (*seen_order(r.date, r.kind, r.instance, rowid), r.id)


def _around(
    store: Store, later: Embedded, earlier: Embedded, config: DedupeConfig, load: Loader
) -> tuple[Neighbourhood, list[Embedded]]:
    """The later record's neighbourhood as audit reads it for this pair, and its records: its
    ``audit_neighbours`` nearest records, or, across languages when audit pairs records so, its
    ``neighbourhood`` nearest written in the earlier one's language (two sections: their own, as
    audit reads them)."""
    docs = later.record.kind is Kind.doc_section and earlier.record.kind is Kind.doc_section
    across = bool(config.audit_other_language) and later.language != earlier.language and not docs
    want = config.neighbourhood if across else config.audit_neighbours
    flt = SearchFilter(exclude_ids=[later.record.id])
    found = load([rowid for rowid, _, _ in store.search_records(later.whole, want * (8 if across else 1), flt)])
    if across:
        found = [k for k in found if k.language == earlier.language]
    nearest = sorted(found, key=lambda k: -float(later.whole @ k.whole))[:want]
    judged = [float(later.judge @ k.judge) for k in nearest if later.judge is not None and k.judge is not None]
    return around_of([float(later.whole @ k.whole) for k in nearest], judged, config), nearest

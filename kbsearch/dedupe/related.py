"""A stored record's neighbours (``kbsearch similar``) and the judgement on
two stored records (``kbsearch explain``).

Both run the dedupe rules of ``check`` (``dedupe.compare``) on stored records,
so what they say about a pair is what ``check`` would say when one of them
came in again.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

from kbsearch.dedupe.audit_align import TokenSource
from kbsearch.dedupe.audit_as_checked import CheckerSource
from kbsearch.dedupe.audit_view import audit_match
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.results import Explanation, Match, Neighbours
from kbsearch.dedupe.rules import Embedded, compare, compare_all, neighbourhood
from kbsearch.errors import KbError, RecordNotFound
from kbsearch.filters import SearchFilter
from kbsearch.responses import ListedRecord
from kbsearch.store import Store
from kbsearch.store.skips import skipped_note


def load_embedded(store: Store, record_ids: list[str], judge: str | None) -> dict[str, Embedded]:
    """The stored records with their passage vectors (and ``judge``'s vectors);
    RecordNotFound names the first missing id."""
    rowids = store.rowids_of(record_ids)
    for record_id in record_ids:
        if record_id not in rowids:
            # An item the gate skipped has no record, but the skip memory knows where it is.
            said, hint = skipped_note(store.db, record_id) or ("", None)
            raise RecordNotFound(
                f"no record with id {record_id!r}" + (f": {said}" if said else ""),
                hint=hint or "ids are listed by 'kbsearch list --json' and 'search --json'",
            )
    loaded = load_rows(store, list(rowids.values()), judge)
    return {rid: loaded[rowid] for rid, rowid in rowids.items()}


def load_rows(store: Store, rowids: list[int], judge: str | None) -> dict[int, Embedded]:
    """Stored records by rowid with their passage vectors, and ``judge``'s vector of
    each whole text (a record without one is an error naming the fix)."""
    records = store.by_rowids(rowids)
    vectors = store.passage_vectors(rowids)
    judged = store.judge_vectors(records, judge) if judge is not None else {}
    lacking = [records[r].id for r in records if judge is not None and r not in judged]
    if lacking:
        raise KbError(
            f"{len(lacking)} records have no {judge!r} vector, e.g. {lacking[0]!r}",
            hint="run 'kbsearch reindex' (embeds what the judge lacks)",
        )
    return {r: Embedded(records[r], vectors[r], judge=judged.get(r)) for r in rowids if r in records and r in vectors}


def neighbours(store: Store, record_id: str, k: int, flt: SearchFilter, config: DedupeConfig) -> Neighbours:
    """The ``k`` records nearest to a stored one (by whole text and by title), plus
    every one sharing an arXiv id with it (beyond ``k`` if it is not among them),
    judged as ``check`` judges its matches."""
    started = time.perf_counter()
    item = load_embedded(store, [record_id], config.judge)[record_id]
    flt = flt.model_copy(update={"exclude_ids": [*flt.exclude_ids, record_id]})
    fetch = max(k, config.candidates)
    rowids: dict[int, None] = {}
    for vector in (item.whole, item.vectors[0]):
        rowids.update((rowid, None) for rowid, _, _ in store.search_records(vector, fetch, flt))
    by_id = store.rowids_with_arxiv(item.record.arxiv_ids + item.record.cited_ids)
    rowids.update((r, None) for r in store.restrict(by_id, flt))
    known = list(load_rows(store, list(rowids), config.judge).values())
    name_count = NameHolders(store, NAME_COUNT_CAP).count
    # Same item first, then by the cosine each line prints: ordered by the learned
    # probability, which a rule-decided line does not print, it read 0.36, 0.43, 0.40.
    matches = sorted(compare_all(item, known, config, name_count), key=lambda m: (not m.same_item, -m.score))
    # A record about one of its arXiv ids is listed however far its text (a living-doc
    # section listing the paper among others): ``similar --help`` promises them.
    kept = matches[:k] + [m for m in matches[k:] if m.shared_ids]
    return Neighbours(
        record=ListedRecord.from_record(item.record),
        model=store.model or "",
        k=k,
        filters=flt.model_copy(update={"exclude_ids": flt.exclude_ids[:-1]}),
        matches=kept,
        seconds=round(time.perf_counter() - started, 4),
    )


def explain(store: Store, a_id: str, b_id: str, config: DedupeConfig, as_of: dt.date | None = None) -> Explanation:
    """Whether B is the same item as A, by ``compare``, and what every rule saw. With ``as_of``,
    as ``check --as-of`` computed it when A came in: records dated after that day and A itself
    (not stored yet then) are not A's neighbourhood; how rare a name is, check and explain
    both count over the whole index."""
    loaded = load_embedded(store, [a_id, b_id], config.judge)
    return explain_embedded(store, loaded[a_id], loaded[b_id], config, as_of)


def explain_embedded(
    store: Store,
    a: Embedded,
    b: Embedded,
    config: DedupeConfig,
    as_of: dt.date | None = None,
    known: list[Embedded] | None = None,
    name_count: Callable[[str], int] | None = None,
    tokens: TokenSource | None = None,
    checker: CheckerSource | None = None,
) -> Explanation:
    """``explain`` of A embedded already: a stored record, or an input's item as check embeds it;
    ``known``: A's candidates as check finds them (its neighbourhood), else A's nearest records;
    ``name_count``: how rare a name is, as check counted it (an input's items among the holders)."""
    # Counted over the whole index, as check counts it with or without --as-of: counted within
    # the day, explain read a name rare that check read common and explained another decision.
    name_count = name_count or NameHolders(store, NAME_COUNT_CAP).count
    if known is None:  # the neighbourhood ``check`` would read: A's nearest stored records
        flt = SearchFilter(exclude_ids=[a.record.id], not_after=as_of)
        nearest = [rowid for rowid, _, _ in store.search_records(a.whole, config.neighbourhood, flt)]
        known = list(load_rows(store, nearest, config.judge).values())
    around = neighbourhood(a, known, config)
    match = compare(a, b, config, around, name_count)
    load = lambda rowids: list(load_rows(store, rowids, config.judge).values())  # noqa: E731
    # tokens: audit's, for a join or near the line; checker: check's candidates, for a pair across languages
    by_audit, a_later = audit_match(store, a, b, config, name_count, load, tokens, checker)
    return Explanation(
        a=ListedRecord.from_record(a.record),
        b=ListedRecord.from_record(b.record),
        model=store.model or "",
        match=match,
        rules=rule_findings(a, b, config, name_count, around),
        notes=_later(b, as_of) + _unread_by_explain(a, match) + _as_audit_reads(match, by_audit, a_later),
        as_of=as_of,
    )


def _later(b: Embedded, as_of: dt.date | None) -> list[str]:
    """A check as of ``as_of`` never compared a record written after that day."""
    if as_of is None or b.record.date is None or b.record.date <= as_of:
        return []
    return [
        f"B is dated {b.record.date}, after {as_of}: a check as of {as_of} did not compare it; "
        "this is how it reads B now, with the index as of that day"
    ]


def _as_audit_reads(match: Match, by_audit: Match, a_later: bool) -> list[str]:
    """Where audit's judgement of the pair (``audit_view``: the later record against the earlier,
    on their whole-record vectors, read again by key points when audit reads so, in audit's kind
    of neighbourhood) differs from this one."""
    if by_audit.same_item == match.same_item:
        return []
    verdict = "the same item" if by_audit.same_item else "different items"
    later = "A" if a_later else "B"
    return [
        f"audit judges {later}, the later, against the other on their whole texts, and by their key points "
        f"when it reads a pair again: read so ({by_audit.form} form), these are {verdict} "
        f"({by_audit.probability:.2f} against {by_audit.threshold:.2f}, the neighbourhood rebuilt from "
        f"{later}'s nearest records; audit's own may move it), so an audit may cluster them otherwise than check would"
    ]


def _unread_by_explain(a: Embedded, match: Match) -> list[str]:
    """What check reads of A coming in again that the stored records do not give explain."""
    if a.record.claims and a.claim_rows is None:
        return [
            "A's key points are stored inside its text, not as passages of their own, so explain reads "
            f"A by its {match.form} form; check embeds an incoming item's key points and reads them "
            "(and, for a short item, the judge's token alignment), so its probability and threshold "
            "may differ: run 'kbsearch check' on A's file to see check's"
        ]
    return []

"""``explain`` reads a pair by the form ``check`` reads it: A embedded as check embeds an
incoming item (its key points, the judge's vector and token vectors), A's neighbourhood
found by check's own candidate search, and the judge's token vectors given to the
candidates check aligns. Read from stored vectors only, a pair check had decided by the
aligned key-point form (same item 0.79 ≥ 0.55) was explained by the summary form
(0.16 < 0.45), with nothing saying check judged otherwise (probe 26).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbsearch.dedupe.check import Checker
    from kbsearch.dedupe.check_reading import Reading
    from kbsearch.dedupe.config import DedupeConfig
    from kbsearch.dedupe.results import Match
    from kbsearch.dedupe.rules import Embedded
    from kbsearch.kb.facade import KnowledgeBase
    from kbsearch.store import SearchFilter, Store

SHOW_ALL = 1_000_000  # check's matches, every one it compared, not only the first shown


def check_of(kb: KnowledgeBase, config: DedupeConfig, as_of: dt.date | None) -> Checker:
    """A ``Checker`` of ``kb``'s store as ``check`` builds one (inside the store's snapshot)."""
    from kbsearch.dedupe.check import Checker

    judge, tokens = kb.judging_models(config)
    return Checker(kb.store, kb.encoder, config, as_of, judge=judge, tokens=tokens)


def as_check_reads(
    kb: KnowledgeBase,
    read: Reading,
    number: int,
    b: str,
    config: DedupeConfig,
    flt: SearchFilter | None,
    as_of: dt.date | None,
) -> tuple[Embedded, Embedded, list[Embedded]]:
    """Item ``number`` (from 0) of an input as check embedded it (``read``, inside its block), B,
    and the item's candidates among the records ``flt`` lets through (None: those ``check`` of the
    input compares with, the input's earlier items among them), as check loads them (token vectors
    for the ``aligned_candidates`` nearest and for those past them decided near the line
    (``beyond_cap``); B's too when A has any, so a pair check never compared is read by the form
    it would be). The items are embedded once, for this and check's re-run."""
    from kbsearch.dedupe.check_day import check_filter
    from kbsearch.dedupe.related import load_embedded
    from kbsearch.dedupe.same_input import InputItems

    # A checker of its own: the token vectors it gives its candidates are not check's re-run's.
    checker = check_of(kb, config, as_of)
    a = read.items[number]
    if flt is None:  # as check reads the input: ``Checker.checked``
        pooled = InputItems(read.items, config.candidates)
        for n, earlier in enumerate(read.items[:number]):  # the candidates they aligned are aligned for A too
            before = check_filter(kb.store, earlier.record, as_of, read.resubmitted)
            checker.compared(earlier, pooled.before(n, before) | checker.candidates(earlier, before, read.judged))
        flt = check_filter(kb.store, a.record, as_of, read.resubmitted)
        known = pooled.before(number, flt)
    else:
        known = {}
    known |= checker.candidates(a, flt, read.judged)
    checker.compared(a, known)  # aligns those past the cap near the line, as check does (``beyond_cap``)
    other = known.get(b) or load_embedded(kb.store, [b], config.judge)[b]
    if other.judge_tokens is None and b not in known and a.judge_tokens is not None and len(a.judge_tokens):
        checker.with_tokens([other])
    return a, other, list(known.values())


def form_why(a: Embedded, b: Embedded, match: Match, config: DedupeConfig) -> str:
    """Which learned form read the pair, and why that one (``DedupeConfig.same_item_for``)."""
    from kbsearch.dedupe.audit_align import BAND

    if "aligned" in match.form:
        why = "the judge's token alignment of the two texts, as check reads a short item's nearest candidates"
    elif config.aligned_same_item is None:
        why = "the config has no aligned decision"
    elif a.judge_tokens is None or (b.judge_tokens is None and b.record.id != a.record.id):
        why = (
            "no token alignment: "
            + ("no token encoder" if a.judge_tokens is None else "B is not among the candidates check aligns")
            + (
                f" (the {config.aligned_candidates} nearest by the judge's cosine, and those past them "
                f"decided within {BAND} of the line)"
                if config.aligned_candidates
                else ""
            )
        )
    else:
        why = f"no token alignment: a text longer than the aligned decision reads ({config.aligned_max_tokens} tokens)"
    points = "A's key points" if a.claim_rows is not None else "A has no key points of its own"
    return f"{match.form} ({points}; {why})"


def as_check_decided(explained: Match, checked: Match | None, how: str) -> list[str]:
    """One line when check's own decision of the pair (``how`` it ran) differs from explain's."""
    if checked is None:
        return [f"check did not compare B ({how}; not among its candidates): its verdict does not rest on B"]
    if checked.same_item == explained.same_item:
        return []
    verdict = "the same item" if checked.same_item else "different items"
    return [
        f"check decided otherwise ({how}): {verdict} ({'; '.join(checked.reasons)}; {checked.form} form), "
        "against another neighbourhood than explain reads"
    ]


def as_came_in(
    store: Store, a: Embedded, b: Embedded, config: DedupeConfig, as_of: dt.date | None, known: list[Embedded]
) -> Match | None:
    """The pair compared with names counted as check counted them when stored A came in
    (``names.count_then``): records stored later make a name common that was rare then, and
    the rule it decided (probe 27: SWE-bench, five holders on Marlin's day, eleven later).
    None when A is not stored or every name of the pair reads alike either way."""
    from kbsearch.dedupe.features import NAME_COUNT_CAP
    from kbsearch.dedupe.names import NameHolders, count_then
    from kbsearch.dedupe.rules import compare, neighbourhood
    from kbsearch.store import SearchFilter

    arrived = store.rowids_of([a.record.id]).get(a.record.id)
    if arrived is None:
        return None
    holders = NameHolders(store, NAME_COUNT_CAP)
    then = count_then(holders, arrived, SearchFilter(not_after=as_of))
    rare = config.rare_name_records
    if all((then(n) <= rare) == (holders.count(n) <= rare) for n in sorted(a.all_names | b.all_names)):
        return None
    return compare(a, b, config, neighbourhood(a, known, config), then)


def came_in_otherwise(explained: Match, then: Match | None, checked: Match | None) -> list[str]:
    """One line when the pair read with the names counted as A came in differs from explain's
    reading (and check's re-run, which counts them now, did not say so already)."""
    if then is None or then.same_item == explained.same_item:
        return []
    if checked is not None and checked.same_item != explained.same_item:
        return []
    verdict = "the same item" if then.same_item else "different items"
    return [
        f"check decided otherwise as A came in (names counted over the records stored before it): {verdict} "
        f"({'; '.join(then.reasons)}); records stored since make some of the pair's names more common"
    ]

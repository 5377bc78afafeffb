"""Which of two records of one text check names (``dedupe/ties.py``): a paper stored as its card
and as an increment scores the same against an item, passage for passage, and check names
the one whose id sorts first, whatever order the index stored them in, a search listed
them in or a process built them in (``bench/lone_check.py``: 26 of 200 checks named the
other one in one run of three, and the match's ``states_claims`` followed)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import fake_config
from support.files import write_jsonl
from test_judge import judge_encoder, judged_models  # noqa: F401
from test_judge_claims_kept import _config, _kb

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.check_reading import to_align
from kbsearch.dedupe.claims import PassageHit, PassageReader, judge_claim, judge_said
from kbsearch.dedupe.config import SAID_FEATURES, DedupeConfig
from kbsearch.dedupe.kept_records import KEPT_RECORDS
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.dedupe.sections_as_of import SectionsAsOf
from kbsearch.kb import KnowledgeBase
from kbsearch.kb.warm_checks import records_to_warm, warm_checks
from kbsearch.records import Record
from kbsearch.store import SearchFilter, Store

TITLE = "Beam-Guided Knowledge Replay for Image Captioning"
TEXT = "KRCapVLM replays retrieved knowledge through beam search decoding and an attention module to caption images."
DAY = {"date": "2025-05-31", "instance": "feed-a", "topic": "arxiv"}
CARD = {"id": "bench/0/1161", "kind": "paper_card", "title": TITLE, "text": TEXT, **DAY}
INCREMENT = {
    "id": "bench/1/1161", "kind": "increment", "title": TITLE, "text": TEXT, **DAY,
    "claims": ["Beam search decoding gives varied captions", "Knowledge recognition accuracy rises markedly"],
}  # fmt: skip
OTHERS = [
    {"id": "bench/0/12", "kind": "paper_card", "title": "Sparse attention for long video", "text": "A sparse "
     "attention kernel reads one frame in eight and keeps accuracy on long video benchmarks.", **DAY},
    {"id": "bench/0/13", "kind": "paper_card", "title": "Speculative decoding on phones", "text": "A draft "
     "model on the phone's NPU doubles decoding speed for a 3B model.", **DAY},
]  # fmt: skip
ITEM = f"{TITLE}\n{TEXT}"
FIRST = "bench/0/1161"
"""The one of the two whose id sorts first: the evidence named whatever else varies."""

# claim_said with the token coverage deciding, as the default model's form reads it most.
SAID = Scorer(
    features=list(SAID_FEATURES), weights=[20.0 if n == "coverage" else 0.0 for n in SAID_FEATURES],
    means=[0.0] * len(SAID_FEATURES), scales=[1.0] * len(SAID_FEATURES), bias=-17.0, threshold=0.5,
    fitted_on="hand-set for a test", score="none",
)  # fmt: skip


def _cosine_only(tmp_path: Path) -> tuple[KnowledgeBase, DedupeConfig]:
    """The fake model deciding alone: the claims' cosine decision (``claims.judge_claim``)."""
    return _kb(tmp_path, judge_encoder()), fake_config()


def _judged(tmp_path: Path) -> tuple[KnowledgeBase, DedupeConfig]:
    """With a judge and its token vectors: the claim form (``claims.judge_said``) and the alignment."""
    kb = _kb(tmp_path, judge_encoder(), FakeTokenEncoder())
    return kb, _config(SAID).model_copy(update={"aligned_candidates": 1})


OPENERS = {"cosine decision": _cosine_only, "judge and claim form": _judged}
Opener = Callable[[Path], tuple[KnowledgeBase, DedupeConfig]]


def _checked(tmp_path: Path, open_kb: Opener, stored: list[dict[str, Any]], **around: Any) -> dict[str, Any]:
    """What names a record in the check of ``ITEM`` against ``stored`` (stored in that order)."""
    kb, config = open_kb(tmp_path)
    with kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", stored)])
        if "warm" in around:
            generation, rowids = records_to_warm(kb, 100)
            assert warm_checks(kb, around["warm"](rowids), KEPT_RECORDS, generation)
        [item] = kb.check_text(ITEM, config=config).items
    return {
        "evidence": [c.best_id for c in item.claims],
        "states": {m.id: m.states_claims for m in item.matches if m.states_claims},
        "matches": [m.id for m in item.matches],
        "first_seen": item.first_seen.id if item.first_seen else None,
        "json": item.model_dump_json(),
    }


def _same_evidence(one: dict[str, Any], other: dict[str, Any]) -> None:
    assert one["evidence"] == other["evidence"] == [FIRST] * len(one["evidence"]) and one["evidence"]
    assert one["states"] == other["states"] == {FIRST: list(range(1, len(one["evidence"]) + 1))}
    assert one["matches"] == other["matches"]
    assert one["first_seen"] == other["first_seen"] == FIRST
    assert one["json"] == other["json"]


@pytest.mark.parametrize("open_kb", OPENERS.values(), ids=OPENERS.keys())
def test_the_evidence_is_the_same_record_whichever_of_the_two_was_stored_first(
    open_kb: Opener,
    tmp_path: Path,
    judged_models: Path,  # noqa: F811
) -> None:
    """faiss lists equal scores in its heap's order (here the later stored first): the card
    stored first or the increment, check named whichever the search listed first."""
    card_first = _checked(tmp_path / "card", open_kb, [CARD, INCREMENT, *OTHERS])
    increment_first = _checked(tmp_path / "increment", open_kb, [INCREMENT, CARD, *OTHERS])
    _same_evidence(card_first, increment_first)


@pytest.mark.parametrize("open_kb", OPENERS.values(), ids=OPENERS.keys())
def test_the_evidence_is_the_same_record_whichever_order_a_search_lists_equal_scores_in(
    open_kb: Opener,
    tmp_path: Path,
    judged_models: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One index: its searches list records of one score in faiss's order, or in the other
    (which of them reach a top k, and in which order, depends on the k asked)."""
    listed = _checked(tmp_path / "listed", open_kb, [CARD, INCREMENT, *OTHERS])
    real = Store.search_records

    def ties_reversed(self: Store, query: np.ndarray, k: int, flt: Any = None) -> list[tuple[int, float, int]]:
        return sorted(reversed(real(self, query, k, flt)), key=lambda hit: -hit[1])

    monkeypatch.setattr(Store, "search_records", ties_reversed)
    reversed_ties = _checked(tmp_path / "reversed", open_kb, [CARD, INCREMENT, *OTHERS])
    _same_evidence(listed, reversed_ties)


def test_the_evidence_is_the_same_record_whichever_order_the_records_were_built_ahead_in(
    tmp_path: Path,
    judged_models: Path,  # noqa: F811
) -> None:
    """``serve --warm-records`` builds the newest first; built oldest first, or not at all, the same.
    A guard, not the tie-break's test: ``Checker.load`` hands records over in the order asked,
    so the order they were built in never reached the decision (this passes without ``ties``
    but for the record it pins)."""
    newest_first = _checked(tmp_path / "newest", _judged, [CARD, INCREMENT, *OTHERS], warm=lambda r: r)
    oldest_first = _checked(tmp_path / "oldest", _judged, [CARD, INCREMENT, *OTHERS], warm=lambda r: r[::-1])
    unbuilt = _checked(tmp_path / "unbuilt", _judged, [CARD, INCREMENT, *OTHERS])
    _same_evidence(newest_first, oldest_first)
    _same_evidence(newest_first, unbuilt)


ENCODER = FakeEncoder()


def _embedded(record: dict[str, Any]) -> Embedded:
    """``record`` as check loads it, with the fake encoder standing for the judge too."""
    built = Record.model_validate({k: v for k, v in record.items() if k not in DAY})
    return Embedded(built, ENCODER.encode(built.passages()), judge=ENCODER.encode([built.embed_text()])[0])


def test_of_two_records_as_near_the_one_aligned_is_the_same_in_either_order() -> None:
    """The candidates given token vectors (``aligned_candidates``): a tie at the cut is by id."""
    card, increment = _embedded(CARD), _embedded(INCREMENT | {"claims": []})  # one whole text: one judge vector
    item = _embedded({"id": "item", "kind": "increment", "title": TITLE, "text": TEXT})
    assert [k.record.id for k in to_align(item, [card, increment], 1)] == [FIRST]
    assert [k.record.id for k in to_align(item, [increment, card], 1)] == [FIRST]


def _twins() -> tuple[Embedded, Embedded, str, np.ndarray]:
    """The card and the increment as check loads them, and the item's one claim (its whole text)."""
    return _embedded(CARD), _embedded(INCREMENT), ITEM, ENCODER.encode([ITEM])[0]


def _passages(known: Embedded, vector: np.ndarray) -> list[PassageHit]:
    return [PassageHit(known, i, float(v @ vector)) for i, v in enumerate(known.vectors)]


def test_of_two_same_item_passages_as_near_the_claim_form_names_the_first_id_in_either_order() -> None:
    """``claims.judge_said``: the passage covering most of the claim; of one coverage and cosine, by id."""
    card, increment, claim, vector = _twins()
    same = {card.record.id, increment.record.id}
    for order in ([card, increment], [increment, card]):
        hits = [h for known in order for h in _passages(known, vector)]
        status = judge_said(claim, hits, same, PassageReader(None, FakeTokenEncoder()), SAID)
        assert status.known and status.best_id == FIRST


def test_of_two_same_item_passages_as_near_the_cosine_decision_names_the_first_id_in_either_order() -> None:
    """``claims.judge_claim``: the likeliest passage; of one probability, by id."""
    card, increment, claim, vector = _twins()
    for order in ([card, increment], [increment, card]):
        status = judge_claim(claim, vector, [], order, fake_config())
        assert status.known and status.best_id == FIRST


def test_a_claim_s_nearest_passages_cut_with_the_sections_as_first_written_keep_the_first_id() -> None:
    """``sections_as_of.claim_hits``: the k nearest, a section as first written among them; a tie at the cut by id."""
    card, increment, _, vector = _twins()
    section = Record(id="doc/vision#§1", kind="doc_section", title="Captioning", text="Captioning models.")
    then = SectionsAsOf(None, ENCODER, None)  # type: ignore[arg-type]  # reads no store: its day is given
    then._days[dt.date(2025, 6, 1)] = {section.id: Embedded(section, ENCODER.encode(section.passages()))}
    flt = SearchFilter(not_after=dt.date(2025, 6, 1))
    for order in ([card, increment], [increment, card]):
        hits = [PassageHit(known, 1, float(known.vectors[1] @ vector)) for known in order]
        assert [h.known.record.id for h in then.claim_hits(hits, flt, vector, 1)] == [FIRST]

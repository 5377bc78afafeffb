"""A living-doc section is never the same item as an increment or a card (README, issue 25),
in either direction, and what it states is known (a new user's probe, 6 December).

``check`` of an increment about arXiv 2606.01927 said "same item as doc/inference#§1.1 (both are
about arXiv 2606.01927)", since the ids rule came before the doc-section rule, and flagged it
"marked '本次新增' but first seen by unknown"; ``check`` of a doc section said "same item as"
the increment about its paper. Now the section is evidence, not the item: an item whose every
claim the living doc states is a DUPLICATE of what it states, named as such; one whose claims
another increment states (not the same item) stays NEW, as before."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import fake_config
from support.checking import check_one

from kbsearch.dedupe.config import SAID_FEATURES, DedupeConfig
from kbsearch.dedupe.flags import item_flags
from kbsearch.dedupe.results import ClaimStatus, ItemResult, Match, Rule, Verdict
from kbsearch.dedupe.scorer import Scorer
from kbsearch.dedupe.verdict import decide
from kbsearch.records import Kind, Record

ALBIREO = "Albireo discusses the scaling limit of a single inference engine through Amdahl's law"
SECTION = Record(
    id="doc/inference#§1.1",
    kind=Kind.doc_section,
    title="§1.1 engines",
    text=f"vLLM and SGLang lead serving. {ALBIREO} (arXiv:2606.01927).",
    arxiv_ids=["2606.01927", "2605.29979"],
    date=dt.date(2026, 9, 18),
)
OTHER = Record(id="jay/n#1", kind=Kind.increment, title="GPU health checks", text="step time alarms per rank")


def always_said() -> DedupeConfig:
    """The fake config with a claim_said form that calls any passage weighed a saying of the claim:
    a claim is then known from its nearest passage (of a same-item record, else of any)."""
    names = list(SAID_FEATURES)
    form = Scorer(
        features=names, weights=[0.0] * len(names), means=[0.0] * len(names), scales=[1.0] * len(names),
        bias=10.0, threshold=0.5, fitted_on="hand-set for a test", score="none",
    )  # fmt: skip
    return fake_config().model_copy(update={"claim_said": form})


def check(tmp_path: Path, stored: list[Record], item: Record, config: DedupeConfig | None = None) -> ItemResult:
    return check_one(tmp_path, stored, item, config or always_said())


def test_an_increment_whose_claims_a_section_states_is_a_duplicate_of_it_not_its_item(tmp_path: Path) -> None:
    albireo = Record(
        id="tom/albireo#1", kind=Kind.increment, instance="tom", date=dt.date(2026, 12, 6),
        title="Albireo — Amdahl's law and one engine's limit", text="", claims=[ALBIREO],
        arxiv_ids=["2606.01927"], anchor="本次新增",
    )  # fmt: skip
    item = check(tmp_path, [SECTION, OTHER], albireo)
    section = next(m for m in item.matches if m.id == SECTION.id)
    assert not section.same_item and section.rule is Rule.doc_section and section.shared_ids == ["2606.01927"]
    assert item.verdict is Verdict.DUPLICATE and item.claims[0].known and item.claims[0].best_id == SECTION.id
    assert item.reason == (
        "its 1 claim is known: doc/inference#§1.1 states it (living-doc section: evidence, not the same item)"
    )
    assert item.first_seen is not None and item.first_seen.id == SECTION.id
    [flag] = item.flags
    assert flag.message == "marked '本次新增' but first in doc/inference §1.1 on 2026-09-18"


def test_a_stating_section_that_was_no_candidate_is_still_named_first_seen(tmp_path: Path) -> None:
    """The claim's nearest passage need not be among the item's candidates (here one: the
    nearest record by whole text); the section is compared with the item all the same."""
    config = always_said().model_copy(update={"candidates": 1, "key_point_candidates": 0})
    card = {"kind": Kind.paper_card, "date": dt.date(2026, 12, 6)}
    note = Record(
        id="card/1", title="Speculative decoding with draft trees", text="GPU health, step alarms per rank", **card
    )
    item = Record(
        id="card/2", title="GPU health checks for training", text="GPU health, step alarms", claims=[ALBIREO], **card
    )
    result = check(tmp_path, [SECTION, note], item, config)  # the note, another paper's card, is the one candidate
    assert [m.id for m in result.matches] == [note.id] and not result.matches[0].same_item
    assert result.verdict is Verdict.DUPLICATE and result.claims[0].best_id == SECTION.id
    assert result.first_seen is not None and result.first_seen.id == SECTION.id
    assert result.first_seen.rule is Rule.doc_section and not result.first_seen.same_item


def test_a_doc_section_is_not_the_same_item_as_the_increment_about_its_paper(tmp_path: Path) -> None:
    about = Record(
        id="tom/albireo#1", kind=Kind.increment, instance="tom", date=dt.date(2026, 9, 1),
        title="Albireo", text=ALBIREO, arxiv_ids=["2606.01927"],
    )  # fmt: skip
    item = check(tmp_path, [about, OTHER], SECTION)
    match = next(m for m in item.matches if m.id == about.id)
    assert not match.same_item and match.rule is Rule.doc_section
    assert item.verdict is Verdict.NEW and item.first_seen is None  # its claims, known or not, say no more


def test_claims_another_increment_states_keep_an_item_new() -> None:
    """Only the living doc makes an item a DUPLICATE without a same-item record: another
    increment's nearest passage is most often the item's own missed repeat, and shows as known."""
    stated = [ClaimStatus(text="c", known=True, score=0.9, threshold=0.5, best_id="jay/n#1", best_kind=Kind.increment)]
    assert decide([], stated)[0] is Verdict.NEW
    by_section = [c.model_copy(update={"best_id": "doc/x#§2", "best_kind": Kind.doc_section}) for c in stated]
    assert decide([], by_section)[0] is Verdict.DUPLICATE
    assert decide([], by_section + stated)[0] is Verdict.NEW  # one claim the doc does not state
    unknown = [by_section[0].model_copy(update={"known": False})]
    assert decide([], unknown)[0] is Verdict.NEW


@pytest.mark.parametrize(
    ("kind", "instance", "said"),
    [
        (Kind.doc_section, None, "first in doc/inference §1.1 on 2026-09-18"),
        (Kind.paper_card, None, "first seen in doc/inference#§1.1 on 2026-09-18"),
        (Kind.increment, "jay", "first seen by jay on 2026-09-18 (doc/inference#§1.1)"),
    ],
)
def test_a_flag_names_a_record_no_writer_wrote_by_its_name(kind: Kind, instance: str | None, said: str) -> None:
    first = Match(
        id="doc/inference#§1.1", kind=kind, title="t", instance=instance, date=dt.date(2026, 9, 18), score=0.5,
        lexical=0.0, probability=1.0, threshold=0.5, same_item=True, rule=Rule.learned,
    )  # fmt: skip
    item = Record(id="x", kind=Kind.increment, title="x", text="x", date=dt.date(2026, 12, 6), anchor="首次锚入")
    [flag] = item_flags(item, first)
    assert flag.message == f"marked '首次锚入' but {said}"

"""check's "held by doc/… since DATE" names a section that holds the item as audit's "in doc" does
(``dedupe.doc_holding``), never one a rule set apart, whatever its learned score.

Probe 47: a same-day retelling was "held by" the doc's section on the benchmark it reports a score
on (about other arXiv ids, learned 0.99 by the benchmark's name); probe 48: another "held by" the
section on the base model it only cites (learned 0.73). Neither section named the item, and audit
showed neither holding it. The texts here are written for these tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.doc_holding import subject_held
from kbsearch.dedupe.results import ItemResult, Match, Rule
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

D0, D1 = dt.date(2026, 10, 4), dt.date(2026, 10, 6)
PAPER, BENCH, BASE = "2609.77001", "2608.11223", "2605.12345"
TITLE = "WrenSeg segments orchard rows from drone video"
CLAIMS = ["Scores 64.2 mIoU on FieldSeg-200, 3.1 points above the prior best", "Runs at 41 fps on a Jetson board"]

BENCH_SECTION = Record(
    id="doc/agri#§2.2", kind=Kind.doc_section, title="§2.2 Orchard benchmarks", date=D0, arxiv_ids=[BENCH],
    text=f"- FieldSeg-200 (arXiv {BENCH}): 200 labelled orchard scenes; mIoU is reported per crop, best 61.1.",
)  # fmt: skip
BASE_SECTION = Record(
    id="doc/agri#§1.1", kind=Kind.doc_section, title="§1.1 Segmentation backbones", date=D0, arxiv_ids=[BASE],
    text=f"- TerraSeg (arXiv {BASE}): a drone-video segmentation backbone, 38 fps on a Jetson board.",
)  # fmt: skip
NAMING_SECTION = Record(
    id="doc/agri#§3.1", kind=Kind.doc_section, title="§3.1 Orchard perception", date=D0,
    text="- WrenSeg: orchard row segmentation from drone video, shown at a field day.",
)  # fmt: skip


FLEET_TITLE = "Tamarack Freight grows its Pika-R drone fleet to 300 units"
FLEET_SECTION = Record(
    id="doc/agri#§4.2", kind=Kind.doc_section, title="§4.2 Fleet deployments", date=D0,
    text="Tamarack Freight flies 120 Pika-R drones from 2 depots; Osier Farms trials 6 sprayers.",
)  # fmt: skip


def writer(who: str, anchor: str | None = None, cited: list[str] | None = None, title: str = TITLE) -> Record:
    return Record(
        id=f"{who}/{D1}#1", kind=Kind.increment, instance=who, date=D1, title=title, claims=CLAIMS,
        text="Built on TerraSeg." if cited else "", arxiv_ids=[PAPER], cited_ids=cited or [], anchor=anchor,
    )  # fmt: skip


def learned_says(probability_sign: float) -> DedupeConfig:
    """The fake config with a same-item form that reads nothing: every pair is the same item to
    it (+1) or none is (-1), so only the rules and the holding evidence decide "held by"."""
    config = fake_config()
    form = config.same_item.model_copy(
        update={"weights": [0.0] * len(config.same_item.features), "bias": 20.0 * probability_sign}
    )
    return config.model_copy(update={"same_item": form})


def checked(
    tmp_path: Path, section: Record, config: DedupeConfig, cited: list[str] | None = None, title: str = TITLE
) -> ItemResult:
    """ben's retelling of ada's item, same day, marked new; ada's and the section stored. Then
    ben's stored too, and audit's cluster of the paper must name the same section (or none)."""
    store = Store.open(tmp_path / "idx", create=True)
    try:
        ada, ben = writer("ada", cited=cited, title=title), writer("ben", "首次锚入", cited, title)
        files = {section.id: "/doc/agri.md", ada.id: "/in/ada.md", ben.id: "/in/ben.md"}
        stored = ChangeSet(upserts=[section, ada], files=files)
        ingest_records(store, stored, model="fake", load_encoder=FakeEncoder)
        [result] = Checker(store, FakeEncoder(), config).check([ben], file=None, input_name="ben").items
        ingest_records(store, ChangeSet(upserts=[ben], files=files), model="fake", load_encoder=FakeEncoder)
        [cluster] = [c for c in audit(store, "fake", config).clusters if c.first_seen.id == ada.id]
    finally:
        store.close()
    assert result.first_seen is not None and result.first_seen.id == ada.id
    audit_held = cluster.held_in_doc.id if cluster.held_in_doc else None
    assert (result.held_in_doc.id if result.held_in_doc else None) == audit_held  # check and audit agree
    return result


def test_a_section_about_other_arxiv_ids_holds_nothing_however_high_its_learned_score(tmp_path: Path) -> None:
    result = checked(tmp_path, BENCH_SECTION, learned_says(+1))
    [section] = [m for m in result.matches if m.id == BENCH_SECTION.id]
    assert section.rule is Rule.different_ids and section.probability >= section.threshold  # the probe's shape
    assert result.held_in_doc is None
    [flag] = result.flags
    assert "held by" not in flag.message and flag.first_seen_id == f"ada/{D1}#1"


def test_a_section_on_the_paper_the_item_only_cites_holds_nothing(tmp_path: Path) -> None:
    result = checked(tmp_path, BASE_SECTION, learned_says(+1), cited=[BASE])
    [section] = [m for m in result.matches if m.id == BASE_SECTION.id]
    assert section.cited_ids == [BASE] and section.probability >= section.threshold
    assert result.held_in_doc is None
    assert all("held by" not in flag.message for flag in result.flags)


def test_a_section_naming_the_item_holds_it_whatever_its_learned_score(tmp_path: Path) -> None:
    """The converse: audit lists it "in doc" by its line naming the item, so check says it held it."""
    result = checked(tmp_path, NAMING_SECTION, learned_says(-1))
    [section] = [m for m in result.matches if m.id == NAMING_SECTION.id]
    assert section.probability < section.threshold
    assert result.held_in_doc is not None and (result.held_in_doc.id, result.held_in_doc.date) == (
        NAMING_SECTION.id,
        D0,
    )
    [flag] = result.flags
    assert flag.message.endswith(f"held by doc/agri §3.1 since {D0}")


def test_a_section_naming_every_name_of_a_news_title_holds_it_when_the_learned_decision_agrees(
    tmp_path: Path,
) -> None:
    """The coined-name reading finds no name in "Tamarack Freight … Pika-R …" (plain words, a
    one-letter suffix), though the section writes both: the title's subject and the learned
    decision hold it, in check and in audit alike."""
    result = checked(tmp_path, FLEET_SECTION, learned_says(+1), title=FLEET_TITLE)
    assert result.held_in_doc is not None and result.held_in_doc.id == FLEET_SECTION.id
    [flag] = result.flags
    assert flag.message.endswith(f"held by doc/agri §4.2 since {D0}")


def _section_match(probability: float, cited: list[str] | None = None) -> Match:
    return Match(
        id=FLEET_SECTION.id, kind=Kind.doc_section, title=FLEET_SECTION.title, instance=None, date=D0,
        score=0.5, lexical=0.0, probability=probability, threshold=0.5, same_item=False, rule=Rule.doc_section,
        cited_ids=cited or [],
    )  # fmt: skip


def test_the_titles_names_hold_only_beside_the_learned_decision_and_no_rule_setting_it_apart() -> None:
    item = writer("ada", title=FLEET_TITLE)
    said = subject_held(_section_match(0.9), item, FLEET_SECTION)
    assert said is not None and said.startswith("the section names Tamarack, Freight, Pika-R, as the title does")
    assert subject_held(_section_match(0.2), item, FLEET_SECTION) is None  # a company's other news
    # The company's line on its earlier model holds no news of the next one, however close the score.
    earlier = FLEET_SECTION.model_copy(update={"text": FLEET_SECTION.text.replace("Pika-R", "Pika-Q")})
    assert subject_held(_section_match(0.9), item, earlier) is None
    assert subject_held(_section_match(0.9, [BASE]), item, FLEET_SECTION) is None  # it only cites the section's
    elsewhere = FLEET_SECTION.model_copy(update={"text": "Osier Farms trials 6 sprayers."})
    assert subject_held(_section_match(0.9), item, elsewhere) is None  # close by the score, never naming it
    apart = _section_match(0.9).model_copy(update={"rule": Rule.different_ids})
    assert subject_held(apart, item, FLEET_SECTION) is None

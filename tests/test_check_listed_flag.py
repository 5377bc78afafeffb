"""check flags an item marked new whose paper a living-doc section listed before it, as audit
does (probe 26: spark's PrismQuant, 首次锚入 on 11-17, was NEW at the gate with no flag and no
held_in_doc, though doc/serving §2.3 listed arXiv 2611.01234 since 11-15; audit flagged it)."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config
from test_doc_section_dates import D1, D3, DAY1, ingest

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.records import Kind, Record
from kbsearch.render.dedupe import item_text
from kbsearch.store import Store

NEWS = "Quill kernels land for Hopper: MMLU drops 0.3 points and throughput rises 1.6x over FP8 on a 70B model."


def _check(tmp_path: Path, anchor: str, arxiv: str) -> ItemResult:
    index, doc = tmp_path / "idx", tmp_path / "knowledge" / "serving.md"
    doc.parent.mkdir(parents=True)
    ingest(index, doc, DAY1)
    item = Record(
        id=f"spark/{D3}#2", kind=Kind.increment, instance="spark", date=D3, title="Quill kernels for Hopper",
        claims=[NEWS], arxiv_ids=[arxiv], anchor=anchor,
    )  # fmt: skip
    store = Store.open(index)
    try:
        [result] = Checker(store, FakeEncoder(), fake_config()).check([item], file=None, input_name="p").items
    finally:
        store.close()
    return result


def test_an_item_marked_new_whose_paper_a_section_listed_before_is_flagged(tmp_path: Path) -> None:
    result = _check(tmp_path, "§1 首次锚入", "2610.00002")  # §1.2 lists it since day 1
    assert result.verdict is Verdict.NEW and result.first_seen is None
    assert result.held_in_doc is not None and (result.held_in_doc.id, result.held_in_doc.date) == (
        "doc/serving#§1.2",
        D1,
    )
    [flag] = result.flags
    assert flag.message == (
        f"marked '§1 首次锚入' but first in doc/serving §1.2 on {D1} (the section lists arXiv 2610.00002)"
    )
    assert flag.first_seen_id == "doc/serving#§1.2"
    assert f"held by doc/serving §1.2 since {D1}" in item_text(result)


def test_no_flag_when_no_section_lists_its_paper_or_the_item_is_not_marked_new(tmp_path: Path) -> None:
    unlisted = _check(tmp_path / "a", "§1 首次锚入", "2610.09999")
    assert unlisted.flags == [] and unlisted.held_in_doc is None
    unmarked = _check(tmp_path / "b", "§1 补强", "2610.00002")
    assert unmarked.flags == [] and unmarked.held_in_doc is not None

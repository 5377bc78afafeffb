"""A living-doc line on an item the doc names without its paper (probe 13, 6 December).

An editor folds an accepted item into the doc by its name ("免训练的一支以 SpinTree 解码为
代表…") or copies a line; the next briefing restating that line without an arXiv id was
NEW at cosine 0.00, as the section was read whole. A section's entries naming the item by a
rare coined name of its title, or copying one of its claims word for word, are its lines on
it; an entry sharing only the topic's words is not (tests/test_doc_entries.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from test_finer_passages import OTHER, check

from kbsearch.dedupe.finer import flat, item_sentences, naming
from kbsearch.dedupe.results import Verdict
from kbsearch.records import Kind, Record

SECTION = Record(
    id="doc/serving#§1.6",
    kind=Kind.doc_section,
    title="§1.6 免训练解码",
    text=(
        "- 一支以 SpinTree 解码为代表：用已生成内容建索引猜测后续 token，在重复度高的输出上收益最大。\n"
        "- 调研：多数团队认为免训练解码的收益取决于输出的重复度，评测集仍偏少。"
    ),
    date=dt.date(2026, 11, 2),
)


def item(title: str, claims: list[str]) -> Record:
    return Record(
        id="ben/2026-11-09#4", kind=Kind.increment, instance="ben", date=dt.date(2026, 11, 9),
        title=title, text="", claims=claims,
    )  # fmt: skip


@dataclasses.dataclass
class Section:
    record: Record


def test_an_entry_naming_the_item_by_its_coined_name_is_its_line() -> None:
    cut = naming(SECTION, set(), frozenset({"spintree"}))
    assert cut is not None and cut.text.startswith("一支以 SpinTree 解码为代表")
    assert "调研" not in cut.text
    assert naming(SECTION, set(), frozenset({"loomspec"})) is None
    compared = SECTION.model_copy(update={"text": "- LoomSpec 比 SpinTree 快 1.4 倍，需要草稿头。"})
    assert naming(compared, set(), frozenset({"spintree"})) is None  # a comparison names another item


def test_an_entry_copying_a_claim_word_for_word_is_its_line_and_one_sharing_topic_words_is_not() -> None:
    copied = item("解码", ["免训练解码的收益取决于输出的重复度"])
    [cut] = item_sentences(copied, [Section(SECTION)])  # type: ignore[list-item]
    assert cut.text.startswith("调研")
    text = "- SpinTree 建后缀索引，见 arXiv:2601.33333。免训练解码的收益取决于输出的重复度。"
    mixed = SECTION.model_copy(update={"text": text, "arxiv_ids": ["2601.33333"]})
    assert naming(mixed, set(), copied=(flat("免训练解码的收益取决于输出的重复度"),)) is not None
    assert naming(mixed, set(), copied=(flat("SpinTree建后缀索引"),)) is None  # a sentence on another paper
    topical = item("解码", ["免训练解码的评测仍偏少"])
    assert item_sentences(topical, [Section(SECTION)]) == []  # type: ignore[list-item]


def test_a_claim_restating_the_line_naming_the_item_is_known_and_a_topic_claim_stays_new(tmp_path: Path) -> None:
    named = check(tmp_path / "a", [SECTION, OTHER], item("SpinTree 解码", ["在重复度高的输出上收益最大"]))
    assert [(c.known, c.best_id) for c in named.claims] == [(True, SECTION.id)]
    assert named.verdict is Verdict.DUPLICATE
    topical = check(tmp_path / "b", [SECTION, OTHER], item("免训练解码", ["收益取决于任务类型"]))
    assert not topical.claims[0].known and topical.verdict is Verdict.NEW

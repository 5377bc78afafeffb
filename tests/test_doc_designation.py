"""A living-doc entry naming the item's word-and-letter product is its line (probe 47).

A title naming its system as a plain word and one capital letter (a fleet of "Heron-K"
robots) named nothing the names reader knows, so the section's entry on that fleet was
never read as the item's line: a NEW item's key point repeating the entry's figure was
weighed against its one nearest passage, the section read whole, and called new.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one, said_by

from kbsearch.records import Kind, Record
from kbsearch.text.designations import designations

SECTION = Record(
    id="doc/logistics#§4.2",
    kind=Kind.doc_section,
    title="§4.2 园区部署",
    text=(
        "Tidewater Freight 在 5 个园区部署了 260 台 Heron-K 搬运机器人，平均故障间隔约 900 小时。"
        "Orland Motors 在冲压车间试点 6 台双臂机器人，良率尚未达标。"
    ),
    date=dt.date(2026, 11, 20),
)
SPECS = Record(
    id="doc/logistics#§2.1",
    kind=Kind.doc_section,
    title="§2.1 整机规格",
    text="Brisk Dynamics 发布 Wren 2：续航约 4 小时，负载 15 kg，售价 6 万美元。",
    date=dt.date(2026, 11, 20),
)


def fleet(title: str) -> Record:
    return Record(
        id="amy/2026-12-02#3", kind=Kind.increment, instance="amy", date=dt.date(2026, 12, 2), title=title,
        text="", claims=["平均故障间隔仍约 900 小时", "Heron-K 车队从 260 台扩大到 640 台"],
    )  # fmt: skip


def test_a_word_and_letter_product_is_read_and_ordinary_or_longer_words_are_not() -> None:
    assert designations("Tidewater Freight 扩大 Heron-K 车队") == {"heron-k"}
    assert designations("grows its Heron-K.") == {"heron-k"}  # a sentence's full stop ends it
    assert designations("Top-K 采样，Non-I.I.D. 数据，Heron-KX，Heron-K2，Agent-X") == frozenset()


def test_the_entry_naming_the_items_product_states_its_figure_for_a_new_item(tmp_path: Path) -> None:
    title = "Tidewater Freight 扩大 Heron-K 车队 — 640 台"
    item = check_one(tmp_path, [SECTION, SPECS], fleet(title), said_by("lexical"))
    reliability, grown = item.claims
    assert (reliability.known, reliability.best_id) == (True, SECTION.id)
    assert not grown.known and grown.new_numbers  # 640 is the item's own figure
    assert item.stated_in_doc == [SECTION.id]


def test_a_title_naming_no_product_of_the_entry_leaves_the_figure_new(tmp_path: Path) -> None:
    """The same claims under a title naming another fleet: the entry is no line on the item."""
    item = check_one(tmp_path, [SECTION, SPECS], fleet("Tidewater Freight 扩大 Osprey-L 车队"), said_by("lexical"))
    assert not item.claims[0].known

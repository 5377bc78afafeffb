"""An arXiv id written with an earlier day's anchor note is neither the record's
subject nor a bare citation (``text.anchors``, ``dedupe.rules.only_cited``)."""

from __future__ import annotations

import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare, ruled_out
from kbsearch.records import Kind, Record
from kbsearch.text.anchors import anchored_ids

ENCODER = FakeEncoder()
CONFIG = fake_config()
TEXT = "LMCache 把 KV Cache 放到 CPU 内存、本地盘或远端存储，引擎重启后仍可命中。"


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("9-16锚定（tom，arXiv:2510.09665）；§1.3 存放与卸载", {"2510.09665"}),
        ("arXiv:2510.09665（9-16 锚定）", {"2510.09665"}),
        ("与 C²KV（8-26 锚定，arXiv:2607.17715）互补", {"2607.17715"}),
        ("ACL 2026 综述（arXiv:2607.08057）的六环节", set()),  # a citation with no note
        ("见 2607.08057 与 C²KV（8-26 锚定）", set()),  # the note is C²KV's, not the id's
    ],
)
def test_an_id_is_anchored_only_beside_its_note(text: str, ids: set[str]) -> None:
    assert anchored_ids(text) == ids


def embedded(record_id: str, title: str, **extra: object) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=TEXT, **extra)  # type: ignore[arg-type]
    return Embedded(record, ENCODER.encode(record.passages()))


def test_a_release_note_citing_its_items_anchored_paper_is_not_set_apart() -> None:
    """Probe: "LMCache 新增 SGLang connector", whose relation line reads "9-16锚定（tom，
    arXiv:2510.09665）", came out NEW beside tom's LMCache note, which is about that id
    ("one only cites arXiv 2510.09665"); the same text without the id was UPDATE."""
    known = embedded("tom", "LMCache — 面向生产的 KV Cache 持久化层", arxiv_ids=["2510.09665"])
    anchored = embedded(
        "jay", "LMCache 新增 SGLang connector", cited_ids=["2510.09665"], relation="9-16锚定（tom，arXiv:2510.09665）"
    )
    match = compare(anchored, known, CONFIG, Neighbourhood(), lambda name: 50)
    assert match.rule is not Rule.cited_id and not ruled_out(anchored, known, CONFIG), match.reasons
    plain = embedded("jay2", "LMCache 新增 SGLang connector", cited_ids=["2510.09665"], relation="见 arXiv:2510.09665")
    assert compare(plain, known, CONFIG, Neighbourhood(), lambda name: 50).rule is Rule.cited_id
    assert ruled_out(plain, known, CONFIG)

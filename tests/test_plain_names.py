"""Plain-word names (Larkspur, Thimble, Cohort): a title shows where one is the item's name
(probe 23, the editor folding items into the living doc).

``latin_names`` reads a name by its shape, so a system named by a plain English word had
no name at all: the section naming Larkspur was not read as on the Larkspur item (its
facts were called new, 0 of 3 claims known after the fold), and "Thimble 已合入 vLLM 主干"
was split from Thimble's record by vLLM, the one name its title had. A title's head before
a dash or colon, and a capitalised Latin word in a Chinese title, are names now; elsewhere
a capitalised plain word is a mention of one."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import fake_config
from test_finer_passages import OTHER, check

from fake_encoder import FakeEncoder
from kbsearch.dedupe.results import Verdict
from kbsearch.dedupe.rules import Embedded, different_names
from kbsearch.records import Kind, Record
from kbsearch.text.plain_names import mentions, title_plain_names


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("Larkspur 在代码任务上的新测数", {"larkspur"}),
        ("Thimble 已合入 vLLM 主干", {"thimble"}),
        ("Cohort — a shared KV pool for agents", {"cohort"}),
        ("Heron: a gating head for MoE routing", {"heron"}),
        ("Larkspur's dynamic draft tree", {"larkspur"}),
        ("Google's new serving stack", set()),
        ("多 Agent 协作与 Cache 复用", set()),  # terms of the trade, not names
        ("No Buffer, No Bottleneck — OSDI '26 上的零拷贝 KV Cache 卸载", set()),  # a paper's title, a phrase
        ("已合入 vLLM 的 Thimble", {"thimble"}),
        ("Improving OOD Detection via Dynamic Covariance Calibration", set()),  # an English title's first word
        ("Serving Kimi K3 needs 8 H200 GPUs", set()),
    ],
)
def test_a_titles_plain_word_names(title: str, names: set[str]) -> None:
    assert title_plain_names(title) == names


def test_a_capitalised_plain_word_is_a_mention() -> None:
    assert "thimble" in mentions("已作为可选方法合入 vLLM main 的 Thimble 用语法树约束草稿")
    assert "thimble" not in mentions("a thimble of water")  # a name is written capitalised


SECTION = Record(
    id="doc/serving#§1.4",
    kind=Kind.doc_section,
    title="§1.4 投机解码",
    text=(
        "Larkspur 用动态草稿树，平均接受长度 3.8，在通用对话上端到端加速 2.1 倍。"
        "Thimble（arXiv:2610.01033）用语法树约束草稿 token，草稿模型仅 68M 参数，代码补全加速 3.1 倍。"
    ),
    arxiv_ids=["2610.01033"],
    date=dt.date(2026, 10, 2),
)


def test_a_section_naming_the_item_by_its_plain_word_name_states_its_claims(tmp_path: Path) -> None:
    item = Record(
        id="tom/2026-10-03#2", kind=Kind.increment, instance="tom", date=dt.date(2026, 10, 3),
        title="Larkspur 在代码任务上的新测数", text="", claims=["在通用对话上端到端加速达 2.1 倍"],
    )  # fmt: skip
    result = check(tmp_path, [SECTION, OTHER], item)
    assert [(c.known, c.best_id) for c in result.claims] == [(True, SECTION.id)]
    assert result.verdict is Verdict.DUPLICATE


def embedded(rid: str, title: str, text: str) -> Embedded:
    record = Record(id=rid, kind=Kind.increment, title=title, text=text)
    return Embedded(record, FakeEncoder().encode(record.passages()))


def test_two_titles_naming_one_plain_word_system_are_not_split_by_a_host_name() -> None:
    merged = embedded("tom/10-04#3", "Thimble 已合入 vLLM 主干", "作为可选 speculative method 合入")
    paper = embedded("tom/10-03#4", "Thimble — 面向代码的投机解码", "用语法树约束草稿 token")
    rare = lambda name: 1  # noqa: E731  (a young index: every name is rare)
    assert different_names(merged, paper, fake_config(), rare) is None
    other = embedded("tom/10-03#5", "Marten — a KV-aware autoscaler", "scales on KV pressure")
    assert different_names(merged, other, fake_config(), rare) is not None


def test_a_titles_head_plain_name() -> None:
    from kbsearch.text.plain_names import head_plain_name

    assert head_plain_name("Brimstone — disaggregated prefill/decode scheduler") == {"brimstone"}
    assert head_plain_name("Larkspur 在代码任务上的新测数") == {"larkspur"}
    assert head_plain_name("Larkspur's dynamic draft tree") == {"larkspur"}
    assert head_plain_name("已合入 vLLM 的 Thimble") == set()  # a name further on is not the head
    assert head_plain_name("Improving OOD Detection via Dynamic Covariance") == set()


def test_a_plain_word_name_is_mentioned_in_any_case_and_number() -> None:
    """ "Key" of "旋转后的 4 比特 Key" is mentioned by "quantising keys": a title's plain word read
    as a name split a retelling from its record (tests/test_alignment_real.py, z6)."""
    retold = embedded("z6", "旋转后的 4 比特 Key", "量化 Key 到 4 比特之前先做 Hadamard 旋转")
    known = embedded("k6", "Rotated 4-bit keys", "A Hadamard rotation before quantising keys to four bits")
    assert different_names(retold, known, fake_config(), lambda name: 1) is None

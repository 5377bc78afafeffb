"""A term of the field written like a coined name (LoRA, RAG, MoE) is never a rare name
(``kbsearch.text.field_terms``), however few records of a young index hold it.

Probe 26: in an index of a few dozen records "LoRA" was held by two, so it counted as a
rare coined name: "Kubernetes Gateway API inference extension … routes by model name and
LoRA adapter" shared it with "Vireo 1.0 开源：面向多 LoRA 的推理引擎", the named-systems
rule read the shared name as one system ("both name LoRA (rare)"), the shared-names
feature weighed it as a rare name's (3.26 instead of 0.69), and the gateway's beta was
stored as an UPDATE of Vireo."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fake_config
from support.name_holders import holders_of

from fake_encoder import FakeEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import NAME_COUNT_CAP, name_weight
from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.names import NameHolders, rare_name_candidates
from kbsearch.dedupe.rules import Embedded, different_names
from kbsearch.records import Kind, Record
from kbsearch.store import SearchFilter

ENCODER = FakeEncoder()
VIREO = Record(
    id="spark/2026-11-16#1", kind=Kind.increment, instance="spark", date=dt.date(2026, 11, 16),
    title="Vireo 1.0 开源：面向多 LoRA 的推理引擎，吞吐 3.1 倍",
    text="Vireo 把几百个 LoRA adapter 放在同一批次里算，用分段 GEMM 合并计算",
)  # fmt: skip
SECTION = Record(
    id="doc/serving#§2.1", kind=Kind.doc_section, date=dt.date(2026, 11, 15),
    title="§2.1 多 LoRA 服务", text="多个 LoRA adapter 共用一个底座模型，按请求切换。",
)  # fmt: skip
GATEWAY = Record(
    id="jay/2026-11-17#3", kind=Kind.increment, instance="jay", date=dt.date(2026, 11, 17),
    title="Kubernetes Gateway API inference extension reaches beta",
    text="The extension routes by model name and LoRA adapter",
    claims=["The extension routes by model name and LoRA adapter", "Supports queue-depth aware endpoint picking"],
)  # fmt: skip


@pytest.fixture
def holders(tmp_path: Path) -> Iterator[NameHolders]:
    with holders_of(tmp_path, [VIREO, SECTION]) as held:
        yield held


def embedded(record: Record) -> Embedded:
    return Embedded(record, ENCODER.encode(record.passages()))


def test_a_field_term_held_by_two_records_counts_as_common(holders: NameHolders) -> None:
    assert holders.count("vireo") == 1  # a system's own name stays rare
    assert holders.count("lora") == NAME_COUNT_CAP  # two records hold it: a term, not a name
    assert name_weight(holders.count("lora")) == pytest.approx(0.69, abs=0.01)


def test_a_field_term_brings_no_rare_name_candidates(holders: NameHolders) -> None:
    assert rare_name_candidates(holders, frozenset({"lora"}), SearchFilter(), 5) == []
    assert len(rare_name_candidates(holders, frozenset({"vireo"}), SearchFilter(), 5)) == 1


def config() -> DedupeConfig:
    return fake_config()


def test_a_shared_field_term_does_not_make_two_systems_one(holders: NameHolders) -> None:
    gateway, vireo = embedded(GATEWAY), embedded(VIREO)
    ruled = different_names(gateway, vireo, config(), holders.count)
    assert ruled is not None and "vireo" in ruled[2]
    [named] = [f for f in rule_findings(gateway, vireo, config(), holders.count) if f.rule == "named systems"]
    assert named.says is False and "LoRA (rare)" not in named.detail


def test_a_shared_system_name_still_joins(holders: NameHolders) -> None:
    retold = Record(
        id="tom/2026-11-19#1", kind=Kind.increment, title="Vireo serves hundreds of LoRA adapters in one batch",
        text="Vireo batches LoRA adapters with segmented GEMM",
    )  # fmt: skip
    assert different_names(embedded(retold), embedded(VIREO), config(), holders.count) is None

"""A living-doc section is on an item by the name its title is about, not one it is for.

Probe 26: "Vireo 1.0 开源：面向多 LoRA 的推理引擎" kept LoRA among its rare coined names
(``finer.item_names``), and a survey section on multi-LoRA serving (S-LoRA, Punica, never
Vireo) was "the section names LoRA": audit flagged the item's 首次锚入 as seen before in the
doc. The item is Vireo (``finer.names_about``), for check's evidence, audit's "in doc" and the flag."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.finer import names_about, section_on_item
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

TITLE = "Vireo 1.0 开源：面向多 LoRA 的推理引擎，吞吐 3.1 倍"
SURVEY = Record(
    id="doc/serving#§2.1",
    kind=Kind.doc_section,
    date="2026-11-15",  # type: ignore[arg-type]
    title="§2.1 多 LoRA 服务",
    text="S-LoRA 与 Punica 奠定了多 adapter 同批计算的做法，vLLM 的 multi-LoRA 是目前的默认实现。",
)
VIREO = Record(
    id="spark#1",
    kind=Kind.increment,
    date="2026-11-16",  # type: ignore[arg-type]
    title=TITLE,
    text="Vireo 把几百个 LoRA adapter 放在同一批次里算，用分段 GEMM 合并计算。",
    claims=["500 个 adapter 时吞吐是 vLLM multi-LoRA 的 3.1 倍"],
    instance="spark",
    anchor="首次锚入",
)


def test_the_title_is_about_its_leading_name_not_what_it_is_for() -> None:
    coined = frozenset({"vireo", "lora"})
    assert names_about(TITLE, coined) == {"vireo"}
    assert names_about("面向多 LoRA 的推理引擎 Vireo 开源", coined) == {"vireo"}
    assert names_about("OpenHarness: an agent runtime speaking MCP and A2A", frozenset({"openharness", "mcp"})) == {
        "openharness"
    }
    assert names_about("开源：Vireo 与 LoRA 热加载", coined) == coined  # no name in the lead: every one kept
    assert section_on_item(VIREO, SURVEY, coined, ()) is None
    named = SURVEY.model_copy(update={"text": "Vireo 把 LoRA adapter 同批计算，吞吐是 vLLM 的 3.1 倍。"})
    found = section_on_item(VIREO, named, coined, ())
    assert found is not None and found[1] == "the section names Vireo"


def test_a_survey_naming_what_the_item_is_for_neither_holds_nor_flags_it(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    files = {SURVEY.id: "/src/serving.md", VIREO.id: "/src/spark.md"}
    ingest_records(store, ChangeSet(upserts=[SURVEY, VIREO], files=files), model="fake", load_encoder=FakeEncoder)
    result = audit(store, "fake", fake_config())
    assert [(c.first_seen.id, [m.id for m in c.repeats]) for c in result.clusters] == []
    assert result.claimed_new_seen_before == []

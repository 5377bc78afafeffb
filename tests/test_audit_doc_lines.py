"""audit lists a living-doc section "in doc" by check's rule for a section's word on an item.

Probe (stop 58): check read a section's line naming the item's rare coined name, or copying
one of its claims word for word, as the section's word on the item (``finer.section_on_item``)
and called the item stated by the section; audit listed a section in an item's cluster only
when it listed the item's arXiv id, so the same item was in no doc there. A survey sharing the
item's topic words holds nothing."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config
from test_finer_passages import OTHER, lexical_said

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.related import explain
from kbsearch.dedupe.results import Verdict
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

RADIX = "PagedRadix 把基数树前缀匹配与分页 KV 块合在一层管理"
RADIX_CLAIM = "PagedRadix 在多轮对话负载上把前缀命中率从 41% 提到 78%"
CHUNK_CLAIM = "Adaptive chunk budgets cut P99 time to first token from 2.1 s to 0.9 s on 8 H100 GPUs"


def _item(rid: str, instance: str, day: str, title: str, text: str, claim: str) -> Record:
    return Record(
        id=rid,
        kind=Kind.increment,
        date=day,
        title=title,
        text=text,
        claims=[claim],
        instance=instance,  # type: ignore[arg-type]
    )


def _section(anchor: str, title: str, text: str) -> Record:
    return Record(id=f"doc/inference#{anchor}", kind=Kind.doc_section, date="2026-09-08", title=title, text=text)  # type: ignore[arg-type]


def test_a_section_naming_the_item_or_copying_its_claim_is_in_doc_and_a_survey_is_not(tmp_path: Path) -> None:
    records = [
        _section("§2.1", "§2.1 前缀缓存", "- PagedRadix raises the prefix hit rate from 41% to 78%.\n- 其余方案从略。"),
        _section("§2.2", "§2.2 调度", f"- {CHUNK_CLAIM}.\n- 其他调度工作见 §2.3。"),
        _section(
            "§2.3",
            "§2.3 综述",
            "前缀缓存的主流做法是基数树前缀匹配或分页 KV 块管理；chunked prefill 的 token 预算决定 P99 首 token 延迟。",
        ),
        _item("tom#1", "tom", "2026-09-10", "PagedRadix 前缀树与分页 KV", RADIX, RADIX_CLAIM),
        _item("jay#1", "jay", "2026-09-12", "PagedRadix 前缀树与分页 KV", RADIX, RADIX_CLAIM),
        _item("tom#2", "tom", "2026-09-10", "Adaptive chunk budgets", "Chunk budgets follow the queue.", CHUNK_CLAIM),
        _item("jay#2", "jay", "2026-09-12", "Adaptive chunk budgets", "Chunk budgets follow the queue.", CHUNK_CLAIM),
    ]
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.instance or 'inference'}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    result = audit(store, "fake", fake_config())
    held = {c.first_seen.id: [(m.id, m.role, m.same_as, m.reason) for m in c.repeats] for c in result.clusters}
    assert held == {
        "tom#1": [
            ("jay#1", "again", "tom#1", "identical text"),
            ("doc/inference#§2.1", "in doc", "tom#1", "the section names PagedRadix"),
        ],
        "tom#2": [
            ("jay#2", "again", "tom#2", "identical text"),
            ("doc/inference#§2.2", "in doc", "tom#2", "the section states a claim word for word"),
        ],
    }


def test_a_section_naming_only_the_engine_the_item_lands_in_holds_nothing(tmp_path: Path) -> None:
    """Probe 19: "Kestrel merged into vLLM main" named vLLM, rare in a small index, and a survey
    section on engines naming vLLM was "in doc" for Kestrel, holding it "since" its own date. The
    item is Kestrel; vLLM is what it lands in (``platforms.platform_names``)."""
    paper = ["2611.30001"]
    records = [
        _section("§1", "§1 推理引擎", "- vLLM 与 SGLang 是最常用的两种开源推理引擎，都支持连续批处理。"),
        _item("tom#1", "tom", "2026-09-10", "Kestrel: slack-first scheduling", "Kestrel 按 SLO 余量排序请求。", "x"),
        _item("jay#1", "jay", "2026-09-12", "Kestrel merged into vLLM main", "Kestrel 的调度器已进入主干。", "y"),
    ]
    records = [r.model_copy(update={"arxiv_ids": paper}) if r.kind is Kind.increment else r for r in records]
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.instance or 'inference'}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=FakeEncoder)
    [cluster] = audit(store, "fake", fake_config()).clusters
    assert [m.id for m in cluster.repeats] == ["jay#1"], [(m.id, m.reason) for m in cluster.repeats]
    assert cluster.held_in_doc is None


ENGINES = _section(
    "§1", "§1 推理引擎", "- vLLM 与 SGLang 是最常用的两种开源推理引擎，都支持连续批处理。\n- 其余引擎从略。"
)
MERGED = _item("jay#2", "jay", "2026-09-12", "Kestrel merged into vLLM main", "Kestrel 的调度器已进入主干。", "x")


def test_explain_and_check_read_the_engine_the_item_lands_in_as_audit_does(tmp_path: Path) -> None:
    """Probe 19, after audit's fix: explain's named-systems line still said "both name vLLM (rare)"
    for "Kestrel merged into vLLM main" and the engines survey, and check read the survey's vLLM
    line as the section's word on the item, its evidence for a claim (known, DUPLICATE). One
    reading of the item's names (``finer.item_names``) for the three: the item is Kestrel."""
    store = Store.open(tmp_path / "a", create=True)
    ingest_records(store, ChangeSet(upserts=[ENGINES, OTHER, MERGED]), model="fake", load_encoder=FakeEncoder)
    told = explain(store, MERGED.id, ENGINES.id, fake_config())
    assert [f.detail for f in told.rules if f.rule == "named systems"] == [
        "no rare system, release or news subject named by one sets them apart"
    ]
    store = Store.open(tmp_path / "b", create=True)
    ingest_records(store, ChangeSet(upserts=[ENGINES, OTHER]), model="fake", load_encoder=FakeEncoder)
    item = MERGED.model_copy(update={"claims": ["vLLM 支持连续批处理"]})
    [result] = Checker(store, FakeEncoder(), lexical_said()).check([item], file=None, input_name="probe").items
    assert [c.known for c in result.claims] == [False], result.claims  # the section read whole: no line on it
    assert result.verdict is Verdict.NEW

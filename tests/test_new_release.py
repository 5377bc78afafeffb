"""A new release of a system the knowledge base holds is an UPDATE of its item (``subjects.new_release``).

Probe 26: spark reported "Vireo 1.0 开源" on 11-16; tom's "Vireo 1.1：H200 上吞吐提升到 4.2 倍" on 11-19
compares 1.1 with it ("1.0 版是 3.1 倍"). The different-releases rule made 1.1 NEW in check and
split the cluster in audit, so spark lost the first writer's credit. A patch of a release
(vLLM 0.31.1 after 0.31.0, ``test_news_subjects``) and a release its record never ties to
the other stay two items, as do two products sharing a version number."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config
from support.embedded import judged
from test_doc_section_verdicts import always_said, check

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.results import Rule, Verdict
from kbsearch.dedupe.rules import Embedded, ruled_out
from kbsearch.dedupe.subjects import new_release, releases
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

ENCODER = FakeEncoder()
CONFIG = fake_config()

FIRST = Record(
    id="spark/11-16#1",
    kind=Kind.increment,
    instance="spark",
    date="2026-11-16",  # type: ignore[arg-type]
    title="Wrenfold 1.0 开源：面向多 LoRA 的推理引擎，吞吐 3.1 倍",
    text="Wrenfold 把几百个 LoRA adapter 放在同一批次里算，用分段 GEMM 合并计算。",
    claims=["500 个 adapter 时吞吐是 vLLM multi-LoRA 的 3.1 倍", "目前只支持 Llama 系列和 A100/H100"],
)
LATER = Record(
    id="tom/11-19#1",
    kind=Kind.increment,
    instance="tom",
    date="2026-11-19",  # type: ignore[arg-type]
    title="Wrenfold 1.1：H200 上吞吐提升到 4.2 倍，并支持 FP8",
    text="Wrenfold 多 LoRA 引擎 1.1 版支持 H200 与 FP8 权重。",
    claims=["500 个 adapter 时吞吐是 vLLM multi-LoRA 的 4.2 倍（1.0 版是 3.1 倍）", "新增 Qwen3 系列支持"],
)


def embedded(rec: Record) -> Embedded:
    return Embedded(rec, ENCODER.encode(rec.passages()))


def test_a_release_whose_record_gives_the_earlier_one_is_its_item_either_way() -> None:
    for a, b in ((LATER, FIRST), (FIRST, LATER)):
        rule, same, reason = judged(a, b)
        assert (rule, same) == (Rule.new_release, True), reason
        assert "a new release of wrenfold: 1.1 after 1.0" in reason
    assert not ruled_out(embedded(LATER), embedded(FIRST), CONFIG, lambda name: 50)
    named = next(
        f for f in rule_findings(embedded(LATER), embedded(FIRST), CONFIG, lambda n: 50) if f.rule == "named systems"
    )
    assert named.says is True and "new release" in named.detail


def test_a_patch_an_untied_release_and_another_product_stay_apart() -> None:
    ours = releases("SGLang 0.6.1 补丁修复路由器内存泄漏")
    assert new_release((ours, "建议 0.6.0 用户尽快升级"), (releases("SGLang 0.6 加入统一路由器"), "")) is None
    assert new_release((releases("Wrenfold 1.1 发布"), "新增 fp8"), (releases(FIRST.title), "")) is None
    # Another product at the same version, each record naming the other's version.
    assert (
        new_release((releases("Dynamo 1.1 adds routing"), "wrenfold 1.0"), (releases(FIRST.title), "dynamo 1.0"))
        is None
    )
    # A bare figure is no release ("1.0 ms"), and an earlier record naming a later version plans it.
    assert new_release((releases("Wrenfold 1.1 发布"), "延迟 1.0 ms"), (releases(FIRST.title), "")) is None
    assert new_release((releases(FIRST.title), "1.1 版将支持 fp8"), (releases("Wrenfold 1.2 发布"), "")) is None
    rule, same, _ = judged(LATER.model_copy(update={"claims": ["新增 Qwen3 系列支持"]}), FIRST)
    assert (rule, same) == (Rule.different_names, False)


def test_check_calls_the_new_release_an_update_with_its_benchmark_new(tmp_path: Path) -> None:
    result = check(tmp_path, [FIRST], LATER, fake_config())
    assert result.verdict is Verdict.UPDATE, result.reason
    assert "a new release of wrenfold" in result.reason
    [speed] = [c for c in result.claims if "4.2" in c.text]
    assert not speed.known  # the new release's benchmark figure is a new claim


def test_a_release_restating_the_earlier_ones_claims_is_still_an_update(tmp_path: Path) -> None:
    again = LATER.model_copy(update={"claims": ["目前只支持 Llama 系列和 A100/H100 (1.0 版)"]})
    result = check(tmp_path, [FIRST], again, always_said())
    assert result.verdict is Verdict.UPDATE, result.reason
    assert all(c.known for c in result.claims) and "1.1 after 1.0" in result.reason


def test_audit_keeps_the_first_writer_and_says_the_later_member_is_a_new_release(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    files = {r.id: f"/src/{r.instance}.md" for r in (FIRST, LATER)}
    ingest_records(store, ChangeSet(upserts=[FIRST, LATER], files=files), model="fake", load_encoder=lambda: ENCODER)
    [cluster] = audit(store, "fake", CONFIG).clusters
    assert cluster.first_seen.id == FIRST.id
    [repeat] = cluster.repeats
    assert repeat.id == LATER.id and repeat.same_as == FIRST.id
    assert repeat.reason is not None and "a new release of wrenfold: 1.1 after 1.0" in repeat.reason

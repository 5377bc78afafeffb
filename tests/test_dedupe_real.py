"""The dedupe gate on real text with the real default model. Marked slow; runs in CI.

The knowledge base is examples/ plus two briefings of tom's (08-26 and 09-19):
the real seeds when they are beside the project, else the project's own
fixtures in the same layouts; each test runs against both when it can.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.briefings import FIXTURE_0826, FIXTURE_0919, SEED_0826, SEED_0919, Briefing, from_seed_and_fixture
from support.files import write_jsonl

from kbsearch.kb import KnowledgeBase
from kbsearch.models import load_models

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
KEDA_EN = "spark/2026-08-28-spark-llm-infra-e1prep#3"

# A Chinese rewrite, point by point, of spark's English KEDA increment (examples/).
KEDA_ZH = {
    "id": "tom-keda-zh",
    "instance": "tom",
    "date": "2026-09-02",
    "topic": "engineering",
    "title": "用 KEDA 按前缀缓存命中率给 vLLM 做自动扩缩容",
    "claims": [
        "做法：按队列深度加上前缀缓存命中率（vllm:prefix_cache_hits / vllm:prefix_cache_queries）扩缩 vLLM 副本，"
        "而不是按 GPU 利用率，因为缓存承担了大部分工作时 GPU 利用率依然很高",
        "原因：新副本启动时前缀缓存是冷的，扩容过于激进会在几分钟内拉低整个集群的命中率并抬高 TTFT",
        "建议的保护措施：设置几分钟的冷却窗口，并在再加副本之前要求命中率不低于某个下限",
    ],
}
C2KV_UPDATE = {
    "id": "tom-c2kv-v2",
    "instance": "tom",
    "date": "2026-09-25",
    "arxiv_ids": ["2607.17715"],
    "title": "C²KV v2：可压缩、可组合的 KV Cache 复用，新增 8× 压缩结果",
    "claims": [
        "4× 压缩比下 NDCG@5 仍为 0.71，未压缩基线为 0.74",
        "v2 新增 8× 压缩实验：NDCG@5 降到 0.63，首 token 延迟减少 41%",
    ],
}
UNRELATED = {
    "id": "tom-grid",
    "instance": "tom",
    "date": "2026-09-25",
    "title": "电网调度中的量子退火：一个 1,024 比特的现场试验",
    "text": "某电力公司在区域电网机组组合问题上试用量子退火机，求解时间与经典 MILP 求解器相当，但解的质量略差。",
}


@pytest.fixture(scope="module", params=from_seed_and_fixture((SEED_0826, SEED_0919), (FIXTURE_0826, FIXTURE_0919)))
def kb_and_briefings(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[KnowledgeBase, Briefing, Briefing]]:
    b0826, b0919 = request.param
    spec = load_models(ROOT / "models.txt")[0]
    with KnowledgeBase(tmp_path_factory.mktemp("gate") / "idx", spec, create=True) as base:
        base.ingest([ROOT / "examples", b0826.path, b0919.path])
        yield base, b0826, b0919


@pytest.fixture
def kb(kb_and_briefings: tuple[KnowledgeBase, Briefing, Briefing]) -> KnowledgeBase:
    return kb_and_briefings[0]


@pytest.fixture
def b0826(kb_and_briefings: tuple[KnowledgeBase, Briefing, Briefing]) -> Briefing:
    return kb_and_briefings[1]


@pytest.fixture
def b0919(kb_and_briefings: tuple[KnowledgeBase, Briefing, Briefing]) -> Briefing:
    return kb_and_briefings[2]


def check_rows(kb: KnowledgeBase, tmp_path: Path, rows: list[dict], **options: object):  # type: ignore[no-untyped-def]
    return kb.check(str(write_jsonl(tmp_path / "incoming.jsonl", rows)), **options)  # type: ignore[arg-type]


def test_id_table_conflict_is_flagged(kb: KnowledgeBase, b0919: Briefing) -> None:
    result = kb.check(str(b0919.path))
    flags = [f for f in result.flags if f.arxiv_id == "2607.08057"]
    assert any(f.anchored_on == "9-16" for f in flags)
    assert any(f.first_seen_instance == "tom" and str(f.first_seen_date) == "2026-09-16" for f in flags)


def test_citation_is_not_a_repeat(kb: KnowledgeBase, b0826: Briefing, b0919: Briefing) -> None:
    zero_copy = kb.check(str(b0919.path)).items[1]
    assert "No Buffer" in zero_copy.title
    internet = b0826.record_id(2)  # about 2608.01526, which the zero-copy increment only cites
    assert zero_copy.verdict.value != "DUPLICATE"
    assert all(not (m.id == internet and m.same_item) for m in zero_copy.matches)
    clusters = kb.audit().clusters
    for cluster in clusters:
        members = {cluster.first_seen.id, *(m.id for m in cluster.repeats)}
        assert not {internet, b0919.record_id(2)} <= members


def test_triattention_was_seen_first_by_jay(kb: KnowledgeBase, b0919: Briefing) -> None:
    tri = kb.check(str(b0919.path), as_of=dt.date(2026, 9, 19)).items[0]
    assert "TriAttention" in tri.title
    assert tri.verdict.value in {"DUPLICATE", "UPDATE"}
    assert tri.first_seen is not None
    assert tri.first_seen.id == "jay/2026-09-17-jay-inference-e1prep#1"
    assert (tri.first_seen.instance, str(tri.first_seen.date)) == ("jay", "2026-09-17")


def test_chinese_rewrite_of_an_english_increment_is_a_duplicate(kb: KnowledgeBase, tmp_path: Path) -> None:
    item = check_rows(kb, tmp_path, [KEDA_ZH]).items[0]
    assert item.verdict.value == "DUPLICATE", item.reason
    assert item.first_seen is not None and item.first_seen.id == KEDA_EN
    assert all(claim.known for claim in item.claims)


def test_new_benchmark_numbers_make_an_update(kb: KnowledgeBase, tmp_path: Path) -> None:
    item = check_rows(kb, tmp_path, [C2KV_UPDATE]).items[0]
    assert item.verdict.value == "UPDATE", item.reason
    known, new = item.claims
    assert known.known and not new.known
    assert {"8x", "0.63", "41%"} <= set(new.new_numbers)
    assert item.first_seen is not None and item.first_seen.instance == "jay"


def test_unrelated_increment_is_new(kb: KnowledgeBase, tmp_path: Path) -> None:
    result = check_rows(kb, tmp_path, [UNRELATED])
    assert result.items[0].verdict.value == "NEW"
    assert result.exit_code == 0

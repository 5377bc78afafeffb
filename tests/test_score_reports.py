"""A score report's item is (whose score, on what) (``dedupe.scores``), in check's comparison
and in audit's clusters.

Probe 31: "X 在 Bench v1 上得分 71.2%，超过 Y" was the same item as another model's score on
that benchmark (learned p 0.65), an English score of one model on a multilingual benchmark the
same as a Chinese one of another model (p 0.998), and a model's score on a benchmark's v2 the
same as its v1 score. The fixtures here are written for these tests."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config
from support.embedded import judged

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scores import title_score
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

ENCODER = FakeEncoder()
CONFIG = fake_config()


def record(rid: str, title: str, text: str, claims: list[str] | None = None) -> Record:
    return Record(id=rid, kind=Kind.increment, date="2026-11-03", title=title, text=text, claims=claims or [])  # type: ignore[arg-type]


def told_apart(a: Record, b: Record) -> str | None:
    one, other = (Embedded(r, ENCODER.encode(r.passages())) for r in (a, b))
    return one.told_apart(other) or other.told_apart(one)


KESTREL = record(
    "ana-kestrel",
    "Kestrel-9 Max 在 QuarryBench v1 上得分 63.4%，超过 Fennec-2",
    "Kestrel-9 Max 在 QuarryBench v1 上拿到 63.4%，比 Fennec-2 的 60.1% 高 3.3 个点，为该基准最高分。",
    ["Kestrel-9 Max 在 QuarryBench v1 上得分 63.4%", "比 Fennec-2 的 60.1% 高 3.3 个点"],
)
FENNEC = record(
    "ben-fennec",
    "Fennec-2 在 QuarryBench v1 上得分 60.1%",
    "Fennec-2 在 QuarryBench v1 上拿到 60.1%，为该基准第二高分。",
    ["Fennec-2 在 QuarryBench v1 上得分 60.1%"],
)
HERON_EN = record(
    "cy-heron",
    "Heron-12B averages 58.0 on Polyglot Dunes",
    "Heron-12B averages 58.0 on Polyglot Dunes, behind Kestrel-9 Max but ahead of every open model.",
    ["Heron-12B averages 58.0 on Polyglot Dunes", "Behind Kestrel-9 Max"],
)
WREN_ZH = record(
    "di-wren",
    "Wren-Lite 2B 在 Polyglot Dunes 上得 49.5 分，小模型第一",
    "2B 参数的 Wren-Lite 在 Polyglot Dunes 上平均 49.5 分，在 7B 以下模型中排名第一。",
    ["Wren-Lite 在 Polyglot Dunes 上平均 49.5 分"],
)


def test_title_score_reads_whose_score_on_what() -> None:
    assert title_score(KESTREL.title) is not None
    assert (title_score(KESTREL.title).model, title_score(KESTREL.title).bench) == ("kestrel-9 max", "quarrybench")  # type: ignore[union-attr]
    assert title_score(HERON_EN.title).bench == "polyglot dunes"  # type: ignore[union-attr]
    assert title_score("Vireo Labs releases Kestrel-9 Max") is None  # the model's own news: no score
    assert title_score("QuarryBench v2 发布：新增 200 道题") is None


def test_two_models_scores_on_one_benchmark_are_two_items() -> None:
    for one, other in ((FENNEC, KESTREL), (KESTREL, FENNEC), (HERON_EN, WREN_ZH), (WREN_ZH, HERON_EN)):
        rule, same, reason = judged(one, other)
        assert (rule, same) == (Rule.different_names, False), reason


def test_the_rival_a_score_is_compared_with_is_not_what_the_record_is_about() -> None:
    # KESTREL names Fennec-2 only as the model it beats: still two items.
    assert "fennec-2" in (told_apart(FENNEC, KESTREL) or "")


def test_the_same_score_restated_or_updated_is_not_set_apart() -> None:
    restated = record(
        "ed-kestrel",
        "Kestrel-9 Max reaches about 63% on QuarryBench v1",
        "Kestrel-9 Max scores about 63% on QuarryBench v1, ahead of Fennec-2's 60.1%.",
    )
    rerun = record(
        "fa-kestrel",
        "Kestrel-9 Max 的 QuarryBench v1 分数复测后升至 66.0%",
        "修复评分脚本后重跑，Kestrel-9 Max 在 QuarryBench v1 上由 63.4% 升至 66.0%。",
    )
    released = record(
        "gu-kestrel", "Vireo Labs releases Kestrel-9 Max", "Vireo Labs releases Kestrel-9 Max, its largest model."
    )
    patched = record(
        "ha-fennec", "Fennec-2.1 patch lifts QuarryBench v1 to 61.5%", "The Fennec-2.1 patch moves Fennec-2 up."
    )
    for one, other in ((restated, KESTREL), (rerun, KESTREL), (released, KESTREL), (patched, FENNEC)):
        assert told_apart(one, other) is None


def test_a_model_on_two_major_versions_of_a_benchmark_is_two_items() -> None:
    v2 = record("ib-fennec", "Fennec-2 scores 44.0% on QuarryBench v2", "Fennec-2 scores 44.0%, the best so far.")
    point = record("jo-fennec", "Fennec-2 scores 60.9% on QuarryBench v1.1", "Re-scored on the repaired set.")
    relating = record(
        "ko-fennec", "Fennec-2 scores 44.0% on QuarryBench v2", "Down from 60.1% on v1: the new set is harder."
    )
    assert "versions" in (told_apart(v2, FENNEC) or "")
    assert told_apart(point, FENNEC) is None  # v1.1: the same tasks, repaired
    assert told_apart(relating, FENNEC) is None  # the record gives v1: left to the learned decision


def test_a_benchmarks_own_news_is_not_a_score_on_it_it_never_names() -> None:
    launch = record(
        "lu-dunes",
        "Polyglot Dunes — 覆盖 30 种语言的评测",
        "Polyglot Dunes 用同一套题覆盖 30 种语言，低资源语言平均低 18 分。",
    )
    listing = record(
        "mo-dunes",
        "Polyglot Dunes — a 30-language eval",
        "Heron-12B leads the first table with 58.0.",
    )
    assert "never names it" in (told_apart(WREN_ZH, launch) or "")
    assert told_apart(HERON_EN, listing) is None


def test_audit_does_not_cluster_two_models_scores(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    records = [KESTREL, FENNEC]
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: ENCODER)
    result = audit(store, "fake", CONFIG)
    for cluster in result.clusters:
        assert not {"ana-kestrel", "ben-fennec"} <= {cluster.first_seen.id, *(m.id for m in cluster.repeats)}


# Benchmark rounds whose titles open with the round, then the system submitted (probe 33).
GANNET = record(
    "na-gannet",
    "StreamBench v2 round: Halcyon Gannet G4 八卡系统提交",
    "StreamBench v2 首批结果公布，Halcyon 提交 Gannet G4 八卡系统，离线 18,200 queries/s。",
    ["离线场景 18,200 queries/s（8 × Gannet G4）", "由 Halcyon 自行提交"],
)
PLOVER = record(
    "ob-plover",
    "StreamBench v2 results: Tamber Plover 4-chip submission",
    "Tamber's first StreamBench v2 entry: 7,900 queries/s offline on four Plover chips.",
    ["7,900 queries/s offline with 4 × Plover", "Submitted in the Research category"],
)


def test_two_systems_in_one_benchmark_round_are_two_items() -> None:
    assert title_score(GANNET.title) == title_score(GANNET.title.replace("round", "成绩"))
    assert (title_score(PLOVER.title).model, title_score(PLOVER.title).bench) == ("tamber plover", "streambench")  # type: ignore[union-attr]
    assert "different models" in (told_apart(GANNET, PLOVER) or "")


def test_a_relation_naming_the_other_system_is_context_not_the_subject() -> None:
    # The writer's note on where the item sits names the round's earlier entry: not what it reports.
    related = PLOVER.model_copy(update={"relation": "同回合 Halcyon Gannet G4 已于前日锚入"})
    assert "different models" in (told_apart(GANNET, related) or "")


def test_the_same_systems_resubmission_in_a_round_is_not_set_apart() -> None:
    resubmitted = record(
        "pc-gannet",
        "StreamBench v2: Halcyon resubmits Gannet result at 19,400 queries/s",
        "After a firmware update Halcyon's Gannet G4 system moves from 18,200 to 19,400 queries/s.",
    )
    assert told_apart(resubmitted, GANNET) is None


def test_a_price_a_size_or_a_count_is_not_a_score() -> None:
    assert title_score("Cirrus Cloud launches gx-4 instances on Halcyon Gannet") is None  # a name's digit
    assert title_score("Cirrus Cloud offers Gannet G4 on StreamBench nodes at $3.10/hour") is None
    assert title_score("Cirrus Cloud cuts prices 18% on Gannet instances") is None
    assert title_score("StreamBench v2: Halcyon Gannet G4 ships with 192 GB at 5 TB/s") is None
    assert title_score("StreamBench v2: Halcyon Gannet G4 posts 18,200 queries/s") is not None

"""News of different companies, and different releases of one product, are different items
(``dedupe.subjects``), in check's comparison and in audit's clusters.

Probe 6: "Cohere raises $600M Series E" was the same item as "Mistral raises €1.7B Series D",
and "Groq raises $900M" joined Mistral's cluster in audit: a company's name is a plain
capitalised word, which the named-systems rule never read, and two funding rounds read alike.
"vLLM 0.31.1 patch release" was the same item as the 0.31.0 release notes, and its "22% over
0.30" reported 0.30 as a new figure."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config
from support.embedded import judged

from fake_encoder import FakeEncoder
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.subjects import releases, releases_differ, title_subject
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store
from kbsearch.text.textsim import substantive_numbers

ENCODER = FakeEncoder()
CONFIG = fake_config()
ROUND = "The round was led by a chip maker; the company plans to hire engineers in Europe."


def record(rid: str, title: str, text: str, claims: list[str] | None = None, day: str = "2026-10-07") -> Record:
    return Record(id=rid, kind=Kind.increment, date=day, title=title, text=text, claims=claims or [])  # type: ignore[arg-type]


def embedded(rec: Record) -> Embedded:
    return Embedded(rec, ENCODER.encode(rec.passages()))


MISTRAL = record("stephen-mistral", "Mistral raises €1.7B Series D", ROUND, ["Valuation €14 billion"])
GROQ = record("stephen-groq", "Groq raises $900M at a $9B valuation", ROUND, ["Valuation $9 billion"])
COHERE = record("stephen-cohere", "Cohere raises $600M Series E", ROUND, ["Valuation $7 billion"])


def test_funding_rounds_of_different_companies_are_different_items() -> None:
    for other in (GROQ, COHERE):
        rule, same, reason = judged(other, MISTRAL)
        assert (rule, same) == (Rule.different_names, False), reason
        assert "mistral" in reason


def test_the_same_round_told_in_chinese_stays_for_the_learned_decision() -> None:
    chinese = record("jay-mistral", "Mistral 完成 17 亿欧元 D 轮融资", "本轮由芯片厂商领投，估值 140 亿欧元。")
    correction = record("spark-mistral", "Mistral Series D 更正：扩募后总额 €2.0B", "更正：总额 20 亿欧元。")
    for other in (chinese, correction):
        assert judged(other, MISTRAL)[0] is not Rule.different_names


def test_a_retelling_from_the_other_side_names_the_other_subject() -> None:
    """Relay's news of the deal mentions Databricks: not set apart by its subject."""
    buyer = record("jay-deal", "Databricks 以 13 亿美元收购 Agent 可观测性初创 Relay", "Relay 团队 45 人加入。")
    seller = record("tom-deal", "Relay joins Databricks in a $1.3B deal", "The 45 staff move over.")
    assert judged(seller, buyer)[0] is not Rule.different_names


def test_titles_sharing_a_coined_name_are_not_set_apart_by_their_subjects() -> None:
    a = record("a", "Anthropic ships KVRoute for its API", ROUND)
    b = record("b", "Fireworks adopts KVRoute in production", ROUND)
    assert judged(b, a)[0] is not Rule.different_names


def test_paper_titles_have_no_news_subject() -> None:
    for title in ("Scaling laws for sparse experts", "ReaMOT: A Benchmark for Tracking", "The cache grows"):
        assert title_subject(title) is None, title
    assert title_subject("Perplexity acquires browser startup Arc") == "perplexity"
    assert title_subject("Databricks 以 13 亿美元收购 Relay") == "databricks"


def test_explain_names_the_rule_that_set_two_companies_apart() -> None:
    findings = rule_findings(embedded(GROQ), embedded(MISTRAL), CONFIG, lambda name: 50)
    named = next(f for f in findings if f.rule == "named systems")
    assert named.says is False and "groq / mistral" in named.detail


PATCH = record(
    "stephen-patch",
    "vLLM 0.31.1 patch release fixes chunked prefill v2 regression",
    "Fixes a throughput regression in chunked prefill v2 for long prompts.",
    ["Throughput gain on an 8B model revised to 22% over 0.30"],
)
RELEASE = record(
    "tom-release",
    "vLLM v0.31.0 发布，默认启用 chunked prefill v2",
    "v0.31.0 默认启用 chunked prefill v2，吞吐提升 18%。",
    day="2026-10-05",
)


def test_a_patch_release_is_another_item_than_the_release_it_patches() -> None:
    rule, same, reason = judged(PATCH, RELEASE)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "vllm (0.31.1 / 0.31.0)" in reason


def test_a_later_record_of_the_same_release_is_not_set_apart() -> None:
    again = record("spark-release", "vLLM 0.31.0 turns on chunked prefill v2 by default", "Throughput is 18% higher.")
    assert judged(again, RELEASE)[0] is not Rule.different_names
    assert releases_differ(releases("vLLM v0.31.0 发布"), releases("vLLM 0.31 ships")) is None


def test_a_score_after_a_name_is_no_release() -> None:
    assert releases("Accuracy 0.93 on MMLU, AUC 0.81") == frozenset()


def test_the_release_a_gain_is_measured_over_is_no_figure() -> None:
    assert substantive_numbers("Throughput gain revised to 22% over 0.30") == {"22%"}
    assert "0.3" in substantive_numbers("F1 up 5% over 0.30 F1")


def test_audit_clusters_neither_other_companies_nor_other_releases(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    records = [MISTRAL, GROQ, RELEASE, PATCH]
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: ENCODER)
    result = audit(store, "fake", CONFIG)
    for cluster in result.clusters:
        ids = {cluster.first_seen.id, *(m.id for m in cluster.repeats)}
        assert not {"stephen-mistral", "stephen-groq"} <= ids
        assert not {"tom-release", "stephen-patch"} <= ids


ZH_RELEASE = record(
    "ava-lumen",
    "LumenServe 开源推理引擎发布 0.6 版",
    "LumenServe 0.6 新增前缀缓存；相比 0.5 版延迟降低 20%",
    ["LumenServe 0.6 新增前缀缓存", "相比 0.5 版延迟降低 20%"],
)


def test_a_version_before_ban_is_the_release_of_the_name_before_it() -> None:
    """Chinese puts the version after the verb ("发布 0.6 版"), away from the name (probe 12)."""
    assert releases(ZH_RELEASE.title) == {("lumenserve", "0.6")}
    assert releases("LumenServe 发布 v0.6 版本") == releases("LumenServe发布0.6版") == {("lumenserve", "0.6")}
    assert releases("相比 0.5 版延迟降低") == frozenset()  # no name: no product's release
    assert releases("vLLM 支持 DeepSeek-V5，发布 0.5 版") == frozenset()  # the name is in another clause
    assert ("v0.5", "0.6") not in releases("LumenServe v0.5 和 v0.6 版本")  # a version is no product


def test_a_release_in_chinese_is_told_apart_from_the_next_and_kept_with_itself() -> None:
    later = record("bo-lumen", "LumenServe 0.7 发布", "LumenServe 0.7 新增前缀缓存，延迟降低 20%")
    rule, same, reason = judged(later, ZH_RELEASE)
    assert (rule, same) == (Rule.different_names, False) and "lumenserve (0.7 / 0.6)" in reason
    english = record("jay-lumen", "LumenServe 0.6 adds prefix caching", "LumenServe 0.6 caches prefixes")
    assert judged(english, ZH_RELEASE)[0] is not Rule.different_names

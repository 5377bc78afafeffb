"""Two titles led by different coined names are two items (``dedupe.title_leads``), even when
both records report the same benchmark; a retelling, a rename and a record naming the other's
lead as its own stay joinable.

Probe 43: another lab's embedding model was taken for the first (learned 1.00): both titles led
with a hyphenated name of plain words, which the named-systems rule does not read as a name, and
both records named the benchmark they were scored on. The fixtures are written here."""

from __future__ import annotations

from support.embedded import judged, judged_rare, titled

from kbsearch.dedupe.mention_roles import unroled
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.title_leads import leads_differ, title_lead

FIRST = titled(
    "ana/2026-12-01#2",
    "Marlow-Embed-S — Brightfold AI 开放的多语言文本嵌入模型",
    "Brightfold 放出开源权重的嵌入模型 Marlow-Embed-S，在 RetroBench-Lite 上平均分 71.3；"
    "输出 768 维向量，最长输入 4096 token，以 MIT 许可发布。",
    "2026-12-01",
)
OTHER = titled(
    "bo/2026-12-02#4",
    "Tessel-Embed — an open multilingual embedding model that leads RetroBench-Lite",
    "Tessel-Embed outputs 768-dimensional vectors with a 4096-token context and averages 72.0 on "
    "RetroBench-Lite. It encodes 1.5x faster than Marlow-Embed-S on one GPU and ships under MIT.",
    "2026-12-02",
)
OTHER_ZH = titled(
    "ana/2026-12-03#1",
    "Tessel-Embed — Quarrystone Labs 的开源嵌入模型",
    "Quarrystone 开源的嵌入模型，RetroBench-Lite 平均 72.0，超过 Marlow-Embed-S；同一张 GPU 上编码速度比 "
    "Marlow-Embed-S 提升 50%。",
    "2026-12-03",
)


def pair(a: str, a_text: str, b: str, b_text: str) -> str | None:
    return leads_differ((a, unroled(f"{a}\n{a_text}"), None), (b, unroled(f"{b}\n{b_text}"), None))


def test_another_labs_model_on_the_same_benchmark_is_another_item() -> None:
    for a, b in ((OTHER, FIRST), (FIRST, OTHER), (OTHER_ZH, FIRST), (FIRST, OTHER_ZH)):
        for judge in (judged, judged_rare):
            rule, same, reason = judge(a, b)
            assert (rule, same) == (Rule.different_names, False), (a.id, b.id, reason)
            assert "lead with different names" in reason, reason


def test_a_retelling_a_rename_and_an_own_mention_stay_joinable() -> None:
    # The other-language retelling leads with the same name.
    assert pair(OTHER.title, OTHER.text, OTHER_ZH.title, OTHER_ZH.text) is None
    # A rename gives the old name; a record naming the other's model outside a role is about it too.
    renamed = "Tessel-Embed-2 — the model formerly Marlow-Embed-S, now under a new lab"
    assert pair(renamed, "", FIRST.title, FIRST.text) is None
    assert pair(OTHER.title, "Tessel-Embed ships Marlow-Embed-S weights merged in.", FIRST.title, FIRST.text) is None
    # A retelling run together or written apart still names the lead.
    assert pair("TesselEmbed: 开源嵌入模型", "", OTHER.title, OTHER.text) is None
    assert pair("Tessel Embed 发布", "", OTHER.title, OTHER.text) is None


def test_what_a_title_leads_with() -> None:
    assert title_lead(OTHER.title) == "tessel-embed"
    assert title_lead(FIRST.title) == "marlow-embed-s"
    assert title_lead("BitFold: binary codes for dense retrieval") == "bitfold"
    assert title_lead("Tessel-Embed v2 — longer context") == "tessel-embed"
    assert title_lead("Tessel-Embed tops a leaderboard") == "tessel-embed"
    # A plain word, an ordinary compound, a describing one or a lead of several words is no name.
    for title in (
        "Update: Tessel-Embed re-scored",
        "Spindle — compressing passages",
        "Long-Context — a study",
        "LLM-Based — reranking",
        "The Tessel-Embed card",
        "Velox 4.0 发布",
    ):
        assert title_lead(title) is None, title

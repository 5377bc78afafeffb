"""A model's variant (Mini, Flash, a size written apart, 轻量版) is a release of its own
(``dedupe.variants``): titles naming one model by different variants are two items unless one
record names the other's variant; a family launch naming both, a record giving the other's
variant and a retelling keeping it stay joinable.

Probe 41: a maker's small model's system card was taken for its flagship's (learned 1.00),
both reporting a jailbreak rate on one benchmark. The fixtures are written here."""

from __future__ import annotations

from support.embedded import CONFIG, embedded, judged, titled

from kbsearch.dedupe.findings import rule_findings
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.variants import title_variants, variants_differ

FLAGSHIP = titled(
    "ana/2026-11-02#1",
    "Quillon Labs 发布 Tarsier-4 系统卡",
    "Quillon Labs 随 Tarsier-4 公布系统卡。在 BreakBench 越狱基准上攻击成功率为 5.2%；生物风险评估按 T2 发布。",
    "2026-11-02",
)
SMALL = titled(
    "bo/2026-11-04#3",
    "Quillon Labs ships Tarsier-4 Mini with its own system card",
    "Tarsier-4 Mini is jailbroken on 8.1% of BreakBench prompts. Bio-risk evaluations were skipped below the T2 line.",
    "2026-11-04",
)


def lowered(title: str, text: str = "") -> tuple[str, str]:
    return title, f"{title} {text}".lower()


def test_a_small_variants_system_card_is_not_the_flagships() -> None:
    rule, same, reason = judged(SMALL, FLAGSHIP)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "different variants of Tarsier-4 (mini / bare)" in reason
    rule, same, reason = judged(FLAGSHIP, SMALL)  # either way round
    assert (rule, same) == (Rule.different_names, False), reason


def test_a_family_launch_a_record_naming_the_variant_and_a_retelling_stay_joinable() -> None:
    small = lowered(SMALL.title, SMALL.text)
    family = lowered("Quillon Labs launches Tarsier-4 and Tarsier-4 Mini")
    assert variants_differ(small, family) is None
    body = lowered("Tarsier-4 system card", "A smaller Tarsier-4 Mini follows next week.")
    assert variants_differ(small, body) is None
    assert variants_differ(small, lowered("Quillon Labs 发布 Tarsier-4 Mini 系统卡")) is None
    sibling = lowered("Tarsier-4 Mini card", "Its big sibling Tarsier-4 shipped in May.")
    assert variants_differ(lowered("Tarsier-4 系统卡"), sibling) is None


def test_real_shapes_sizes_written_apart_mini_and_instruct() -> None:
    # A launch of two sizes shares its 70B with a later 70B benchmark: joinable.
    assert variants_differ(lowered("Meta releases Llama 3 8B and 70B"), lowered("Llama 3 70B on a new eval")) is None
    assert variants_differ(lowered("Llama 3 8B quantised"), lowered("Llama 3 70B on a new eval")) is not None
    # GPT-4o mini is another release from GPT-4o.
    assert variants_differ(lowered("OpenAI ships GPT-4o mini"), lowered("GPT-4o system card")) is not None
    # Instruct is the same release's tuned checkpoint, not a variant.
    assert title_variants("Qwen2.5-7B-Instruct tops a leaderboard") == title_variants("Qwen2.5-7B released")
    assert variants_differ(lowered("Qwen2.5-7B-Instruct tops a board"), lowered("Qwen2.5-7B released")) is None


def test_chinese_variant_words_and_plain_words() -> None:
    lite = lowered("Tarsier-4 轻量版发布")
    assert variants_differ(lite, lowered("Tarsier-4 Mini launch")) is None  # 轻量版 may be its Mini
    assert variants_differ(lite, lowered("Tarsier-4 系统卡")) is not None
    assert title_variants("Tarsier-4 大模型上线") == {"tarsier4": frozenset({""})}  # 大模型: the field's word
    assert title_variants("Tarsier-4 plus a new filter") == {"tarsier4": frozenset({""})}
    # A lower-case "plus" in a text may be a plain word: a bare mention too.
    card = lowered("Tarsier-4 system card", "tarsier-4 plus a filter")
    assert variants_differ(lowered("Tarsier-4 Pro launch"), card) is None


def test_explain_cites_what_both_titles_name_not_a_benchmark_both_texts_name() -> None:
    a = embedded("cy/2026-11-05#2", "Quillon Labs re-runs the Tarsier-4 jailbreak eval", SMALL.text)
    b = embedded("ana/2026-11-03#4", "Quillon Labs 公布 Tarsier-4 越狱复测", FLAGSHIP.text)
    names = next(f for f in rule_findings(a, b, CONFIG, lambda name: 1) if f.rule == "named systems")
    assert names.says is None
    assert names.detail.startswith("both titles name Tarsier-4"), names.detail
    assert "BreakBench" not in names.detail


def test_a_size_written_in_one_title_only_is_the_bare_titles_model() -> None:
    """Probe 46: a lab's red-team report "for Halcyon-3 70B" and its correction titled with the
    bare model were set apart as "different variants (bare / 70b)"; the lab released one size."""
    report = lowered("Marlow Labs safety report for Tessel-5 70B", "Refusal rate 91%; up from Tessel-4.")
    fixed = lowered("Marlow Labs corrects the Tessel-5 refusal figure", "Refusal rate corrected to 89%.")
    assert variants_differ(report, fixed) is None
    assert variants_differ(fixed, report) is None
    assert variants_differ(lowered("Tessel-5 70B 安全报告"), lowered("Tessel-5 拒答率更正")) is None
    # The bare record naming another size tells its own: two items.
    small = lowered("Marlow Labs corrects the Tessel-5 figure", "The 70B figure stands; Tessel-5 8B drops to 80%.")
    assert variants_differ(report, small) is not None
    # Two sizes in the titles stay two, and a variant word beside the bare model stays another release.
    assert variants_differ(report, lowered("Tessel-5 8B safety report")) is not None
    assert variants_differ(lowered("Tessel-5 Mini safety report"), fixed) is not None

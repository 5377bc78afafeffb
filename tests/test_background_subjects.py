"""A product's record that recalls a regulation in a background key point ("背景：…", "Background:
…") is not the regulation's item: the title rules look for the other record's names past such a
point (``record_text._unroled``, ``background.blanked``), as they look past a name in a role, and a
memory a product carries (HBM) is no name a title gives (``model_codes._names``).

Probe 49: a domestic inference card built to stay under a new export rule on HBM, its key points
recalling the rule ("背景：BIS … 纳入 3A090.c"), its title and another point speaking of the rule's
threshold, was an UPDATE of the rule's records (1.00), and its English retelling joined them too.
The fixtures are written here, in both languages."""

from __future__ import annotations

from support.embedded import judged

from kbsearch.dedupe.background import blanked
from kbsearch.dedupe.results import Rule
from kbsearch.records import Kind, Record


def record(rid: str, title: str, lead: str, points: list[str], date: str = "2026-11-06") -> Record:
    """An increment whose text is its lead sentence and its key points, as a briefing's parses."""
    text = "\n".join([lead, *points]) if lead else "\n".join(points)
    return Record(id=rid, kind=Kind.increment, date=date, title=title, text=text, claims=points)  # type: ignore[arg-type]


RULE_ZH = record(
    "ines-4",
    "OTRA 暂行规则：单堆栈带宽超过 1.5 TB/s 的 HBM 纳入 4B120",
    "",
    ["范围：单堆栈带宽超过 1.5 TB/s 的 HBM 纳入 4B120 管制", "生效：2027 年 2 月 1 日", "意见征集：30 天"],
    "2026-11-05",
)
RULE_EN = record(
    "ola-4",
    "OTRA interim rule adds HBM stacks above 1.5 TB/s to control entry 4B120",
    "",
    ["Scope: HBM stacks above 1.5 TB/s per stack join entry 4B120", "Effective: 2027-02-01", "Comments: 30 days"],
    "2026-11-04",
)
CARD_ZH = record(
    "ines-5",
    "Lindqvist LQ-7 加速卡：选 HBM3 留在新规门槛以下",
    "国产加速卡 LQ-7 发布，4 颗 HBM3 共 96GB；厂商说选 HBM3 是为了不受新的 HBM 出口规则影响。",
    [
        "内存：4 颗 HBM3，共 96GB",
        "价格：单卡约 6.5 万元",
        "背景：OTRA 11 月 4 日的暂行规则把单堆栈带宽超过 1.5 TB/s 的 HBM 纳入 4B120 管制",
        "设计取舍：每颗堆栈带宽停在 0.8 TB/s，低于新门槛",
    ],
)
CARD_EN = record(
    "ola-5",
    "LQ-7 accelerator card stays on HBM3 to stay under the new HBM rule",
    "",
    [
        "Memory: four HBM3 stacks, 96 GB in total",
        "Price: about 65,000 yuan per card",
        "Background: the OTRA interim rule of November 4 adds HBM stacks above 1.5 TB/s to entry 4B120",
        "Design choice: each stack stays at 0.8 TB/s, below the new threshold",
    ],
)


def test_a_product_recalling_a_regulation_as_background_is_not_the_regulation() -> None:
    for card in (CARD_ZH, CARD_EN):
        for regulation in (RULE_ZH, RULE_EN):
            rule, same, reason = judged(card, regulation)
            assert (rule, same) == (Rule.different_names, False), (card.id, regulation.id, reason)
            assert "lq7 / " in reason and "otra" in reason


def test_the_regulations_correction_is_not_the_product_either() -> None:
    correction = record(
        "ola-6",
        "OTRA corrects the HBM rule: effective date moved to 2027-04-01",
        "",
        ["Effective date: moved to 2027-04-01 (was 2027-02-01)", "Threshold: unchanged, 1.5 TB/s per stack"],
        "2026-11-08",
    )
    rule, same, reason = judged(correction, CARD_EN)
    assert (rule, same) == (Rule.different_names, False), reason


def test_the_products_retelling_and_a_product_naming_the_regulator_as_its_own_stay_joinable() -> None:
    rule, _, reason = judged(CARD_EN, CARD_ZH)
    assert rule is not Rule.different_names, reason
    # Said in a point of its own, not as background, the regulator is the record's to weigh.
    own = ["Memory: four HBM3 stacks", "Why: OTRA's rule of November 4 covers stacks above 1.5 TB/s"]
    told = record("ola-7", CARD_EN.title, "", own)
    rule, _, reason = judged(told, RULE_EN)
    assert rule is not Rule.different_names, reason


def test_blanking_a_background_point_keeps_every_offset() -> None:
    text = "LQ-7 发布\n背景：OTRA 的规则\n价格：6.5 万元"
    out = blanked(text, frozenset({"背景：OTRA 的规则"}))
    assert len(out) == len(text) and "OTRA" not in out and out.endswith("价格：6.5 万元")

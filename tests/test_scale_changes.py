"""A level on an ordered scale or a cadence a claim says its quantity changed to is news when no
record of the item states it (probe 35: a risk self-assessment raised from "中" to "高", and an
external audit moved from once a year to every six months, were known from the records that
gave the old level and cadence). The texts here are this file's own."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, record, said

from kbsearch.dedupe.agreeing import stage_moved
from kbsearch.text.scale_changes import cadences, scale_changed

CARD = "Brisa-3 模型卡：内部评估将化学风险评级为“低”，自主性评级为“中”\n可信度：高（官方模型卡）"
CARD_EN = "Brisa-3 model card rates chemical risk as low and autonomy as medium\n可信度：高（model card）"
PENTEST = "Penetration tests of the payment gateway are run by an outside firm every quarter"
PENTEST_ZH = "支付网关的渗透测试每年一次，由外部公司执行"


@pytest.mark.parametrize(
    ("claim", "passage", "move"),
    [
        ("化学风险评级由“低”上调为“中”", CARD, "“低” → “中”"),
        ("The chemical risk rating was raised from low to medium", CARD_EN, "low → medium"),
        ("Chemical risk rating raised from low to medium", CARD, "low → medium"),  # the other language
        (
            "The gateway's penetration tests move from every quarter to every month",
            PENTEST,
            "every quarter → every month",
        ),
        ("渗透测试频率由每年一次改为每半年一次", PENTEST_ZH, "每年一次 → 每半年一次"),
        ("Pen tests of the gateway change from quarterly to weekly", PENTEST, "quarterly → weekly"),
    ],
)
def test_a_level_or_cadence_the_records_do_not_state_is_news(claim: str, passage: str, move: str) -> None:
    assert scale_changed(claim, passage, [passage]) == move
    assert stage_moved(claim, passage, [passage]) == move  # what the claim decisions read


@pytest.mark.parametrize(
    ("claim", "records"),
    [
        ("化学风险评级由“低”上调为“中”", [CARD, "Brisa-3 的化学风险评级已上调为“中”"]),  # a record tells it
        ("化学风险评级由“低”上调为“中”", [CARD, "Brisa-3 chemical risk is now rated medium"]),  # in English
        ("The chemical risk rating was raised from low to medium", [CARD_EN, "Chemical risk: medium since v1.1"]),
        ("Pen tests of the gateway move from once a year to twice a year", [PENTEST_ZH, "渗透测试改为每半年一次"]),
        ("Resolution scaled from low to high detail", [CARD_EN]),  # no level: more than a level word
        ("Throughput went from 40 to 60 requests per day", [PENTEST]),  # figures: ``quantities`` reads them
        ("Audits stay quarterly", [PENTEST]),  # no change told
    ],
)
def test_no_news_when_a_record_states_the_new_level_or_cadence_or_none_changed(claim: str, records: list[str]) -> None:
    assert scale_changed(claim, records[0], records) is None


def test_the_records_credibility_line_states_no_level_of_its_item() -> None:
    """The parser adds "可信度：高" to a briefing's text: the source's credibility, not the risk."""
    assert scale_changed("化学风险评级由“低”上调为“高”", CARD, [CARD]) == "“低” → “高”"


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("every six months", 180.0),
        ("twice a year", 180.0),
        ("每半年", 180.0),
        ("一年两次", 180.0),
        ("每年两次", 180.0),
        ("每季度一次", 90.0),
        ("every three months", 90.0),
        ("annually", 360.0),
        ("每 2 周", 14.0),
    ],
)
def test_a_cadence_is_read_as_its_period_in_any_wording(text: str, days: float) -> None:
    assert cadences(text) == {days}


def test_monthly_active_users_is_no_cadence() -> None:
    assert cadences("12M monthly active users") == set()


def test_the_claim_decision_calls_a_raised_level_new_until_a_record_states_it() -> None:
    claim = "Brisa-3 model card: chemical risk rating raised from low to medium"
    first = record("lin", "Brisa-3 model card", "Brisa-3 model card rates chemical risk low")
    alone = said(claim, first, same={"lin"}, shape=ALWAYS)
    assert not alone.known and alone.moved_on == "low → medium"  # type: ignore[attr-defined]
    later = record("mo", "Brisa-3 model card v1.1", "Brisa-3 model card v1.1: chemical risk now rated medium")
    assert said(claim, first, later, same={"lin", "mo"}, shape=ALWAYS).known  # type: ignore[attr-defined]

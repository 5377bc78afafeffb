"""A fact the records tell as not out yet, then given by a claim, is the later step of that very
fact (probes 37, 39: "root cause not yet published" then the cause; "volume shipping not yet
announced" then shipping in volume); and a fix after "no patched release yet" is a fix of an open
issue (probe 40). The texts here are this file's own."""

from __future__ import annotations

import pytest
from test_claim_said import ALWAYS, ENCODER, record, said

from kbsearch.dedupe.agreeing import stage_moved
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record
from kbsearch.text.fixes import FIXED, fix_moved
from kbsearch.text.pending import now_given

OUTAGE = "Harbin Cloud's object store failed writes for 3 hours on Nov 2. Cause not yet disclosed"
CHIP = "Available as engineering samples; mass production not yet announced"
DEAL = "Pellucid 收购 Ostrander Data，交易金额未披露"
PRICE = "The hosted tier opens in March; pricing to be announced"


@pytest.mark.parametrize(
    ("claim", "passage", "move"),
    [
        ("故障根因：一次证书轮换漏掉了两台网关，写入全部失败", OUTAGE, "cause"),
        ("The outage was caused by an expired certificate on two gateways", OUTAGE, "cause"),
        ("The chip is now in mass production at two fabs", CHIP, "volume shipping"),
        ("该芯片已进入量产，首批交付两家云厂商", CHIP, "volume shipping"),
        ("The deal values Ostrander Data at $300M; deal terms include a retention pool", DEAL, "amount"),
        ("托管版定价为每百万 token 0.8 美元", PRICE, "price"),
    ],
)
def test_a_fact_the_records_hold_back_given_by_the_claim_is_news(claim: str, passage: str, move: str) -> None:
    found = now_given(claim, passage, [passage])
    assert found == f"{move} not yet → given"
    assert stage_moved(claim, passage, [passage]) == found  # what the claim decisions read


@pytest.mark.parametrize(
    ("claim", "records"),
    [
        ("Root cause still not disclosed", [OUTAGE]),  # not given yet in the claim either
        ("根因尚未公布，官方称正在排查", [OUTAGE]),
        ("Mass production is expected in Q2", [CHIP]),
        ("The root cause was an expired certificate", [OUTAGE, "Root cause: an expired gateway certificate"]),  # told
        ("The outage was caused by an expired certificate", ["Writes failed for 3 hours"]),  # nothing held back
        ("Pricing: $0.8 per million tokens", [OUTAGE]),  # another fact held back
        ("按需价格降至每小时 2.5 美元", ["该卡按需价格尚未稳定"]),  # the price moves: nothing held back
    ],
)
def test_no_news_when_the_claim_holds_it_back_too_a_record_gives_it_or_none_held_it(
    claim: str, records: list[str]
) -> None:
    assert now_given(claim, records[0], records) is None


def test_the_claim_decision_calls_the_given_cause_new_until_a_record_gives_it() -> None:
    claim = "Root cause: an expired certificate on two gateways stopped all writes"
    first = record("lin", "Harbin Cloud object store outage", OUTAGE)
    alone = said(claim, first, same={"lin"}, shape=ALWAYS)
    assert not alone.known and alone.moved_on == "cause not yet → given"  # type: ignore[attr-defined]
    later = record("mo", "Harbin Cloud outage postmortem", "根因：两台网关的证书过期")
    both = said(claim, first, later, same={"lin", "mo"}, shape=ALWAYS)
    assert both.known  # type: ignore[attr-defined]


ADVISORY = "No patched release yet; the workaround is to disable remote plugins"
ADVISORY_ZH = "CVE-2031-12345：插件加载器存在越权漏洞，暂无补丁，可关闭远程插件规避"


@pytest.mark.parametrize(
    "passage", [ADVISORY, ADVISORY_ZH, "CVE-2031-12345: the plugin loader lets a page read local files"]
)
def test_a_fix_after_no_patch_yet_or_an_advisory_is_a_fix_of_an_open_issue(passage: str) -> None:
    for claim in ("4.1.2 fixes the plugin loader flaw; the workaround is no longer needed", "4.1.2 已修复该漏洞"):
        assert fix_moved(claim, passage) == FIXED


@pytest.mark.parametrize(
    "passage",
    ["The plugin loader flaw is patched in 4.1.2", "已发布 4.1.2 补丁修复该漏洞"],
)
def test_an_advisory_that_tells_the_fix_already_is_restated(passage: str) -> None:
    assert fix_moved("4.1.2 已修复该漏洞", passage) is None


def _cautioned(rid: str, title: str, caveat: str, *claims: str) -> Embedded:
    """A record whose caveat (警示) holds a fact back, beside key points that do not."""
    rec = Record(id=rid, kind=Kind.increment, title=title, text="", claims=list(claims), caveats=[caveat])
    return Embedded(rec, ENCODER.encode(rec.passages()))


@pytest.mark.parametrize("caveat", ["Cause still under investigation, says the operator", "故障根因尚未公布"])
def test_a_fact_held_back_in_the_caveats_given_by_the_claim_is_news_in_both_decisions(caveat: str) -> None:
    """Probe 37: "警示：Root cause not yet published", then another writer's cause, was known:
    the held-back reader read the text and key points, never the caveats."""
    from test_dedupe_rules import CONFIG

    from kbsearch.dedupe.claims import judge_claim

    first = _cautioned("lin", "Harbin Cloud object store outage", caveat, "Writes failed for 3 hours on Nov 2")
    claim = "Root cause: an expired certificate on two gateways stopped all writes"
    alone = said(claim, first, same={"lin"}, shape=ALWAYS)
    assert not alone.known and alone.moved_on == "cause not yet → given"  # type: ignore[attr-defined]
    by_cosine = judge_claim(claim, ENCODER.encode([claim])[0], [], [first], CONFIG, restatement=True)
    assert not by_cosine.known and by_cosine.moved_on == "cause not yet → given"


def test_a_caveat_that_holds_back_nothing_leaves_a_restated_cause_known() -> None:
    first = _cautioned(
        "lin", "Harbin Cloud outage", "Figures are the operator's own", "Root cause: an expired gateway certificate"
    )
    claim = "Root cause: an expired certificate on two gateways stopped all writes"
    assert said(claim, first, same={"lin"}, shape=ALWAYS).known  # type: ignore[attr-defined]

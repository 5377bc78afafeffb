"""News of one company about different events are different items (``subjects.events_differ``),
and a move along a deal's track is news (``deals``).

Probe 30: "Beacon 发布首款产品 Beacon Agent" was taken for Beacon's B round, "Cascade launches the
C3 inference chip" for Northwind's acquisition of Cascade, and "Northwind 与 Halcyon 签署…租赁协议"
for Halcyon's data centre opening. A regulator's review of a deal is a later stage of that deal,
one item; and "The European Commission opened an in-depth review" was known from "Northwind
completed its acquisition"."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import judged_rare as judged
from support.embedded import titled

from fake_encoder import FakeEncoder
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.subjects import event_kinds, events_differ, title_subject
from kbsearch.records import Record
from kbsearch.text.stages import moved_on, told

ENCODER = FakeEncoder()
CONFIG = fake_config()
TEXT = "Beacon, the agent startup, was founded in 2024; its B round of $200M was led by Qiming."


def record(rid: str, title: str, text: str = TEXT) -> Record:
    return titled(rid, title, text, "2026-12-04")


def apart(a: str, b: str) -> str | None:
    return events_differ((title_subject(a), a), (title_subject(b), b))


def test_a_product_launch_is_not_the_same_companys_funding_round() -> None:
    launch = record("mira-5", "Beacon 发布首款产品 Beacon Agent")
    rule, same, reason = judged(launch, record("mira-3", "Beacon 完成 2 亿美元 B 轮融资"))
    assert (rule, same) == (Rule.different_names, False), reason
    assert "different events of beacon (launch / funding)" in reason


def test_kinds_of_event_a_title_reports() -> None:
    assert event_kinds("Beacon raises a $200M Series B") == {"funding"}
    assert event_kinds("Northwind 完成对 Cascade 的收购") == {"acquisition"}
    assert event_kinds("Cascade C2 推理芯片开始量产") == {"production"}
    assert event_kinds("Northwind 与 Halcyon 签署 10 亿美元 GPU 租赁协议") == {"deal"}
    assert event_kinds("EU opens in-depth review of Northwind's Cascade deal") == {"regulation", "acquisition", "deal"}
    assert event_kinds("Orbit-3 benchmark scores published") == set()


def test_one_companys_launch_acquisition_production_and_lease_are_apart() -> None:
    c3 = "Cascade launches the C3 inference chip under Northwind"
    assert apart(c3, "Northwind completes its $1.2B acquisition of Cascade")
    assert apart(c3, "Cascade C2 推理芯片开始量产")
    lease = "Northwind 与 Halcyon 签署 10 亿美元 GPU 租赁协议"
    assert apart(lease, "Halcyon opens a 200 MW data centre in Johor with 20,000 GPUs")


def test_a_regulators_review_of_a_deal_a_products_price_and_a_sites_tenant_stay_together() -> None:
    review = "EU opens in-depth review of Northwind's Cascade deal"
    assert apart(review, "Northwind completes its $1.2B acquisition of Cascade") is None
    assert apart("欧盟委员会对 Northwind 收购 Cascade 启动深入审查", "Northwind agrees to acquire Cascade") is None
    assert apart("Orbit cuts Orbit-3 API prices", "Orbit releases Orbit-3, a 1M-context frontier model") is None
    tenant = "Halcyon Johor: Lumen signs as anchor tenant, phase 2 planned"
    assert apart(tenant, "Halcyon opens a 200 MW data centre in Johor with 20,000 GPUs") is None
    # Other companies, or one event in two languages, are for the other rules.
    assert apart("Beacon raises a $200M Series B", "Beacon 完成 2 亿美元 B 轮融资") is None
    assert apart("Beacon raises a $200M Series B", "Lumen cuts Lumen-Flash input price by 40%") is None


CLOSED = "Northwind completed its $1.2B acquisition of Cascade on 2 December"


def test_a_regulators_review_after_the_close_is_a_move_on_the_deals_track() -> None:
    claim = "The European Commission opened an in-depth (phase 2) review of Northwind's acquisition of Cascade"
    assert moved_on(claim, CLOSED) == "closed → review"
    assert not told(claim, CLOSED)
    divest = "The $1.2B deal had already closed on 2 December; Northwind may have to divest the C2 line"
    assert moved_on(divest, CLOSED) == "closed → possibly decided"
    assert moved_on("Northwind 完成对 Cascade 的收购", "Northwind agrees to acquire Cascade for $1.2B") == (
        "announced → closed"
    )
    # The same stage again, or an earlier one, is no news.
    assert moved_on("欧盟委员会对 Northwind 收购 Cascade 启动深入审查", claim) is None
    assert moved_on(CLOSED, claim) is None


def test_a_deals_review_is_not_a_pull_requests() -> None:
    """The software track reads "under review" as a pull request's: a deal's is the deal track's."""
    claim = "The acquisition of Cascade is now under antitrust review"
    assert moved_on(claim, "Northwind's plan to buy Cascade is planned for 2027") is None
    assert moved_on(claim, CLOSED) == "closed → review"
    assert moved_on("The PR is under review", "adding FP8 support is planned for 0.8") == "planned → review"


def test_a_review_or_peeling_naming_no_deal_nor_regulator_tells_no_deal_stage() -> None:
    """The dev digests' "in-depth review of 129 studies" and "自回归剥离策略" (peeling layers)
    read as a deal's review and divestiture, and a software stage then went unread."""
    from kbsearch.text.deals import deal_rank

    assert deal_rank("This survey presents an in-depth review of 129 research studies") is None
    assert deal_rank("采用自回归剥离策略，利用图像扩散模型移除遮挡层") is None
    assert deal_rank("12 亿美元的交易已于 12 月 2 日交割，Northwind 可能被要求剥离 C2 产品线") == 3.5
    assert moved_on("the survey's in-depth review was merged into main", "the survey is under discussion") is not None

"""One company's deals with different counterparts are two items (``counterparts``), and what a
company's title reports: a site's build is not its supply contract, and a product opened to its
users is its launch (``subjects.event_kinds``).

Probe 37: a buyer's second acquisition that week was taken for its first (learned 0.73, audit
0.99), its relation line naming the first as context; a compute firm's new campus was taken for
its GPU contract. Probe 38: "opens its platform to customers" was split from the same product's
"launches" by the event rule. The fixtures are written for these tests."""

from __future__ import annotations

from support.embedded import judged

from kbsearch.dedupe.counterparts import counterparts, counterparts_differ
from kbsearch.dedupe.mention_roles import unroled
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.subjects import event_kinds, events_differ, title_subject
from kbsearch.records import Kind, Record

FIRST = "Halberd acquires speech-analytics startup Wrenfold Audio for $420M"
SECOND = "Halberd 以 9000 万美元收购代码审查工具公司 Tamsin"


def record(rid: str, title: str, claims: list[str], relation: str | None = None) -> Record:
    return Record(
        id=rid,
        kind=Kind.increment,
        date="2026-12-04",
        title=title,
        text="\n".join(claims),
        claims=claims,
        relation=relation,
    )  # type: ignore[call-arg]


def apart(a: str, a_text: str, b: str, b_text: str) -> str | None:
    return counterparts_differ(
        (title_subject(a), a, unroled(f"{a}\n{a_text}")), (title_subject(b), b, unroled(f"{b}\n{b_text}"))
    )


def events(a: str, b: str) -> str | None:
    return events_differ((title_subject(a), a), (title_subject(b), b))


def test_one_buyers_acquisitions_of_different_companies_are_two_items() -> None:
    first = record("ana-1", FIRST, ["Price: $420M in cash", "Team: 90 engineers join Halberd"])
    second = record(
        "ben-4",
        SECOND,
        ["价格：9000 万美元，全现金", "标的：Tamsin 做代码审查工具，约 40 人"],
        relation="Halberd 本月第二笔收购（此前已收购 Wrenfold Audio）",  # context, not this deal's party
    )
    rule, same, reason = judged(second, first, lambda name: 1)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "deals of halberd with different counterparts (tamsin / wrenfold)" in reason


def test_a_title_names_its_counterparts_not_the_company_figures_or_acronyms() -> None:
    assert counterparts(FIRST, "halberd") == {"wrenfold"}
    assert counterparts(SECOND, "halberd") == {"tamsin"}
    assert counterparts("Halberd Cloud 与 Ostrava AI 签下 GPU 算力合同", "halberd") == {"ostrava"}
    assert counterparts("Halberd closes a $420M AI deal", "halberd") == frozenset()


def test_a_retelling_a_title_without_a_counterpart_or_a_record_naming_it_settles_nothing() -> None:
    # The same deal in the other language names the company bought.
    assert apart(FIRST, "", "Halberd 收购 Wrenfold Audio，价格 4.2 亿美元", "") is None
    # A title naming no counterpart, or another kind of news, is for the other rules.
    assert apart(FIRST, "", "Halberd closes a $420M deal for a speech startup", "") is None
    assert apart(FIRST, "", "Halberd raises $1B led by Corbel Ventures", "") is None
    # A record naming the other's counterpart as its own party ("Tamsin joins Wrenfold's team") is not told apart.
    assert apart(SECOND, "Tamsin 团队将并入 Wrenfold 部门", FIRST, "") is None


def test_an_earlier_deal_the_text_follows_is_context() -> None:
    text = "Its second purchase this month, after its acquisition of Wrenfold Audio."
    assert "wrenfold" not in unroled(text)
    assert "wrenfold" not in unroled("Following the Wrenfold deal, Halberd keeps buying")
    assert "wrenfold" not in unroled("继收购 Wrenfold 之后，Halberd 又出手")
    assert apart(SECOND, text, FIRST, "") is not None
    # Its own deal's consequence stays a mention: "after the deal, Wrenfold joins".
    assert "wrenfold" in unroled("After the deal, Wrenfold's team joins Halberd")


BUILD = "Ostrava Compute to build a 1.5 GW data-centre campus in Texas"
CONTRACT = "Ostrava Compute 与 Lumen AI 签下 3 万张 GPU 的算力合同"


def test_a_companys_site_build_is_not_its_supply_contract() -> None:
    assert event_kinds(BUILD) == {"construction"}
    assert event_kinds("Ostrava 在内蒙古新建智算中心") == {"construction"}
    assert events(BUILD, CONTRACT) == "the titles report different events of ostrava (construction / deal)"
    # A build names what it builds: an agent built, or a contract's cluster, is no site.
    assert event_kinds("Ostrava builds a coding agent") == set()
    assert event_kinds("Ostrava builds a 30k-GPU cluster for Lumen") == set()
    # The site's opening is its build's later stage, one item.
    assert events("Ostrava Compute opens its Texas campus", BUILD) is None
    assert events("Ostrava opens its first data-centre campus", "Ostrava to build a 1.5 GW campus") is None


def test_a_product_opened_to_its_users_is_its_launch() -> None:
    opened = "Kestrel AI opens its simulation platform to customers"
    assert "launch" in event_kinds(opened)
    assert events(opened, "Kestrel AI launches Kestrel Arena") is None
    for told in ("Kestrel 向所有开发者开放语音 API", "Kestrel 语音 API 正式上线", "Kestrel Arena is now GA"):
        assert "launch" in event_kinds(told), told
    assert events("Kestrel 向所有开发者开放语音 API", "Kestrel 发布实时语音 API") is None
    assert events("Kestrel Arena is now generally available", "Kestrel launches Kestrel Arena in beta") is None
    assert events("Kestrel 语音 API 正式上线", "Kestrel launches a realtime voice API") is None
    # Truly different events stay apart: a site's opening is not a product's launch.
    assert events("Kestrel opens a 40 MW data centre", "Kestrel launches Kestrel Arena") is not None
    assert event_kinds("Kestrel opens a 40 MW data centre") == {"opening"}

"""Different documents on one subject are different items (``documents.documents_differ``).

Probe 35: an institute's red-team report on a model was taken for the lab's own system card of
that model, an authority's implementing act for an office's compliance template, and a Senate
bill by its number for another act's committee vote. A document and its own later version, or
one document told in the other language, stay one item."""

from __future__ import annotations

from functools import partial

from conftest import fake_config
from support.embedded import judged as compared
from support.embedded import titled

from fake_encoder import FakeEncoder
from kbsearch.dedupe.documents import bill_numbers, document_kinds, documents_differ
from kbsearch.dedupe.results import Rule

ENCODER = FakeEncoder()
CONFIG = fake_config()
CARD = "Veyra lists its dangerous-capability evaluations of Nimbus-4: cyber risk rated medium, 800 prompts tested."
REPORT = "The Corlan Institute tested Nimbus-4 for four weeks: cyber risk medium, 800 prompts, jailbreaks at 17%."


record = partial(titled, date="2026-12-04")


def apart(a: tuple[str, str], b: tuple[str, str]) -> str | None:
    return documents_differ((a[0], f"{a[0]}\n{a[1]}"), (b[0], f"{b[0]}\n{b[1]}"))


def test_a_third_partys_red_team_report_is_not_the_labs_system_card() -> None:
    card = record("a-1", "Veyra publishes the Nimbus-4 system card", CARD)
    report = record("b-2", "Corlan Institute 发布 Nimbus-4 红队报告", REPORT)
    rule, same, reason = compared(report, card, lambda name: 1)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "different kinds of document (evaluation report / system card)" in reason


def test_kinds_of_document_a_title_names_in_either_language() -> None:
    assert document_kinds("Veyra 发布 Nimbus-4 系统卡") == document_kinds("Nimbus-4 model card") == {"system card"}
    assert document_kinds("Corlan 审计报告") == document_kinds("Corlan audit report") == {"evaluation report"}
    assert document_kinds("Tamsin regulator 发布训练数据指南") == document_kinds("Tamsin guidelines") == {"guidance"}
    assert document_kinds("Tamsin Privacy Act passes") == document_kinds("《塔姆辛隐私法》通过") == {"law"}
    assert document_kinds("Tamsin 发布 AI 安全框架") == {"safety framework"}
    assert document_kinds("Ostrel's white paper on agents") == document_kinds("Ostrel 白皮书") == {"white paper"}
    # A scaling law, an agent that acts and a paper's "Act Once" name no statute.
    assert document_kinds("A scaling law for sparse experts") == document_kinds("Amdahl's law bites") == set()
    assert document_kinds("Think Twice, Act Once: agents that act faster") == set()
    assert document_kinds("Ostrel raises $40M") == set()


def test_different_kinds_of_document_are_apart_unless_a_record_names_the_others() -> None:
    template = ("Tamsin data office releases a compliance template for model providers", "Eleven sections to fill in.")
    act = ("Tamsin regulator adopts an implementing act on training data summaries", "Using a standard KRA template.")
    assert apart(act, template)  # KRA's template, a name the template's title never gives: another document
    named = (act[0], "It cites the compliance template.")
    assert apart(named, template) is None  # the record names the other's document
    both = ("Red-team report finds the Nimbus-4 system card understated cyber risk", REPORT)
    assert apart(both, ("Veyra publishes the Nimbus-4 system card", CARD)) is None


def test_a_document_and_its_later_version_or_translation_stay_one_item() -> None:
    card = ("Veyra publishes the Nimbus-4 system card", CARD)
    assert apart(("Veyra 更新 Nimbus-4 系统卡：网络风险上调为高", "系统卡 v1.1。"), card) is None
    draft = ("Tamsin regulator opens consultation on incident reporting guidelines", "Draft: report within 20 days.")
    assert apart(("Tamsin 监管机构发布事故报告指南定稿", "时限缩短为 12 天。"), draft) is None


def test_bill_numbers_tell_bills_apart_like_model_codes() -> None:
    assert bill_numbers("Governor signs AB 77 and H.R. 5120") == {"AB77", "HR5120"}
    assert bill_numbers("参议院提出《模型审计法》（S.2207）") == {"S2207"}
    assert apart(("SB 310 passes the state Senate", "Registers clusters."), ("AB 77 signed", "Labels content.")) == (
        "the titles name different bills (SB310 / AB77)"
    )
    assert apart(("SB 310 passes the Senate", "It amends AB 77."), ("AB 77 signed", "Labels content.")) is None


def test_a_numbered_bill_is_not_another_named_acts_item_that_never_gives_the_number() -> None:
    bill = ("参议院提出《模型审计法》（S.2207）", "S.2207 要求 ORMA 覆盖的模型完成第三方审计。")
    committee = ("Ostland Open Models Reporting Act (ORMA) clears the Commerce Committee", "Approved 20-11.")
    assert apart(bill, committee) == (
        "the titles name different documents (S2207 / ORMA), the other record never giving the bill's number"
    )
    # The same bill told without its number in the title, its record giving the number: one item.
    retold = ("Ostland Senate introduces the Model Audit Act (MAA)", "The bill, S.2207, requires audits.")
    assert apart(bill, retold) is None

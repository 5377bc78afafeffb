"""A rule's and a court case's stages are a track (``text.legal``): a later stage is news, the same
stage in other words is known, and a consultation and its final text are one item.

Probe 35: a bill's withdrawal was known from its passing one chamber, a court's ruling from its
injunction, and a regulator's final guidelines were taken for another event than its consultation
("the titles report different events of …"). The texts here are written for these tests."""

from __future__ import annotations

from kbsearch.dedupe.subjects import events_differ, title_subject
from kbsearch.text.legal import legal_ranks
from kbsearch.text.stages import moved_on, told, untold

PASSED = "HB 412, the Model Registry Act, passed the state House 61-30 on Tuesday"


def apart(a: str, b: str) -> str | None:
    return events_differ((title_subject(a), a), (title_subject(b), b))


def test_a_bill_withdrawn_or_signed_after_one_chamber_passed_it_moves_on() -> None:
    assert moved_on("提案人于 5 月 3 日撤回 HB 412，参议院不再审议", PASSED) == "passed → halted"
    assert moved_on("The governor signed HB 412 into law", PASSED) == "passed → adopted"
    assert moved_on("HB 412 将于 2028年1月1日 生效", "The governor signed HB 412 into law") == (
        "adopted → possibly in force"
    )
    assert not told("提案人于 5 月 3 日撤回 HB 412，参议院不再审议", PASSED)
    # The same stage in other words, or an earlier one, is no news.
    assert moved_on("HB 412《模型登记法》在州众议院以 61 票对 30 票通过", PASSED) is None
    assert told("HB 412《模型登记法》在州众议院以 61 票对 30 票通过", PASSED)
    assert moved_on(PASSED, "The governor signed HB 412 into law") is None


def test_a_consultations_final_text_moves_on_and_its_title_is_the_same_item() -> None:
    draft = "The Pelorian Data Office opens a public consultation on model incident guidelines"
    final = "Pelorian Data Office 发布模型事件指南定稿，报告时限改为 7 天"
    assert moved_on(final, draft) == "proposed → adopted"
    assert apart("Kestral 发布模型事件指南定稿", "Kestral opens consultation on incident guidelines") is None
    # A company's launch against its opening, with no legal stage, stays apart.
    assert apart("Kestral 发布首款推理芯片", "Kestral opens a data centre in Oslo")


def test_a_courts_ruling_or_lifted_injunction_after_the_injunction_moves_on() -> None:
    injunction = "法院于 4 月 2 日颁发初步禁令（preliminary injunction），HB 77 暂停执行"
    assert moved_on("The court struck down HB 77's watermark mandate for news outlets", injunction) == (
        "injunction → ruling"
    )
    assert moved_on("The injunction was lifted for the disclosure duty the court upheld", injunction) == (
        "injunction → ruling"
    )
    assert moved_on("The state has appealed the ruling on HB 77", "The court struck down HB 77") == "ruling → appeal"
    assert moved_on("法院颁发了针对 HB 77 的禁令", injunction) is None


def test_legal_words_in_their_everyday_senses_tell_no_stage() -> None:
    """通过 is "by means of", "passed" a test, "final" a product's GA word, "draft" a decoder's model,
    "scaling law" no law: with no bill, regulator, legislature nor court named, no legal stage."""
    assert legal_ranks("通过 KV 缓存复用，吞吐提升 2 倍，已正式通过内部评测") == {}
    assert legal_ranks("The draft model passed all tests; the final version ships in May") == {}
    assert legal_ranks("We propose a rule-based reward and fit a scaling law") == {}
    assert moved_on("Drover 进入正式版（GA）", "launches Drover (research preview)") == "preview → released"


def test_a_later_legal_stage_than_any_record_of_the_item_tells_is_news_whichever_passage_is_weighed() -> None:
    """Probe 35: a ruling was weighed against its record's TLDR, which tells no stage, while the
    record's key point told the injunction."""
    records = ["法院认为 HB 77 的水印要求范围过宽", "法院于 4 月 2 日颁发初步禁令，HB 77 暂停执行"]
    claim = "The court struck down HB 77's watermark mandate for news outlets"
    assert moved_on(claim, records[0]) is None
    assert untold(claim, records) == "injunction → ruling"
    assert untold("法院颁发针对 HB 77 的禁令", records) is None
    assert untold("指南自 2028-01-01 起适用", ["The regulator opens a public consultation on the guidelines"]) == (
        "proposed → in force"
    )

"""A currency is the unit of a figure, never a name (``text.currencies``).

Probe 37: "… lands an RMB 1.8 billion compute order" was set apart from its Chinese first
report ("… 获得 ¥18 亿 算力订单"): the code RMB, written in capitals, read as a rare system's
name the other record never mentions. Both give the order as 1.8b; the currency is one
(¥, RMB, CNY, 人民币, 元 as $, USD, 美元 are) and says nothing of which item it is."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fake_config
from support.name_holders import holders_of

from fake_encoder import FakeEncoder
from kbsearch.dedupe.names import NameHolders
from kbsearch.dedupe.rules import Embedded, different_names
from kbsearch.records import Kind, Record
from kbsearch.text.field_terms import is_field_term, is_not_a_system
from kbsearch.text.money import priced_digits
from kbsearch.text.textsim import numbers

ENCODER = FakeEncoder()
FIRST = Record(
    id="mei/2026-12-02#2", kind=Kind.increment, instance="mei", date=dt.date(2026, 12, 2),
    title="钱塘算力拿下 ¥24 亿 集群租赁合同",
    text="钱塘算力与一家大模型公司签下 ¥24 亿、为期两年的集群租赁合同，约 4,000 张国产加速卡",
)  # fmt: skip
RETOLD = Record(
    id="otto/2026-12-03#1", kind=Kind.increment, instance="otto", date=dt.date(2026, 12, 3),
    title="Qiantang Compute signs a CNY 2.4 billion cluster lease",
    text="A two-year cluster lease worth CNY 2.4 billion with a large-model company, about 4,000 domestic accelerators",
)  # fmt: skip
OTHER = Record(
    id="otto/2026-12-01#4", kind=Kind.increment, instance="otto", date=dt.date(2026, 12, 1),
    title="Lattice Cloud wins a USD 300 million GPU contract", text="Lattice Cloud rents 8,000 GPUs for three years",
)  # fmt: skip


@pytest.fixture
def holders(tmp_path: Path) -> Iterator[NameHolders]:
    with holders_of(tmp_path, [FIRST, OTHER]) as held:
        yield held


def embedded(record: Record) -> Embedded:
    return Embedded(record, ENCODER.encode(record.passages()))


def test_a_currency_code_in_a_title_names_nothing_the_repeat_must_mention(holders: NameHolders) -> None:
    ruled = different_names(embedded(RETOLD), embedded(FIRST), fake_config(), holders.count)
    assert ruled is None


@pytest.mark.parametrize("code", ["rmb", "cny", "usd", "eur", "jpy", "hkd", "gbp"])
def test_currency_codes_are_units(code: str) -> None:
    assert is_not_a_system(code) and is_field_term(code)


def test_the_trades_words_that_look_like_codes_stay_words() -> None:
    assert not any(is_not_a_system(word) for word in ("sgd", "cad", "inr", "sar", "aed"))


@pytest.mark.parametrize(
    "text", ["RMB 2.4 billion", "CNY 2.4 billion", "¥24 亿", "24 亿元", "人民币 24 亿", "$2.4B", "24 亿美元"]
)
def test_any_currency_gives_the_one_figure(text: str) -> None:
    assert numbers(text) == {"2.4b"}


@pytest.mark.parametrize(("text", "digit"), [("HKD 8 a month", "8"), ("每月 6 港币", "6"), ("₩9 per call", "9")])
def test_a_lone_digit_with_any_currency_is_a_price(text: str, digit: str) -> None:
    assert priced_digits(text) == {digit}


def test_a_lower_case_rare_code_is_no_price() -> None:
    assert priced_digits("stage 4 hkd, 2 krw left") == set()

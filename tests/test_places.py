"""A company's sites in different countries are different items (``subjects.places_differ``).

Probe 10: "Groq opens Helsinki data centre" was the same item (1.00) as spark's "Groq 在沙特
新建推理数据中心投入运营": one company, one kind of event, read alike on every other word."""

from __future__ import annotations

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.dedupe.subjects import places_differ
from kbsearch.records import Kind, Record
from kbsearch.text.places import countries

ENCODER = FakeEncoder()
CONFIG = fake_config()
SITE = "The site runs the company's inference chips for a sovereign cloud customer."


def judged(title: str, other: str) -> tuple[Rule, bool, str]:
    a, b = (Record(id=t, kind=Kind.increment, title=t, text=SITE) for t in (title, other))
    match = compare(
        Embedded(a, ENCODER.encode(a.passages())),
        Embedded(b, ENCODER.encode(b.passages())),
        CONFIG,
        Neighbourhood(),
        lambda name: 50,
    )
    return match.rule, match.same_item, match.reasons[0]


def test_sites_in_different_countries_are_different_items() -> None:
    rule, same, reason = judged("Lumen opens Oslo data centre", "Lumen 在沙特新建推理数据中心")
    assert (rule, same) == (Rule.different_names, False), reason
    assert "norway / saudi arabia" in reason


def test_a_city_is_read_as_its_country_and_a_named_place_is_shared() -> None:
    assert countries("Lumen 在赫尔辛基开设站点") == countries("Lumen opens a Finland site") == {"finland"}
    assert countries("Helsinki-NLP releases OPUS models") == frozenset()  # a group's name, not the city
    assert places_differ(("Lumen opens Oslo site", ""), ("Lumen 芬兰站点", "")) is not None
    assert places_differ(("Lumen opens Oslo site", ""), ("Lumen 挪威站点", "")) is None  # one country
    # The other record names this one's country: a follow-up, left to the learned decision.
    assert places_differ(("Lumen opens Oslo site", ""), ("Lumen 芬兰站点", "继 Oslo 之后的第二个站点")) is None
    assert places_differ(("Lumen opens a site", ""), ("Lumen 芬兰站点", "")) is None  # one title names no place

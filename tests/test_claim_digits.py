"""The cosine decision does not call a claim known when it counts with a lone digit what no
same-item record counts (``claim_digits.digits_unstated``): the number rules leave lone
digits out, and a cosine reads no words across languages. Probe 46: "v2 adds 3 target
models" (in Chinese) was known at the judge's cosine 0.85 from the first version's record,
which gives no model count. The fixtures here are written for these tests."""

from __future__ import annotations

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.claim_digits import digits_unstated
from kbsearch.dedupe.claims import judge_claim
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

CONFIG = fake_config()
ENCODER = FakeEncoder()
KEY_POINTS = [
    "Sablefin raises the request a little every turn so no turn is refused",
    "Sablefin succeeds on 64% of tries against chat models",
]


def attack(extra: list[str] | None = None) -> Embedded:
    rec = Record(
        id="uma/2026-10-05#1",
        kind=Kind.increment,
        title="Sablefin: a slow-drip jailbreak",
        text="",
        claims=KEY_POINTS + (extra or []),
    )
    return Embedded(rec, ENCODER.encode(rec.passages()))


def known(claim: str, record: Embedded) -> bool:
    return judge_claim(claim, ENCODER.encode([claim])[0], [], [record], CONFIG).known


def test_a_count_the_record_never_gives_is_not_known_by_the_cosine() -> None:
    claim = "Sablefin raises the request a little every turn, now on 4 chat models"
    assert digits_unstated(claim, [attack()]) == {"4"}
    assert not known(claim, attack())


def test_the_count_written_in_words_by_the_record_is_stated() -> None:
    claim = "Sablefin raises the request a little every turn, now on 4 chat models"
    assert digits_unstated(claim, [attack(["Tested on four chat models"])]) == set()
    assert digits_unstated(claim, [attack(["在四个聊天模型上测试"])]) == set()
    assert digits_unstated(claim, [attack(["Tested on 4 chat models"])]) == set()
    assert known(claim, attack(["Tested on four chat models"]))


def test_a_claim_without_a_lone_digit_and_a_citation_are_unchanged() -> None:
    assert known("Sablefin raises the request a little every turn, now on four chat models", attack())
    assert known(KEY_POINTS[0], attack())
    assert digits_unstated("背景：见 10-05锚定 的 Sablefin", [attack()]) == set()
    # A counted digit (8 GPUs) is the number rules' (``substantive_numbers``), not this one's.
    assert digits_unstated("Sablefin runs on 8 GPUs", [attack()]) == set()


def test_a_count_the_record_gives_the_same_way_is_stated() -> None:
    # The number rules read "3 bits" as a unit's figure, not a lone 3: the record's own lone digits count too.
    claim = "Keys and values are kept in 3 bits, the newest tokens in full precision"
    assert digits_unstated(claim, [attack(["Keys and values are kept in 3 bits"])]) == set()
    assert known(claim, attack(["Keys and values are kept in 3 bits, the newest tokens in full precision"]))

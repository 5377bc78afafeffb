"""A release's own record comes before the earlier release its record gives (``own_release``).

Probe 34: a Chinese retelling of a code model's 2.5 release, its key point giving 2.0's figure
("2.0 版为 …"), was tied to 2.0's record by ``new_release`` (exact evidence), and the English
record of 2.5 itself (learned, 1.00) was set apart as a different item: an UPDATE of 2.0 where it
repeated 2.5. The item's own version is its title's; the earlier one its key points give is context.
The fixtures are written for this test: a speech model, Kittiwake, its 3.0 and 3.2 releases."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
from conftest import fake_config
from test_doc_section_verdicts import always_said, check

from kbsearch.dedupe.results import Rule, Verdict
from kbsearch.dedupe.rules import Embedded, compare_all, one_item
from kbsearch.dedupe.scorer import Scorer
from kbsearch.dedupe.subjects import new_release, releases, same_release
from kbsearch.records import Kind, Record

EARLIER = Record(
    id="ana/12-01#2", kind=Kind.increment, instance="ana", date=dt.date(2026, 12, 1),
    title="Halyard Systems open-sources Kittiwake 3.0, a 7B speech model",
    text="Kittiwake 3.0 transcribes and translates speech in 40 languages.",
    claims=["7B parameters, trained on 2 million hours of audio", "Word error rate 6.1 on the house test set"],
)  # fmt: skip
OWN = Record(
    id="ben/12-05#1", kind=Kind.increment, instance="ben", date=dt.date(2026, 12, 5),
    title="Halyard Systems ships Kittiwake 3.2",
    text="Kittiwake 3.2 keeps 7B parameters and adds streaming recognition.",
    claims=["Trained on 3.5 million hours of audio (3.0 used 2 million)", "Word error rate 4.8, down from 6.1"],
)  # fmt: skip
RETOLD = Record(
    id="ana/12-05#4", kind=Kind.increment, instance="ana", date=dt.date(2026, 12, 5),
    title="Kittiwake 3.2 发布：支持流式识别",
    text="Halyard Systems 的 Kittiwake 3.2 语音模型仍为 70 亿参数，新增流式识别。",
    claims=["350 万小时音频训练（3.0 版为 200 万小时）", "词错误率 4.8"],
)  # fmt: skip
# The learned decision calls every pair the same item: only the rules and one_item tell them apart.
TOGETHER = Scorer(
    features=["cosine"], weights=[0.0], means=[0.0], scales=[1.0], bias=10.0, threshold=0.5, fitted_on="test"
)


def _embedded(record: Record) -> Embedded:
    # One vector for every passage: the retelling and 3.2's record alike, 3.0's record far.
    vector = np.zeros(64, dtype=np.float32)
    vector[0 if record is not EARLIER else 1] = 1.0
    return Embedded(record, np.tile(vector, (len(record.passages()), 1)))


def _common(_: str) -> int:
    return 50


def test_the_items_own_release_record_is_kept_and_the_earlier_release_yields() -> None:
    config = fake_config().model_copy(update={"same_item": TOGETHER})
    item, known = _embedded(RETOLD), {r.id: _embedded(r) for r in (EARLIER, OWN)}
    compared = {m.id: m for m in compare_all(item, list(known.values()), config, _common)}
    assert compared[EARLIER.id].rule is Rule.new_release and compared[EARLIER.id].same_item
    assert compared[OWN.id].rule is Rule.learned and compared[OWN.id].same_item
    kept = {m.id: m for m in one_item(list(compared.values()), known, config, _common, item)}
    assert kept[OWN.id].same_item, kept[OWN.id].reasons
    assert not kept[EARLIER.id].same_item and kept[EARLIER.id].rule is Rule.surer_match
    assert "the item's own release, kittiwake 3.2, has its record ben/12-05#1" in kept[EARLIER.id].reasons[-1]


def test_with_no_record_of_its_own_release_the_tie_to_the_earlier_one_stands() -> None:
    config = fake_config().model_copy(update={"same_item": TOGETHER})
    item, known = _embedded(RETOLD), {EARLIER.id: _embedded(EARLIER)}
    kept = one_item(compare_all(item, list(known.values()), config, _common), known, config, _common, item)
    assert [(m.rule, m.same_item) for m in kept] == [(Rule.new_release, True)]


def test_check_calls_the_retelling_a_duplicate_of_its_own_release(tmp_path: Path) -> None:
    config = always_said().model_copy(update={"same_item": TOGETHER})
    result = check(tmp_path, [EARLIER, OWN], RETOLD, config)
    assert result.verdict is Verdict.DUPLICATE, result.reason
    assert OWN.id in result.reason and "new release" not in result.reason


def test_a_release_is_its_own_whatever_its_trailing_zero() -> None:
    assert same_release(releases("Kittiwake 3.2 发布"), releases("Halyard ships Kittiwake 3.2.0")) == "kittiwake 3.2"
    assert same_release(releases("Kittiwake 3.2 发布"), releases(EARLIER.title)) is None
    assert same_release(releases("Kittiwake 3.2.1 patch"), releases("Halyard ships Kittiwake 3.2")) is None


def test_both_languages_read_a_predecessor_mention_by_its_version_word() -> None:
    """ "3.0 版" is Chinese for "version 3.0": either gives the earlier release, in either language;
    a bare "3.0" ("vs 3.0", "3.0 used", "较 3.0") is a figure's context in both."""
    ours, theirs = releases("Kittiwake 3.2 发布"), releases(EARLIER.title)
    for text in ("（3.0 版为 200 万小时）", "(version 3.0 used 2 million hours)", "compared with v3.0"):
        assert new_release((ours, text), (theirs, "")) is not None, text
    for text in (
        "（3.0 用了 200 万小时）",
        "(3.0 used 2 million hours)",
        "vs 3.0",
        "较 3.0 的 6.1 降低",
        "up from 3.0's 6.1",
    ):
        assert new_release((ours, text), (theirs, "")) is None, text

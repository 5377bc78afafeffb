"""Versions are no figures: a release after a product's or a licence's name, in English or
Chinese, is read as neither a result nor a figure that changed (probe 27), with the fake encoder."""

from __future__ import annotations

import pytest

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.claims import PassageHit, PassageReader, judge_said
from kbsearch.dedupe.config import SAID_FEATURES
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scorer import Scorer
from kbsearch.records import Kind, Record
from kbsearch.text.textsim import substantive_numbers

ENCODER = FakeEncoder()
SURE = Scorer(
    features=list(SAID_FEATURES),
    weights=[0.0] * len(SAID_FEATURES),
    means=[0.0] * len(SAID_FEATURES),
    scales=[1.0] * len(SAID_FEATURES),
    bias=10.0,
    threshold=0.1,
    fitted_on="hand-set for a test",
    score="none",
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("多智能体框架 Quillo 从 2.0 起由 MIT 改为 BSL 1.1", set()),
        ("Quillo框架自 2.0 开始改用 GPL 3.0", set()),
        ("From Quillo 2.0 the code is under BSL 1.1 instead of MIT", set()),
        ("开源推理引擎发布 0.4 版，吞吐提升 1.8 倍", {"1.8x"}),
        ("PostgresSaver, introduced in 0.9, is stable as of 1.0; ChainRunner is removed in 1.2", set()),
        ("Versions 1.x stay MIT；2.x 版本仍是 MIT", set()),
        ("code under MPL 2.0, models under CC BY-NC-SA 4.0", set()),
        ("Quillo 的得分从 0.82 提升到 0.91", {"0.82", "0.91"}),  # a score a product moved: figures
        ("得分从 0.5 起步，AUC 0.93", {"0.5", "0.93"}),
    ],
)
def test_a_version_after_a_product_or_licence_is_no_figure(text: str, expected: set[str]) -> None:
    assert substantive_numbers(text) == expected


def _record(rid: str, title: str, *claims: str) -> Embedded:
    rec = Record(id=rid, kind=Kind.increment, title=title, text="", claims=list(claims))
    return Embedded(rec, ENCODER.encode(rec.passages()))


def _said(claim: str, known: Embedded) -> object:
    vector = ENCODER.encode([claim])[0]
    candidates = [PassageHit(known, i, float(v @ vector)) for i, v in enumerate(known.vectors)]
    return judge_said(claim, candidates, {known.record.id}, PassageReader(None, FakeTokenEncoder({})), SURE)


LICENCE = _record(
    "en",
    "Quillo switches its licence from MIT to BSL 1.1",
    "From Quillo 2.0 the code is under BSL 1.1 instead of MIT",
    "Each release converts to Apache-2.0 four years after its publication",
    "Versions 1.x stay MIT",
)


def test_a_chinese_retelling_of_a_relicensing_brings_no_new_figure() -> None:
    """Probe 27: the Chinese retelling's "从 2.0 起" read 2.0 as a figure the English key point
    lacked ("From Quillo 2.0" is a version there), a change of the record's "1.x" read as 1,
    so a retelling of a known claim came out new (an UPDATE instead of a DUPLICATE)."""
    status = _said("多智能体框架 Quillo 从 2.0 起由 MIT 改为 BSL 1.1", LICENCE)
    assert status.known and status.new_numbers == []  # type: ignore[attr-defined]


def test_a_changed_figure_beside_a_version_stays_new() -> None:
    deployed = _record("dp", "Quillo 2.0 serving", "Quillo 2.0 serves the model on 8 H200", "it needs no retraining")
    changed = _said("Quillo 从 2.0 起只需 4 张 H200", deployed)
    assert not changed.known and changed.new_numbers == ["4"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Probe 47: the hyphen joining CC to BY hid the licence, and its 4.0 read as a figure 4.
        ("Sensor logs and firmware are released under CC-BY 4.0", set()),
        ("标注数据以 CC-BY-SA 4.0 发布，采集成本约 $320", {"320"}),
        # Probe 48: an operating system's release after the product's word and OS.
        ("随 Tern OS 5.1 推送到全系平板", set()),
        ("ships with Larkspur OS 3.2 on the new handsets", set()),
        # OS after a small letter, and a metric in capitals ending in OS, keep their figures.
        ("median OS 14.5 months", {"14.5"}),
        ("自然度 MOS 4.2，清晰度 MOS 4.0", {"4", "4.2"}),
    ],
)
def test_a_hyphenated_licence_or_an_os_release_is_no_figure(text: str, expected: set[str]) -> None:
    assert substantive_numbers(text) == expected

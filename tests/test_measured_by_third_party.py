"""A third party's measurement of a system is its own item (``dedupe.measured``, read by
``dedupe.scores``), not news of the release it measures.

Probe 39: a benchmark group's run of a serving engine's point release ("X measures Engine
0.9.1 independently") was joined to the release's own record as its UPDATE (learned 0.98): its
title reports no "MODEL … on BENCH" score, so no score rule read it, and both titles named one
release. The fixtures here are written for these tests."""

from __future__ import annotations

from fake_encoder import FakeEncoder
from kbsearch.dedupe.rules import Embedded
from kbsearch.dedupe.scores import title_score
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()


def record(rid: str, title: str, text: str, claims: list[str] | None = None) -> Record:
    return Record(id=rid, kind=Kind.increment, date="2026-12-02", title=title, text=text, claims=claims or [])  # type: ignore[arg-type]


def told_apart(a: Record, b: Record) -> str | None:
    one, other = (Embedded(r, ENCODER.encode(r.passages())) for r in (a, b))
    return one.told_apart(other) or other.told_apart(one)


RELEASE = record(
    "ivo-release",
    "Pellucid 2.4.1 补丁版：修复 speculative decoding 与 prefix cache 同时开启时的死锁",
    "Pellucid 2.4.1 是 2.4.0 的补丁版，修复两项功能同时开启时调度器死锁。",
    ["修复：speculative decoding 与 prefix cache 同时开启时调度器死锁", "建议：开启 prefix cache 的部署尽快升级"],
)
MEASURED = record(
    "lou-measured",
    "Tallyhouse benchmarks Pellucid 2.4.1 on a 4-GPU node",
    "Tallyhouse ran Pellucid 2.4.1 on four L40S cards: 1,480 tok/s for Brume-13B, below the maintainers' number.",
    ["Pellucid 2.4.1 serves Brume-13B at 1,480 tok/s on 4×L40S", "Setup: default config, prefix cache off"],
)
MEASURED_ZH = record(
    "ivo-measured",
    "Tallyhouse 实测 Pellucid 2.4.1：4 卡 L40S 每秒 1480 token",
    "Tallyhouse 在四张 L40S 上跑 Pellucid 2.4.1，Brume-13B 每秒 1480 token。",
    ["Pellucid 2.4.1 在 4×L40S 上 Brume-13B 每秒 1480 token"],
)
OTHER_LAB = record(
    "lou-other",
    "Quillstone measures Pellucid 2.4.1 under bursty load",
    "Quillstone replayed a bursty chat trace against Pellucid 2.4.1: p99 TTFT 420 ms.",
    ["p99 TTFT of 420 ms under a bursty chat trace"],
)
RELEASE_QUOTING = record(
    "ivo-quoting",
    "Pellucid 2.4.1 released with Tallyhouse's numbers",
    "Pellucid 2.4.1 fixes a scheduler deadlock; the notes quote Tallyhouse's run at 1,480 tok/s on 4×L40S.",
    ["Fix: scheduler deadlock", "Tallyhouse measured 1,480 tok/s"],
)


def test_a_measurement_title_is_read_as_the_measurer_s_score_of_the_system() -> None:
    for title, who in [
        ("Tallyhouse benchmarks Pellucid 2.4.1 on a 4-GPU node", "tallyhouse"),
        ("Pellucid 2.4.1 benchmarked by Tallyhouse Labs", "tallyhouse labs"),
        ("Tallyhouse 实测 Pellucid 2.4.1：4 卡 L40S", "tallyhouse"),
        ("Tallyhouse 对 Pellucid 2.4.1 的独立评测", "tallyhouse"),
        ("Tallyhouse's independent benchmark of Pellucid 2.4.1", "tallyhouse"),
    ]:
        score = title_score(title)
        assert score is not None and score.third_party, title
        assert (score.model, score.bench) == ("pellucid 2.4.1", who), title


def test_no_measurement_where_the_title_is_the_system_s_own_news() -> None:
    assert title_score("Pellucid tests a new scheduler") is None  # no third party: the system's own word
    assert title_score("New Harness tests LLM agents") is None  # "New" opens a title, names no one
    assert title_score("Pellucid 2.4.1 released with Tallyhouse's numbers") is None
    assert title_score("An evaluation of VLMs for chart reading: Orrin-2 and Pellucid") is None  # no measurer
    assert title_score("ChartQuill evaluates VLMs on six chart types") is None  # a class of systems, no one system


def test_a_third_party_s_run_is_not_the_release_it_measures() -> None:
    reason = told_apart(MEASURED, RELEASE)
    assert reason is not None and "measurement of pellucid 2.4.1" in reason
    assert told_apart(MEASURED_ZH, RELEASE) is not None  # in Chinese too


def test_two_measurers_runs_of_one_release_are_two_items() -> None:
    assert told_apart(MEASURED, OTHER_LAB) is not None


def test_one_measurer_s_run_in_two_languages_stays_one_item() -> None:
    assert told_apart(MEASURED, MEASURED_ZH) is None


def test_a_release_quoting_the_measurer_stays_joinable() -> None:
    assert told_apart(MEASURED, RELEASE_QUOTING) is None

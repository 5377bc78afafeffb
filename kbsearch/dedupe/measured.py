"""A title telling a third party's measurement of a system: who measured, what.

"OpenBench measures Korvex 0.9.1 independently", "Korvex 0.9.1 benchmarked by OpenBench",
"OpenBench 实测 Korvex 0.9.1", "OpenBench 对 Korvex 0.9.1 的独立评测": a benchmark group, a lab
or a reviewer runs someone else's engine, model or chip and reports its figures. That is news
of its own (the measurer's run, its setup, its numbers), not news of the release it measures;
yet its record names the release on every line, and the learned decision joined the two (probe
39: a third party's run of a serving engine's point release was taken for the release's UPDATE
at 0.98). ``scores`` reads "MODEL … on BENCH" titles, the model leading and a score in the
title; a measurement is led by the measurer, its figures in the key points, so no score rule
read it.

``scores.title_score`` turns a measurement into a score report of the system on the measurer
(two measurers' runs of one system are two items, as two benchmarks' scores are), marked as
a third party's: beside a record whose title is the system's own news it is another item when
that record never names the measurer (a release quoting the group's run names it).
"""

from __future__ import annotations

import re

from kbsearch.dedupe.subjects import not_a_subject

# The measurer: a capitalised name of up to three words (OpenBench, MLCommons, Artificial
# Analysis, SemiLab Research), a word with a capital or digit in it.
_WHO = r"(?P<who>[A-Z][A-Za-z0-9.&+-]*(?:\s+[A-Z][A-Za-z0-9.&+-]*){0,2})"
# The system measured: a capitalised or coded name, then a version or a size or one more
# capitalised word (Korvex 0.9.1, Tessel-70B, Nimbus NX-2).
_WHAT = (
    r"(?P<what>(?=[A-Za-z0-9.+-]*[A-Z0-9])[A-Za-z][A-Za-z0-9.+-]*"
    r"(?:\s+(?:v?\d[\w.]*|[A-Z][A-Za-z0-9.+-]*))?)"
)
_VERBS = (
    r"(?:independently\s+)?(?:measures|benchmarks|tests|re-?tests|evaluates|profiles|stress-tests|reproduces|re-?runs)"
)
_PATTERNS = (
    re.compile(rf"\s*{_WHO}\s+{_VERBS}\s+(?:the\s+)?{_WHAT}(?![\w.])"),
    re.compile(rf"\s*{_WHAT}\s+(?:independently\s+)?(?:measured|benchmarked|tested|evaluated|profiled)\s+by\s+{_WHO}"),
    re.compile(
        rf"\s*{_WHO}(?:['’]s)?\s+(?:independent\s+|third-party\s+)?(?:benchmark|measurement|evaluation|test)s?"
        rf"\s+of\s+(?:the\s+)?{_WHAT}(?![\w.])"
    ),
    re.compile(rf"\s*{_WHO}\s*(?:独立|第三方)?(?:实测|测评|评测|复测|基准测试)了?\s*{_WHAT}"),
    re.compile(rf"\s*{_WHO}\s*对\s*{_WHAT}\s*的\s*(?:独立|第三方)?(?:实测|测评|评测|复测|基准测试)"),
)


# A title's opening word or a pronoun is no measurer ("An evaluation of …", "It evaluates …").
_NO_MEASURER = frozenset({"a", "an", "the", "it", "this", "we", "our", "their", "its"})
# A class of systems in capitals and a plural s (LLMs, VLMs, GPUs) is none measured: a study of
# a kind of system ("X evaluates LLMs") is a benchmark's own news, not a run of one system.
_CLASS = re.compile(r"[A-Z]{2,}s")


def title_measurement(title: str) -> tuple[str, str] | None:
    """(measurer, system measured), lower-cased, when ``title`` tells a third party's
    measurement; None for any other title, and when the two are one name."""
    for pattern in _PATTERNS:
        match = pattern.match(title)
        if match is None:
            continue
        who, what = match.group("who"), match.group("what")
        head = who.split()[0].lower()
        if head == what.split()[0].lower() or head in _NO_MEASURER or not_a_subject(head):  # its own news; "New …"
            return None
        if _CLASS.fullmatch(what.split()[0]):
            return None
        return who.lower(), what.lower()
    return None

"""The things a release puts out (code, weights, a report, a data set, an API), and the clauses of a
text that name each: one key point often tells two of them at two stages.

"Availability: code is on GitHub now; weights are planned for release in December" and "代码已在
GitHub 公开；权重计划 12 月以研究许可发布" tell the code out and the weights to come, so a later
"weights were published on Hugging Face" moves the weights on, though the passage's latest stage
(the code's release) is as late as the claim's (``stages.moved_on``, probe 50).
"""

from __future__ import annotations

import itertools
import re

ARTEFACT = re.compile(
    r"\b(?:(?:source )?code|codebase|weights|checkpoints?|repo(?:sitory)?|(?:technical|tech) report"
    r"|preprint|white ?paper|data ?sets?|model card|api)\b"
    r"|代码|源码|权重|检查点|仓库|技术报告|白皮书|预印本|数据集|API|接口",
    re.IGNORECASE,
)
"""A thing put out, which a release verb's clause must name (``release_verbs``): not a model, which
nearly every sentence names, nor results, a paper in a journal, a report of any kind (a radiology
report is uploaded to the hospital's system) or an app a user uploads photos to."""
KINDS = {
    "weights": re.compile(r"\b(?:weights|checkpoints?)\b|权重|检查点", re.IGNORECASE),
    "code": re.compile(r"\b(?:(?:source )?code|codebase|repo(?:sitory)?)\b|代码|源码|仓库", re.IGNORECASE),
    "report": re.compile(r"\b(?:report|preprint|white ?paper|paper)\b|报告|预印本|论文", re.IGNORECASE),
    "data": re.compile(r"\bdata ?sets?\b|数据集", re.IGNORECASE),
    "api": re.compile(r"\bAPI\b|接口"),
}
"""The things a key point may tell apart, each with its words in both languages."""
CLAUSE_END = re.compile(r"[，。；;！？!?\n]|[,.:：](?=\s|$)")
"""Where a clause ends: a Chinese comma or stop, a semicolon, or an English comma, stop or colon before a space."""


SENTENCE_END = re.compile(r"[。；;！？!?\n]|\.(?=\s|$)")
"""Where a sentence ends."""


def clause_around(text: str, start: int, end: int, ends_at: re.Pattern[str] = CLAUSE_END) -> str:
    """The clause of ``text`` holding ``text[start:end]``: "weights are planned", not "code is on GitHub now"
    (``ends_at``: where a clause ends; ``SENTENCE_END`` for the sentence)."""
    ends = [m.start() for m in ends_at.finditer(text)]
    first = max((e + 1 for e in ends if e < start), default=0)
    return text[first : min((e for e in ends if e >= end), default=len(text))]


def kinds_named(text: str) -> set[str]:
    """The kinds of thing put out (``KINDS``) that ``text`` names."""
    return {kind for kind, words in KINDS.items() if words.search(text)}


def naming(text: str, kind: str) -> str:
    """The clauses of ``text`` that name ``kind``, joined: what it tells of that thing alone."""
    bounds = [0, *(m.end() for m in CLAUSE_END.finditer(text)), len(text)]
    parts = (text[a:b] for a, b in itertools.pairwise(bounds))
    return "；".join(part for part in parts if KINDS[kind].search(part))

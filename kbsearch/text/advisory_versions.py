"""Versions that are the fact a text states: the releases an advisory says are affected, the one
that fixes it, the one a change ships in.

``textsim.numbers`` leaves versions out (v0.26.0, "fixed in 0.9.3"): a product's version beside a
result is a label, and a new one is no news. Where the version is what the text tells, it is the
figure: "Affected range widened to 0.6.0 through 0.9.2 (was 0.7.0 through 0.9.2)" against a record
whose advisory reads "受影响版本 0.7.0 至 0.9.2" was known at 0.82 with no new figure (issue 25,
probe 46). Here a version is read as such a fact only in a clause that tells what is affected,
vulnerable, fixed or patched (受影响, 修复, 补丁 …); any other mention of a version ("vLLM 0.6.3
adds FP8 support") stays a label. A version is written with three parts or more (0.9.2, 2.14.0.1)
or as v and two (v2.3); a bare two-part decimal is a figure (CVSS 9.8) or a release ``numbers``
already reads. One version in two spellings is one: v0.9.0, 0.9.0 and 0.9.0.0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A year first is a date (2026.11.03), not a version.
_VERSION = re.compile(
    r"(?<![\w.-])(?:[vV](?P<short>\d+\.\d+)|[vV]?(?P<long>(?!(?:19|20)\d\d\.)\d+(?:\.\d+){2,}))(?![\w.]|\.\d)"
)
# Words telling that a clause's versions are an advisory's facts.
_ADVISORY = re.compile(
    r"\b(?:affect(?:s|ed|ing)?|vulnerable|impacted|exposed|fix(?:es|ed)?|patch(?:es|ed)?|resolved|remediated"
    r"|backported|CVE-\d{4}-\d+)\b|受影响|影响(?:范围|版本)|修复|补丁|漏洞版本",
    re.IGNORECASE,
)
# A clause ends at a sentence's stop (not a version's dots), a semicolon, a key point's dash.
_CLAUSE_END = re.compile(r"[。；;！？!?\n]|\.(?=\s|$)|\s[-•]\s")


def _spelled(version: str) -> str:
    """One spelling of a version: no v, no trailing zero parts past the second (0.9.0 → 0.9)."""
    parts = version.lstrip("vV").split(".")
    while len(parts) > 2 and int(parts[-1]) == 0:
        parts.pop()
    return ".".join(str(int(p)) for p in parts)


def _written(text: str) -> dict[str, str]:
    """Each version ``text`` writes, in one spelling (``_spelled``), with how it is first written."""
    found: dict[str, str] = {}
    for m in _VERSION.finditer(text):
        written = m.group("short") or m.group("long")
        found.setdefault(_spelled(written), written)
    return found


def versions(text: str) -> set[str]:
    """Every version ``text`` writes, in one spelling (``_spelled``), whatever it stands for."""
    return set(_written(text))


def advisory_versions(text: str) -> dict[str, str]:
    """The versions ``text`` gives as an advisory's facts, in one spelling, each with how it is
    written: those of a clause telling what is affected, vulnerable, fixed or patched (see the module)."""
    if not _VERSION.search(text):  # most texts: no version at all
        return {}
    found: dict[str, str] = {}
    start = 0
    for end in [m.start() for m in _CLAUSE_END.finditer(text)] + [len(text)]:
        clause = text[start:end]
        start = end + 1
        if _ADVISORY.search(clause):
            found = _written(clause) | found
    return found


def new_versions(claim: str, known_texts: Iterable[str]) -> list[str]:
    """The advisory versions of the claim (``advisory_versions``), as it writes them, that none of
    ``known_texts`` writes anywhere: a changed affected range or another fixed release is news."""
    claimed = advisory_versions(claim)
    if not claimed:
        return []
    known: set[str] = set().union(*(versions(text) for text in known_texts))
    return sorted(written for spelled, written in claimed.items() if spelled not in known)

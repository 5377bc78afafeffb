"""Ids a security registry gives one vulnerability each: CVE-2026-10234,
GHSA-2345-6789-cfgh, RUSTSEC-2025-0042, PYSEC-2025-17.

Like two arXiv ids, two such ids set two records apart: a second vulnerability
of one tool is news, though its advisory reads like the first (the same tool,
the same words: CVE, CVSS, sandbox, patched release). They are compared per
kind (``IdKind``): one vulnerability carries a CVE and a GHSA id, and a record
giving only its CVE is not set apart from one giving only its GHSA id. A record
naming both of two ids (an advisory listing two CVEs) shares one with each, so
it is set apart from neither.

Only ids that name one vulnerability are read. An RFC, an ISO standard or a
CWE class names a protocol or a kind of weakness that many different stories
give as context (an HTTP/3 item cites RFC 9000 and RFC 9114; two advisories of
one bug class share CWE-22), so two of them set nothing apart.
"""

from __future__ import annotations

import re
from enum import StrEnum

from kbsearch.text.folding import normal_form


class IdKind(StrEnum):
    cve = "CVE"
    ghsa = "GHSA"
    rustsec = "RUSTSEC"
    pysec = "PYSEC"


# Not after a letter or digit (nor, for CVE, inside "XCVE"); \b would not do: a CJK
# character is a word character, and "修复CVE-2026-10234" has no boundary before C.
_BEFORE, _AFTER = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
_PATTERNS = {
    IdKind.cve: re.compile(_BEFORE + r"CVE-(\d{4})-(\d{4,7})" + _AFTER, re.IGNORECASE),
    # Any letters and digits, not just GitHub's alphabet (2-9, cfghjmpqrvwx): the prefix
    # is id enough, and a miscopied letter must not hide the id.
    IdKind.ghsa: re.compile(_BEFORE + r"GHSA((?:-[0-9a-z]{4}){3})" + _AFTER, re.IGNORECASE),
    IdKind.rustsec: re.compile(_BEFORE + r"RUSTSEC-(\d{4})-(\d{4})" + _AFTER, re.IGNORECASE),
    IdKind.pysec: re.compile(_BEFORE + r"PYSEC-(\d{4})-(\d+)" + _AFTER, re.IGNORECASE),
}

ADVISORY = "about different advisory ids"
"""How ``advisories_apart`` begins its reason (``rules`` names the kind of ids that set a record apart)."""

AdvisoryIds = frozenset[tuple[IdKind, str]]
"""(kind, id as the registry writes it) pairs."""


def advisory_ids(text: str) -> AdvisoryIds:
    """The advisory ids in ``text``, each in its registry's spelling (CVE-2026-10234, GHSA-2345-6789-cfgh)."""
    text = normal_form(text)  # full-width digits and hyphens
    if "-" not in text:
        return frozenset()
    found: set[tuple[IdKind, str]] = set()
    for kind, pattern in _PATTERNS.items():
        for match in pattern.finditer(text):
            rest = "-".join(match.groups()) if kind is not IdKind.ghsa else match.group(1).lower()[1:]
            found.add((kind, f"{kind.value}-{rest}"))
    return frozenset(found)


def advisories_apart(ours: AdvisoryIds, theirs: AdvisoryIds) -> str | None:
    """Why two records are about different vulnerabilities (each gives an id of a kind the
    other gives too, and no id is in both), else None."""
    if not ours or not theirs or ours & theirs:
        return None
    kinds = {kind for kind, _ in ours} & {kind for kind, _ in theirs}
    if not kinds:
        return None
    mine = sorted(i for kind, i in ours if kind in kinds)
    other = sorted(i for kind, i in theirs if kind in kinds)
    return f"{ADVISORY} ({', '.join(mine)} / {', '.join(other)})"

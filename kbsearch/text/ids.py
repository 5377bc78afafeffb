"""Exact identifiers found in text: arXiv ids, GitHub repos and URLs.

These are the strongest duplicate evidence there is, so they are normalized
once here and compared as plain strings everywhere else. An id is found in
the text as written (NFKC would turn the full-width comma after a link into
one that continues it) and then folded (``kbsearch.text.folding``), in a record
and in a query alike.
"""

from __future__ import annotations

import re

from kbsearch.text.folding import fold, normal_form

# New-style ids are YYMM.NNNNN; the month check keeps dates such as 2026.1234
# and version numbers out.
_NEW_STYLE = re.compile(
    r"(?<![\d.])(?:arxiv\s*[:：]?\s*)?(\d{2})(0[1-9]|1[0-2])\.(\d{4,5})(?:v\d+)?(?!\d)",
    re.IGNORECASE,
)
_OLD_STYLE = re.compile(
    r"(?<![\w/])((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|"
    r"nucl-ex|nucl-th|physics|quant-ph|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
)
_FULL_ID = re.compile(r"^(?:arxiv\s*[:：]?\s*)?(\d{4}\.\d{4,5})(?:v\d+)?$", re.IGNORECASE)
_URL = re.compile(r"https?://[^\s<>\"'）)，。；]+", re.IGNORECASE)
_GITHUB = re.compile(
    r"(?:github\.com/|\bGitHub\s+)([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9])",
    re.IGNORECASE,
)
_REPO_URL = re.compile(r"(?:https?://)?(?:www\.)?github\.com/([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9])/?")
# A letter on each side keeps fractions and dates (1/10.7, 9/18) out.
_BARE_REPO = re.compile(
    r"(?<![^\s,，;；(（])((?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*/(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*[A-Za-z0-9])"
    r"(?![^\s,，;；)）])",
    re.ASCII,
)


def normalize_arxiv_id(raw: str) -> str | None:
    """``arXiv:2607.17715v1`` → ``2607.17715``; None when it isn't an arXiv id."""
    raw = raw.strip()
    match = _FULL_ID.match(raw)
    if match:
        ident = match.group(1)
        return ident if _plausible_month(ident) else None
    old = _OLD_STYLE.fullmatch(raw)
    return old.group(1) if old else None


def _plausible_month(ident: str) -> bool:
    month = int(ident[2:4])
    return 1 <= month <= 12


def extract_arxiv_ids(text: str) -> list[str]:
    """All arXiv ids in ``text``, normalized, in order of first appearance."""
    found: list[tuple[int, str]] = []
    for match in _NEW_STYLE.finditer(text):
        # \d takes any digit, full-width ones too: an id is kept in ASCII.
        found.append((match.start(), normal_form(f"{match.group(1)}{match.group(2)}.{match.group(3)}")))
    for match in _OLD_STYLE.finditer(text):
        found.append((match.start(), normal_form(match.group(1))))
    return _unique(ident for _, ident in sorted(found))


# A whole query token shaped like a new-style id, whatever its month.
_ID_SHAPED = re.compile(r"(?<![\w.])(?:arxiv\s*[:：]?\s*)?(\d{4}\.\d{4,5})(?:v\d+)?(?![\w.])", re.IGNORECASE)


def query_arxiv_ids(query: str) -> list[str]:
    """The arXiv ids a query asks for: those ``extract_arxiv_ids`` finds, plus
    any token shaped like a new-style id whatever its month (2699.99999). In
    running text such a token may be a version or a date, but a query token
    of that shape is meant as an id, and the user should hear that no record
    carries it rather than get unrelated results."""
    query = normal_form(query)  # a query typed in full width: ２６０７．１７７１５
    shaped = [m.group(1) for m in _ID_SHAPED.finditer(query)]
    return _unique([*extract_arxiv_ids(query), *shaped])


def extract_urls(text: str) -> list[str]:
    return _unique(fold(m.group(0).rstrip(".,;:")) for m in _URL.finditer(text))


def extract_github_repos(text: str) -> list[str]:
    return _unique(fold(m.group(1)).removesuffix(".git") for m in _GITHUB.finditer(text))


# A bare owner/repo in a record is most often two words (input/output, TCP/IP,
# and/or, 2D/3D: hundreds in the dev digests); it counts as a repo only where
# the writer says so: after a word naming a repository ("Repository:", "repo",
# "code at", "开源在", "仓库", "代码："), or in parentheses right after the name
# it holds ("OpenHands 1.0 (All-Hands-AI/OpenHands)").
_REPO_CUE = re.compile(
    r"(?:(?<![A-Za-z])(?:repository|repo|code|github)|仓库|代码|源码|开源[在于]?)\s*(?:[:：]|at|in|on)?\s*$",
    re.IGNORECASE,
)
# The bare pattern, also after a colon: "仓库：o/r" is written without a space.
_RECORD_BARE_REPO = re.compile(
    _BARE_REPO.pattern.replace("(?<![^\\s,，;；(（])", "(?<![^\\s,，;；(（:：])", 1), re.ASCII
)
_CUE_CHARS = 24
_NAME_CHARS = 30


def record_github_repos(text: str) -> list[str]:
    """The repos a record's ``text`` carries: those ``extract_github_repos``
    finds, then each bare ``owner/repo`` the text marks as a repo (above)."""
    bare: list[str] = []
    for match in _RECORD_BARE_REPO.finditer(text):
        start, repo = match.start(), match.group(1)
        named = (
            start > 0 and text[start - 1] in "(（" and _names(text[max(0, start - 1 - _NAME_CHARS) : start - 1], repo)
        )
        if named or _REPO_CUE.search(text[max(0, start - _CUE_CHARS) : start]):
            bare.append(fold(repo).removesuffix(".git"))
    return _unique([*extract_github_repos(text), *bare])


def _names(before: str, repo: str) -> bool:
    """``before`` ends with the repo's name (and perhaps a version): "OpenHands
    1.0 (All-Hands-AI/OpenHands)", and the repo is no pair of plain words
    ("decode (prefill/decode)")."""
    owner, name = repo.split("/", 1)
    name = name.removesuffix(".git")
    if _PLAIN_WORD.fullmatch(owner) and _PLAIN_WORD.fullmatch(name):
        return False
    return re.search(rf"(?<![\w/]){re.escape(name)}(?:\s+v?\d[\w.]*)?\s*$", before, re.IGNORECASE) is not None


_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]*")


def github_repo_of(url: str) -> str | None:
    """``owner/repo`` when ``url`` is a GitHub repository's own address
    (``https://github.com/o/r``, with or without ``/`` or ``.git``), else None:
    a deeper link (an issue, a file) names more than the repo."""
    match = _REPO_URL.fullmatch(url)
    return fold(match.group(1)).removesuffix(".git") if match else None


def bare_repos(query: str) -> list[str]:
    """Whole query tokens shaped like ``owner/repo`` (WeianMao/triattention),
    folded. They may be a repo or two words (prefill/decode): the caller
    takes them as a repo only when a record carries one."""
    return _unique(fold(m.group(1)).removesuffix(".git") for m in _BARE_REPO.finditer(query))


def _unique(items) -> list[str]:  # type: ignore[no-untyped-def]
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def ids_alone(query: str) -> bool:
    """The query is arXiv ids and nothing else (``2610.02345``, ``arXiv:2607.17715v1,
    2608.01526``): it asks for those papers' records, and a record carrying none of
    them is no answer, however near (search, and so the CLI, the TUI and serve)."""
    tokens = [t for t in re.split(r"[\s,;]+", query) if t]
    return bool(tokens) and all(normalize_arxiv_id(t) for t in tokens)

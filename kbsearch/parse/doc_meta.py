"""A living doc's lines that say nothing but who keeps it and when: the maintainer, the
last-updated date, the scope of what it holds ("> 维护：E2 晚间接力 · 最后更新：2026-11-01 ·
只收已入库条目"). A section holding only such lines under the doc's title is no record: two
docs' preambles read as one item to ``audit`` (same item 1.00), and searches find them as noise.

A line is such metadata when it names a maintainer, author or status (``维护：``,
``Maintainer:``) or states the last-updated date, and holds no arXiv id and no figure
besides that date: a preamble stating a result or citing a paper stays a record.
"""

from __future__ import annotations

import re
import unicodedata

from kbsearch.text.ids import extract_arxiv_ids
from kbsearch.text.textsim import numbers

_MARKUP = re.compile(r"^[>*_\s-]+|[*_]+")
_FIELDS = re.compile(r"[·•|｜]")
_KEY = re.compile(
    r"^(?:维护(?:者|人|方)?|负责人|作者|编者|编辑|状态|版本|owners?|maintainers?|maintained\s+by|authors?|editors?"
    r"|status|version)\s*[:：]",
    re.IGNORECASE,
)


def metadata_only(text: str, updated: re.Pattern[str]) -> bool:
    """Every line of ``text`` is metadata (see the module); ``updated``: the doc's
    last-updated pattern (``doc._UPDATED``)."""
    lines = [unicodedata.normalize("NFKC", line).strip() for line in text.split("\n")]
    return all(_metadata_line(line, updated) for line in lines if line)


def _metadata_line(line: str, updated: re.Pattern[str]) -> bool:
    plain = _MARKUP.sub("", line)
    fields = [f.strip() for f in _FIELDS.split(plain)]
    if not any(_KEY.match(f) for f in fields) and not updated.search(plain):
        return False
    return not extract_arxiv_ids(plain) and not numbers(updated.sub(" ", plain))

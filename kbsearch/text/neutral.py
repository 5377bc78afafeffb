"""A query's terms that a record in the other language writes alike.

A Chinese record and an English one about the same item share what neither
language translates: names (OrroWeave, DeepSeek-V4), hardware (B200, H100),
acronyms (RAG, TTFT) and figures (57%, 2.8x). In a query holding Chinese,
every Latin token is such a term (an English record may hold ``decode`` as
well as ``B200``); in an English query only those shapes are, since a
Chinese record writes ``decode`` as 解码. Hybrid search scores a record in
the other language on these terms apart (``kbsearch.search.ranking``), and
finds candidates by them apart (``kbsearch.search.candidates``): mixed with
a dozen Chinese trigrams, or English words, they weighed little, and a
record holding every one of them lost to look-alikes in the query's language.
"""

from __future__ import annotations

import re

from kbsearch.text.folding import fold
from kbsearch.text.textsim import is_coined

_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")

# A record in the other language is scored on the neutral terms apart only
# when the query holds at least this many: one or two (a year, "Tom") are
# found by chance in unrelated sentences; the parallel sets' queries rarely
# hold three, a briefing's description query (model, hardware, figure) does.
MIN_NEUTRAL_TERMS = 3


def is_neutral(token: str, query_has_cjk: bool) -> bool:
    """Whether a query's (non-CJK) token is written alike in both languages."""
    if query_has_cjk:
        return any(ch.isascii() and ch.isalnum() for ch in token)
    letters = [ch for ch in token if ch.isalpha()]
    acronym = len(letters) >= 2 and all(ch.isupper() for ch in letters)
    return any(ch.isdigit() for ch in token) or acronym or is_coined(token)


def neutral_terms(tokens: list[str], query_has_cjk: bool) -> list[str]:
    """The neutral ones of a query's tokens, folded, once each."""
    found = [fold(t) for t in tokens if not _CJK.search(t) and is_neutral(t, query_has_cjk)]
    return list(dict.fromkeys(found))

"""A record that says what it is not: "(not related to Pellucid's Kestrel server)", "与 X 无关".

Two things may share a name: a client library and a server both called Kestrel, by different
makers. A writer who knows it says so, and a repeat of the other thing does not come from a
record that disowns it. Probe 32: the library's record, whose first key point said it was not
related to the maker's server of that name, was taken for the server's record (0.59), the
shared name and the MCP topic outweighing the denial.

What is disowned is a namesake: the denial gives the name the record's own title carries and a
further one, the maker ("Pellucid's"). A record whose title carries both is the thing disowned.
The shared name alone tells nothing, so an earlier record of the library itself, titled by that
name, stays its repeat.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kbsearch.dedupe.features import latin_names
from kbsearch.text.function_words import FUNCTION_WORDS
from kbsearch.text.plain_names import GENERIC, mentions, words_mentioned

# The denial and what follows it, up to a bracket, a stop or a clause's comma.
_THING = r"([^()（）\[\]【】,，;；.。:：!！?？\n]{1,60})"
_DISOWNS = re.compile(
    r"(?i:\b(?:not\s+(?:related|affiliated|connected)\s+(?:to|with)|unrelated\s+to|no\s+relation\s+to"
    r"|not\s+to\s+be\s+confused\s+with|(?:do\s+)?not\s+(?:be\s+)?confused?\s+(?:it\s+)?with)\s+)"
    + _THING
    + r"|与\s*"
    + _THING.replace("{1,60}", "{1,40}?")
    + r"\s*(?:无关|没有关系|并无关系|不是同一)"
    + r"|(?:并非|并不是|不是)\s*"
    + _THING
)
# An English denial's object ends at the first function word ("… server for calling …").
_ENDS = re.compile(r"\s(?:" + "|".join(sorted(FUNCTION_WORDS - {"the", "a", "an"})) + r")\s", re.IGNORECASE)


@lru_cache(maxsize=4096)  # a check reads its item's text against each candidate, both ways round
def disowned_names(text: str) -> frozenset[str]:
    """The names ``text`` says it is not, lower-cased: each capitalised or coined word of
    what follows "not related to", "unrelated to", "not to be confused with", or stands
    in "与 X 无关", "不是 X", but the trade's terms (``GENERIC``)."""
    found: set[str] = set()
    for m in _DISOWNS.finditer(text):
        thing = next(g for g in m.groups() if g)
        thing = _ENDS.split(f" {thing} ")[0]
        found |= mentions(thing) | latin_names(thing)
    return frozenset(found - GENERIC)


def disowns(text: str, title: str, other_title: str) -> str | None:
    """Why a record (its ``text`` and ``title``) is not the item titled ``other_title``: it
    disowns a namesake, a thing named by a name both titles carry, and by a further name (its
    maker's) the other title carries too; or None. A denial naming nothing of its own title
    ("not affiliated with the vLLM project") disowns no namesake: a host or a partner, whose
    record may well be this item's."""
    if not other_title.strip():
        return None
    names = disowned_names(text)
    if not names:
        return None  # most records disown nothing: the titles' words are not read then
    ours, theirs = words_mentioned(title), words_mentioned(other_title)
    extra = sorted((names - ours) & theirs)
    if not extra or not names & ours & theirs:
        return None
    return f"one record says it is not the namesake the other's title names ({', '.join(extra)})"

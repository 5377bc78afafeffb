"""A name a title sets its item on is not the item.

A model family or engine is named by much unrelated news: "阿里云百炼下调 Qwen3 系列输入价格"
(a price cut) and "Medusa-3 heads for Qwen3" (draft heads for speculative decoding) both
name Qwen3, and in a small index Qwen3 is rare, so the shared name made them one item
(the learned decision weighs a rare shared name heavily). Qwen3 is there what the item is
for, on or done to: the item is the thing done, Medusa-3's heads, or the price cut.

So when every coined name the two titles share stands, in one of them, after a word that
makes it the item's platform or object ("for Qwen3", "into SGLang", "为 Qwen3", "下调 Qwen3"),
and that title names a system of its own (Medusa-3) that the other record never mentions,
the two are two items. A repeat of the Medusa-3 news names Medusa; a record about Qwen3
itself does not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kbsearch.dedupe.features import latin_names
from kbsearch.dedupe.named_systems import systems_only, versioned_names
from kbsearch.dedupe.subjects import mentions

_NAME = r"[A-Za-z0-9][A-Za-z0-9²³\-+.]*"
# English: the name after a preposition of place or purpose ("heads for Qwen3", "lands in
# vLLM", "merged into SGLang", "runs on TPU"); Chinese: after a verb doing something to or
# for it ("为 Qwen3 训练", "支持 Qwen3", "下调 Qwen3 系列价格").
_PLATFORM = re.compile(
    rf"(?:\b(?:for|on|onto|into|in|inside|atop|across|to)\s+(?:the\s+)?({_NAME})"
    rf"|(?:为|给|对|支持|适配|接入|基于|用于|下调|上调|降低|提高)\s*({_NAME}))"
)
# A capitalised name told by a number after a hyphen (Medusa-3, Llama-4): no coined shape.
_NUMBERED = re.compile(r"(?<![A-Za-z0-9])([A-Z][a-z]{2,})-\d+(?:\.\d+)?(?![A-Za-z0-9])")


def platform_names(title: str) -> frozenset[str]:
    """The coined names a title sets its item on or does it to, lower-cased."""
    found: set[str] = set()
    for match in _PLATFORM.finditer(title):
        found |= latin_names(match.group(1) or match.group(2))
    return frozenset(found)


@lru_cache(maxsize=1 << 13)  # read for both titles of every pair, check after check
def title_names(title: str) -> frozenset[str]:
    """The systems a title names, lower-cased: coined names, versioned products and
    capitalised names told by a number (Medusa-3), sizes and hardware left out."""
    numbered = {m.group(1).lower() for m in _NUMBERED.finditer(title)}
    return systems_only(frozenset(latin_names(title) | versioned_names(title) | numbered))


def platform_only(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records with these (title, lower-cased title, text and key points) are two
    items, or None: the names their titles share are each, in one title, its platform
    or object, and a title names a system of its own the other record never mentions."""
    (our_title, our_text), (their_title, their_text) = item, known
    ours, theirs = title_names(our_title), title_names(their_title)
    shared = ours & theirs
    if not shared or not shared <= platform_names(our_title) | platform_names(their_title):
        return None
    for names, title, other in ((ours, our_title, their_text), (theirs, their_title, our_text)):
        own = sorted(names - shared - platform_names(title))
        if own and not any(mentions(other, name) for name in own):
            return (
                f"the titles share only {', '.join(sorted(shared))}, named as what an item is for or done to, "
                f"not the item; {', '.join(own)}, which a title names, the other record never mentions"
            )
    return None

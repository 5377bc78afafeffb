"""Two records that name different systems are two items.

A system's name (TriAttention, PolarKV, TGI) is written alike in Chinese and
English text, and a repeat names what it repeats, however it rewords the
rest. So when a title names a rare system that the other record never
mentions, and the other names a rare system of its own that this one never
mentions, no learned score makes them one item: two KV-cache papers read
alike on every topic word, and may even share a generic key point ("a vLLM
plugin that leaves model code alone").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Named:
    """The coined names a record carries, as the rule reads them."""

    title: frozenset[str]
    """The title's rare names (held by few known records)."""
    every: frozenset[str]
    """Every coined name anywhere (title, text, key points), rare or not."""
    is_rare: Callable[[str], bool]
    """Asked only for the few names the rule weighs: each is a lookup in the store."""


def names_differ(item: Named, known: Named) -> str | None:
    """Why ``item`` and ``known`` are two items by the systems they name, or None.

    Either title may carry the name: an item titled for its technique
    ("用极坐标量化压缩 KV Cache") names its system (PolarKV) only in its text."""
    if item.title & known.every or known.title & item.every:
        return None  # one names what the other's title names: no conflict
    if item.title:
        theirs = f" / {', '.join(sorted(known.title))}" if known.title else ""
        return f"a title names what the other record never mentions ({', '.join(sorted(item.title))}{theirs})"
    ours = sorted(n for n in item.every - known.every if item.is_rare(n)) if known.title else []
    if ours:
        return (
            f"the other's title names {', '.join(sorted(known.title))}, never mentioned here, "
            f"and this one names {', '.join(ours)}, never mentioned there"
        )
    return None

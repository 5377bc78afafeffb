"""One coined name written two ways: two letters swapped, or a plural ``s``.

A writer's typo ("HiCahce" for HiCache, probe 28) made the named-systems rule read
two systems, each "never mentioned" by the other, and a near-verbatim repeat came
back NEW against a learned score of 1.00. Only the two slips that keep every letter
count as one name: two adjacent letters swapped, and a trailing ``s`` (the plural a
sentence gives a name). A letter changed, added or dropped elsewhere is another
name: the arXiv digests hold many real pairs one letter apart (FlashMLA and
FlashVLA, MiniRAG and MindRAG, CheXbert and CheXpert, TrustLLM and TrustVLM),
while the only swapped pair in them is a typo (RosGaurd for RosGuard).

Short names are left alone: in four or five letters a swap can make another real
name, and a digit is a version or a size (Qwen2 against Qwen3), never a slip.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

SHORTEST = 6
"""Names shorter than this are compared as written."""


def one_name(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (lower-cased names) are one name, written with a slip."""
    if a == b:
        return True
    if min(len(a), len(b)) < SHORTEST or any(c.isdigit() for c in a + b):
        return False
    if len(a) != len(b):
        short, long = sorted((a, b), key=len)
        return long == short + "s"
    apart = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return len(apart) == 2 and apart[1] == apart[0] + 1 and a[apart[0]] == b[apart[1]] and a[apart[1]] == b[apart[0]]


def _may_slip(name: str) -> bool:
    """Whether ``name`` can be one name with another written differently (``one_name``)."""
    return len(name) >= SHORTEST and not any(c.isdigit() for c in name)


def spelled_as(names: Iterable[str], other: Iterable[str]) -> frozenset[str]:
    """``names``, each written as ``other`` writes it when ``other`` holds it with a slip."""
    theirs = frozenset(other)

    def spelled(name: str) -> str:
        # Only a name that may slip is looked for, and only as the few names ``one_name``
        # reads as it (``slips_of``), in ``other``'s order when more than one is there: the
        # first found is the one ``one_name`` over every pair finds. The rules ask this of
        # every candidate pair; scanning ``other``'s names was a twentieth of a warm check.
        if name in theirs:
            return name
        found = _slips(name) & theirs
        if len(found) > 1:
            return next(o for o in theirs if o in found)
        return next(iter(found)) if found else name

    return frozenset(spelled(n) for n in names)


@lru_cache(maxsize=1 << 16)
def _slips(name: str) -> frozenset[str]:
    """``slips_of`` a name that may slip, else none: made once a name, where a check asked it
    again for every pair the name was in (an item's names 35 times, a candidate's each check)."""
    return frozenset(slips_of(name)) if _may_slip(name) else frozenset()


def slips_of(name: str) -> list[str]:
    """Every other name that ``one_name`` reads as ``name`` (one that may slip): two adjacent
    letters swapped, a plural ``s`` added, or one taken off when what is left may slip too."""
    swaps = [name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(len(name) - 1) if name[i] != name[i + 1]]
    singular = [name[:-1]] if name.endswith("s") and _may_slip(name[:-1]) else []
    return [*swaps, name + "s", *singular]

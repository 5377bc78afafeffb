"""Which accelerator a figure was measured on: "在 H200 上 decode 加速 2.4 倍" does not
restate a record's "在 H100 上 decode 加速 2.4 倍", though the figure is the same.

A claim naming an accelerator (H200, A100, B200, GB200, MI300X, L40S, RTX 4090) has a
figure measured elsewhere when every sentence of a record that gives the figure names
accelerators too, and none of the claim's: the record measured it on other hardware.
A sentence naming no accelerator says nothing of where (the claim may add the detail),
and a model size needs no such rule: ``numbers`` reads 70B as a figure already.
"""

from __future__ import annotations

import re

from kbsearch.text.qualified_figures import given_otherwise

_ACCELERATOR = re.compile(r"(?<![A-Za-z0-9_-])(?:[ABHLV]|GB|MI|RTX\s?)\d{2,4}[A-Z]?(?=s?(?![A-Za-z0-9_]))")


def accelerators(text: str) -> frozenset[str]:
    """The accelerators ``text`` names, in capitals without spaces (``RTX4090``)."""
    return frozenset(m.group(0).replace(" ", "").upper() for m in _ACCELERATOR.finditer(text))


# A kind of chip and its generation (TPU v7, TPU v8p, MTIA v2): Google's and Meta's accelerators are
# named so, and each generation is a chip of its own (v5e and v5p are two).
# A title about two generations may list them after one kind ("TPU v7 and v8p", "TPU v5e/v5p").
_GENERATION = r"v\d{1,2}[a-z]?(?![A-Za-z0-9_.-])"
_CHIP_GENERATION = re.compile(
    rf"(?<![A-Za-z0-9_-])([TNLIDX]PU|MTIA)\s?({_GENERATION}(?:\s*(?:/|,|、|和|与|及|\band\b|\bor\b|&)\s*{_GENERATION})*)"
)
# A memory generation (HBM3E, HBM4, HBM4E, GDDR7, LPDDR5X): what a memory maker's news is about.
_MEMORY = re.compile(r"(?<![A-Za-z0-9_-])(?:HBM|GDDR|LPDDR|DDR)\d[A-Za-z]?(?![A-Za-z0-9_])")


def title_hardware(title: str) -> frozenset[str]:
    """The hardware a title names: its accelerators (``accelerators``), chips named by kind and
    generation (``TPU v8p``, however spaced) and memory generations in capitals (``HBM4E``)."""
    chips = {f"{kind} {v}" for kind, listed in _CHIP_GENERATION.findall(title) for v in re.findall(r"v\w+", listed)}
    return accelerators(title) | frozenset(chips) | frozenset(m.group(0).upper() for m in _MEMORY.finditer(title))


def other_hardware(title: str, text: str) -> frozenset[str] | None:
    """The hardware ``text`` names when it and ``title`` both name some, none in common (a
    record or a section's lines on other hardware than the title's), else None."""
    ours, theirs = title_hardware(title), title_hardware(text)
    return theirs if ours and theirs and not ours & theirs else None


def on_other_hardware(claim: str, texts: list[str]) -> set[str]:
    """The claim's figures that ``texts`` (records' texts) give only for other accelerators
    than the claim names (see the module, and ``qualified_figures``); none when the claim
    names no accelerator."""
    return given_otherwise(claim, texts, accelerators)


def measured_on_others(claim: str, record: str) -> bool:
    """Whether the claim names accelerators and ``record`` (a record's text) names others only:
    "v0.3 在单张 H200 上支持 2M token" against a record of H100s. A record naming none says
    nothing of where (the claim may add the detail)."""
    mine = accelerators(claim)
    if not mine:  # most claims
        return False
    theirs = accelerators(record)
    return bool(theirs) and not theirs & mine

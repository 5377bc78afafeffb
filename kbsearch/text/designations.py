"""Products named by a word and a model letter: Rover-M, Kestrel-X.

``features.latin_names`` reads a coined name by its shape, and a one-letter part is no
name there (the "v" of a version, the "s" of "LLM-s"); ``plain_names`` reads two plain
words joined by a hyphen (Quill-Vision). A maker's product line written as a plain word and
one capital letter is read by neither, so a Chinese title on a company's Rover-M fleet named
nothing, and the living-doc entry naming that fleet, with its mean time between failures, was
never read as the item's line: the key point repeating that figure was called new (probe 47).
Read here only where a title's names meet a doc section's (``finer.item_names``,
``finer.named_in``), not by the rules that tell two items apart.
"""

from __future__ import annotations

import re

from kbsearch.text.plain_names import ordinary

_DESIGNATION = re.compile(r"(?<![A-Za-z0-9\-_.+²³])([A-Z][a-z]{2,})-[A-Z](?![A-Za-z0-9\-_+²³]|\.[A-Za-z0-9])")
"""A capitalised word, a hyphen and one capital letter, not part of a longer word ("Non-I.I.D.")."""


def designations(text: str) -> frozenset[str]:
    """The word-and-letter product names of ``text``, lower-cased: "rover-m" of "Rover-M 车队".
    Not one led by an ordinary word or a term of the trade ("Top-K", "Agent-X", "Non-I")."""
    return frozenset(m.group(0).lower() for m in _DESIGNATION.finditer(text) if not ordinary(m.group(1).lower()))

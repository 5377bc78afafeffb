"""What a record's sources name, read as its mentions when two titles lead with one coined name.

A title may give the maker beside the name it leads with ("NimbusCast — Kestrel 大气实验室的全球
预报"), and a retelling of the same item gives the maker only in its 来源 line ("Kestrel
Atmospheric Lab revised technical report") and names in its title what it adds ("NimbusCast
scorecard re-verified against ERA-R2"). The names rule read "each title names what the other never
mentions (era / kestrel)" and set the two apart (probe 45), because a sources line is no text the
rule reads: a venue (GitHub, a vendor's blog, a hub) names no subject of the record, in general.

When both titles lead with the same coined name, they are on one named thing, and a name one title
gives beside it that both records' sources give is where the thing comes from (its lab, its
maker), not another system. So for such a pair the names both records' sources give count as
mentions of each (``named_systems.respelled``). Two systems of one lab lead with different names,
so the lab both sources give never joins them; two items on one system ("LMCache ships a Valkey
store" beside "LMCache 接入 SGLang") stay apart unless both sources name what each title adds; what
a source line labels as a dependency or a comparison ("based on: X", "benchmark: Y") is left out
(``parse.source_labels``).
"""

from __future__ import annotations

import re

from kbsearch.parse.source_labels import about_part
from kbsearch.text.ordinals import is_ordinal, ordinal_words
from kbsearch.text.plain_names import words_mentioned
from kbsearch.text.textsim import is_coined

# The first word of a title, hyphenated parts allowed (NimbusCast, Gyre-Embed).
_HEAD = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)")


def coined_head(title: str) -> str | None:
    """The coined name a title begins with, lower-cased (NimbusCast of "NimbusCast scorecard
    re-verified"), or None: a plain first word ("Update", "Halcyon") names no system by its shape."""
    match = _HEAD.match(title)
    if match is None or not any(is_coined(part) for part in match.group(1).split("-")):
        return None
    if is_ordinal(match.group(1)) or match.group(1).lower() in ordinal_words(title):
        return None  # a phase leads it ("IIa 期顶线…"): no name (``ordinals``)
    return match.group(1).lower()


def source_names(sources: list[str]) -> frozenset[str]:
    """Every Latin word the sources give for where the record comes from, lower-cased, as
    ``plain_names.words_mentioned`` reads a text; labelled dependencies and comparisons left out."""
    return words_mentioned("\n".join(about_part(source) for source in sources))

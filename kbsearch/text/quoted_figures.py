"""A figure a text quotes to set its own against: "a 28% drop, below the 35% in the release note",
"只下降 28%，低于官方所说的 35%", "fell 22 minutes a day, against the vendor's 38", "每天减少 22 分钟，厂商口径为
38 分钟".

``SET_AGAINST`` is the words right before such a figure (``quantities.set_against`` reads the figures
after them). A source's figure is one: the vendor's, the maker's, 厂商口径, 厂商公布的 (probe 50 had
"减少 22 分钟，厂商口径为 38 分钟" known from a record's 38 minutes, the 22 taken for detail).

``elided_unit``: a quoted figure often leaves out the unit of the figure it is set against ("fell 22
minutes a day, against the vendor's 38"); it is in that unit, as the ends of a range written with one
unit are (``ranges``). Only a bare number right after words that compare it (against, versus, 相比,
而非) or give it as a source's that closes its clause (nothing after it names what it counts: "against
12 baselines" counts baselines), with the figure right before it in its sentence written with a unit
("FID 2.38-2.64 vs. 2.27" after "<2%" is no 2.27%); not a year, nor a magnitude's unit (``k``, ``万``),
which reads with the words after it. A bound alone ("误差低于 0.09") often bounds another quantity.
Probe 50 had "the vendor's 38" a new figure against "厂商口径为 38 分钟".
"""

from __future__ import annotations

import re

# A source's figure: "the vendor's 38", "its maker's own figure of 38", 厂商口径为 38 分钟, 厂商公布的 31%.
_SOURCE = (
    r"\b(?:the\s+|its\s+|their\s+)?(?:vendor|maker|manufacturer|supplier|developer|provider)(?:'s|’s|s'|s’)\s+"
    r"(?:own\s+)?(?:(?:figure|number|estimate|claim)\s+(?:of\s+)?)?"
    r"|(?:厂商|厂家|供应商|开发商|开发方|发布方|官方)的?(?:口径|说法)的?\s*(?:是|为)?\s*"
    r"|(?:厂商|厂家|供应商|开发商|开发方|发布方)(?:所说|所称|宣称|声称|公布|给出|报告)的?\s*(?:是|为)?\s*"
)
_QUOTED = (
    r"\b(?:the\s+)?(?:official|reported|claimed|advertised)\s+|官方(?:所说|所称|宣称|声称|给出|公布|报告)?的?\s*(?:是|为)?\s*"
    rf"|{_SOURCE}"
)
_COMPARED = r"\b(?:versus|vs\.?|unlike|compared (?:with|to)|against)\s*|(?:相比|对比|而非|不同于)\s*"
_BOUND = r"\b(?:below|above|lower than|higher than|short of)\s*|(?:低于|高于|不及|不如)\s*"
SET_AGAINST = (
    rf"(?:{_COMPARED}|{_BOUND})(?:the\s+)?(?:(?:official|reported|claimed|advertised|announced|published)\s+|{_SOURCE})?"
    rf"|{_QUOTED}"
)
"""Words by which a text sets a figure against another of its own or gives it as another source's.
Not "比": "比基线高 5%" compares with a baseline."""

# A figure that leaves its unit out is compared or quoted; one after a bound alone ("误差低于 0.09",
# "under 0.09") often bounds another quantity than the figure before it.
_ELIDED_BEFORE = re.compile(
    rf"(?:(?:{_COMPARED})(?:the\s+)?(?:(?:announced|published)\s+)?|(?:{_BOUND})?(?:the\s+)?(?:{_QUOTED}))$",
    re.IGNORECASE,
)
_QUOTED_WITHIN = 48
_CLOSES_CLAUSE = re.compile(r"[^\S\n]*(?:$|[\n,;:!?)\]，。；：！？）、(（]|\.(?!\d))")
_SENTENCE_BETWEEN = re.compile(r"[。！？!?;；\n]|(?<!\bvs)\.(?=\s|$)", re.IGNORECASE)
_YEAR = re.compile(r"(?:19|20)\d\d")
_MAGNITUDES = frozenset(
    {"k", "m", "b", "t", "thousand", "million", "billion", "trillion", "千", "万", "亿", "百万", "千万", "万亿"}
)


def elided_unit(text: str, start: int, end: int, earlier: tuple[int, str] | None) -> str:
    """The unit the bare number ``text[start:end]`` leaves out, set against the figure before it,
    ``earlier`` = (where that ends, the unit it is written with), in the same sentence (see the
    module); or ``""``."""
    if earlier is None or not earlier[1] or _YEAR.fullmatch(text[start:end]):
        return ""
    earlier_end, unit = earlier
    if unit in _MAGNITUDES or not _CLOSES_CLAUSE.match(text, end) or _SENTENCE_BETWEEN.search(text, earlier_end, start):
        return ""
    return unit if _ELIDED_BEFORE.search(text[max(earlier_end, start - _QUOTED_WITHIN) : start]) else ""

"""Figures a text gives as another named system's, in a comparison.

"成功率 66.7%，超过 Halcyon-VLA v1.1 的 63.0%" gives 66.7% as the item's result and 63.0% as
what it is compared with: the other system's figure. Read only where a word of comparison
names the system and the figure is written as that system's:
- in Chinese, the name and 的 before the figure (超过 X 的 63.0%, 对比 X 的 63.0%, 比 X 的 63.0% 高,
  高于 X 的成功率 63.0%: a few characters may name what the figure measures);
- in English, the name's possessive or the figure in brackets after the name (than X's 63.0%,
  "beats X's score of 63.0%", "vs. X (63.0%)").
"Ahead of X at 63.0%" and "beats X with 66.7%" are left out: "at" and "with" can give the
item's own figure as well as the other's. Whether the figure is new to the records is not
read here (``dedupe.their_figures``): this module says only whose the text says it is.
"""

from __future__ import annotations

import re

from kbsearch.text.textsim import substantive_numbers

_NAME = r"(?P<name>[A-Z][A-Za-z0-9²³+.\-]*(?:\s+(?:[vV]?\d[A-Za-z0-9.+\-]*|[A-Z][A-Za-z0-9+.\-]*)){0,3}?)"
"""A system's name: a word beginning with a capital, and up to three more of its words that are
a version, a size or another capitalised word (Halcyon-VLA v1.1, Llama 3 70B). Not a word
beginning with a digit: "低于 5mm 的比例提升了 18.1%", "超过 64K 的序列" compare with a measure."""
_FIGURE = r"(?P<figure>[~≈约]?\s*\d[\d.,]*\s*(?:%|x|×|倍|分|个点|(?i:[kmb]|thousand|million|billion)\b|千|万|亿)?)"
_COMPARED_ZH = r"(?:超过|超越|高于|低于|优于|胜过|好于|强于|不及|不如|落后于?|领先于?|击败|对比|相比于?|相较于?|较|比)"
_COMPARED_EN = (
    r"(?i:\b(?:than|vs\.?|versus|over|above|below|beats?|beating|outperform(?:s|ed|ing)?|surpass(?:es|ed|ing)?"
    r"|ahead\s+of|behind|trails?|trailing|compared\s+(?:with|to)|against|unlike|relative\s+to)\s+(?:the\s+)?)"
)
_THEIRS = (
    re.compile(rf"{_COMPARED_ZH}\s*{_NAME}\s*的\s*[\u4e00-\u9fff]{{0,6}}?\s*{_FIGURE}"),
    re.compile(rf"{_COMPARED_EN}{_NAME}['’]s\s+(?:[a-z][a-z-]*\s+){{0,3}}?(?:of\s+)?{_FIGURE}"),
    re.compile(rf"(?:{_COMPARED_EN}|{_COMPARED_ZH}\s*){_NAME}\s*[(（]\s*{_FIGURE}\s*[)）]"),
)


def attributed_figures(text: str) -> list[tuple[str, set[str]]]:
    """Each system ``text`` compares with and the figures it gives as that system's (see the
    module), in ``numbers``' spelling: ``[("Halcyon-VLA v1.1", {"63%"})]``."""
    found = []
    for pattern in _THEIRS:
        for m in pattern.finditer(text):
            figures = substantive_numbers(m.group("figure"))
            if figures:
                found.append((m.start("name"), m.group("name").strip(), figures))
    return [(name, figures) for _, name, figures in sorted(found, key=lambda f: f[0])]

"""Currencies: the unit a price, a round or an order is counted in, never a name.

A figure's currency is written as a code (USD, RMB, CNY, EUR, JPY, HKD), a symbol ($, ¥,
€, £) or a Chinese word (美元, 人民币, 元, 欧元); each writer picks one. "an RMB 1.8 billion
compute order" and "¥18 亿 算力订单" are one order: ``textsim.numbers`` reads both as
``1.8b`` and leaves the currency out (¥, RMB, CNY, 人民币 and 元 are one currency as $, USD
and 美元 are), and a price written with any of them is a figure (``money``). A code is written
in capitals like an acronym, and an acronym few records hold reads as a rare system's name:
probe 37 set "Yunhe Zhisuan lands an RMB 1.8 billion compute order" apart from its Chinese
first report ("a title names what the other record never mentions (rmb)"). So the codes
are units (``field_terms.NOT_SYSTEMS``): they neither join two records nor set two apart.
Codes that are also the field's words are left out: SGD the optimiser, CAD the design
software, INR an implicit neural representation, SAR a synthetic-aperture radar, AED an
attention encoder-decoder (the dev digests name the last three in 60 texts, never a currency).
"""

from __future__ import annotations

# ISO 4217 codes of the currencies the trade's news counts in, with RMB and NTD as written.
CODES = frozenset({"usd", "eur", "gbp", "jpy", "cny", "rmb", "cnh", "hkd", "twd", "ntd", "krw", "chf", "aud"})

# Written after a figure in Chinese (3 美元, 4元, 18 亿人民币).
CHINESE = ("美元", "人民币", "欧元", "英镑", "日元", "港元", "港币", "韩元", "美金", "块钱", "元")

# Written before a figure ($3, ¥4, €2, £5, ₩900, ₹80; ￥ is the full-width yen).
SYMBOLS = "$¥￥€£₩₹"


def codes_pattern() -> str:
    """The codes as a regular expression's alternation, in capitals (as written before a figure)."""
    return "|".join(sorted((code.upper() for code in CODES), key=len, reverse=True))

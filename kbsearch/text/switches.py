"""A named value a claim says its item switched to, which no record of the item states.

"许可由 Ardent Community License 改为 Apache-2.0" shares nearly every word with the record's
"许可：Ardent Community License", and the claim decision read it as that line (0.36 ≥ 0.08):
a changed licence, backend or rank came out known, an UPDATE's news lost. A changed figure is
news by ``quantities`` ("changed from 34% to 37%"); this is the same reading for a value that is
a name ("from A to B", "由 A 改为 B", "switches to B", "改用 B") or a rank ("from 4th to 6th",
"由第 4 降至第 6": an ordinal is no figure to ``quantities``).

Only the value's name is read, the first word of B that carries a capital or a digit
(Apache-2.0, FP8, SGLang, 6th): names keep their spelling across languages and writers, so a
retelling in the other language states it too, while words ("线性注意力", "a larger batch") are
reworded and are not read. A B that starts with a bare figure (1271, 4.3 GB) is left to
``quantities``. The switch is news when neither the passage weighed nor any record of the item
writes that name: a record that already tells the switch, or the new value, restates it. The
switch itself is read by ``told_changes`` (``Reading.NAMED``), the one reader of a told change.
"""

from __future__ import annotations

import re

from kbsearch.text.told_changes import Reading, told_changes

_TOKEN = re.compile(r"第\s*(?:\d+|[一二三四五六七八九十]+)|[A-Za-z0-9][A-Za-z0-9_.+\-]*[A-Za-z0-9+]|[A-Za-z0-9]")
_ORDINAL = re.compile(r"^(?:(\d+)(?:st|nd|rd|th)|第\s*(\d+|[一二三四五六七八九十]+))$", re.IGNORECASE)
_CHINESE_DIGITS = {c: i for i, c in enumerate("一二三四五六七八九十", start=1)}
_FIGURE = re.compile(r"^\d")
"""A token starting with a digit that is no ordinal is a figure, with its unit or not (30GB, 1271)."""


def _ordinal(token: str) -> int | None:
    found = _ORDINAL.match(token)
    if found is None:
        return None
    digits = found.group(1) or found.group(2)
    if digits.isdigit():
        return int(digits)
    return _CHINESE_DIGITS.get(digits) if len(digits) == 1 else None


def _value(text: str) -> str | int | None:
    """The name or rank a value starts with (None: a bare figure first, or no name)."""
    for token in _TOKEN.findall(text):
        rank = _ordinal(token)
        if rank is not None:
            return rank
        if _FIGURE.match(token):
            return None  # a figure: ``quantities`` reads it
        if len(token) > 1 and any(c.isupper() or c.isdigit() for c in token):
            return token  # not a lone letter: "O(n log n)" is a bound, not a name
    return None


def _flat(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _states(text: str, value: str | int) -> bool:
    """Whether ``text`` writes the value: the name however joined, the rank as an ordinal."""
    if isinstance(value, int):
        return any(_ordinal(t) == value for t in _TOKEN.findall(text))
    return _flat(value) in _flat(text)


def switched(claim: str, passage: str, records: list[str]) -> str | None:
    """ "<A> → <B>" when the claim says its item switched to a named value or rank B that
    neither ``passage`` nor any of ``records`` (its item's texts) writes; else None."""
    for start, after in told_changes(claim, Reading.NAMED):
        value = _value(after)
        if value is None or any(_states(text, value) for text in (passage, *records)):
            continue
        before = start.strip()
        shown = after.strip()[:40]
        return f"{before[:40]} → {shown}" if before else f"→ {shown}"
    return None

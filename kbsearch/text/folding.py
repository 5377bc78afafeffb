"""One form of text for matching: what a query and a record are compared in.

People type the same thing several ways: ``ＫＶ　ｃａｃｈｅ`` in a Chinese
input method's full-width mode, ``c2kv`` for C²KV, ``KV`` or ``kv``. Matching
compares both sides in one form, ``fold``: Unicode NFKC (full-width letters,
digits and punctuation become ASCII, superscripts and subscripts become
digits, compatibility ideographs become the unified ones, ligatures are
split), then lower case. The lexical index stores each record's text folded,
and every query term is folded the same way, so the two can only agree.

Folding changes lengths (``…`` becomes ``...``), so a snippet that marks
matches in the original text matches in the folded text and maps each match
back through ``fold_offsets``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def normal_form(text: str) -> str:
    """``text`` in NFKC, case kept (a coined name is told by its capitals)."""
    if text.isascii():  # the common case: NFKC leaves ASCII as it is
        return text
    return unicodedata.normalize("NFKC", text)


def fold(text: str) -> str:
    """``text`` as it is matched: NFKC, then lower case."""
    return normal_form(text).lower()


def fold_offsets(text: str) -> tuple[str, Sequence[int]]:
    """``text`` folded, and for each folded character the index of the
    character of ``text`` it came from.

    Characters are folded one at a time here, so a letter and a combining
    mark that NFKC would join stay apart: close enough to mark a snippet.
    """
    lower = text.lower()
    if len(lower) == len(text):  # lower() gives each character one or more: here one each
        if text.isascii() or unicodedata.is_normalized("NFKC", text):
            return lower, range(len(text))
        chars = set(lower)
        _learn(chars)
        if chars.isdisjoint(_WIDE):
            # A Chinese text changes in a few kinds of character (，：（）): replace each kind.
            for ch in chars.intersection(_ONE):
                lower = lower.replace(ch, _ONE[ch])
            return lower, range(len(text))
    pieces = [fold(ch) for ch in text]
    return "".join(pieces), [i for i, piece in enumerate(pieces) for _ in piece]


# Characters folded so far: those that fold to another single character
# (ａ → a, ² → 2, ， → ,), and those that fold to several (… → ...). A
# snippet's text holds a few hundred distinct characters; each is folded once.
_ONE: dict[str, str] = {}
_WIDE: set[str] = set()
_SEEN: set[str] = set()


def _learn(chars: set[str]) -> None:
    for ch in chars - _SEEN:
        piece = fold(ch)
        if len(piece) != 1:
            _WIDE.add(ch)
        elif piece != ch:
            _ONE[ch] = piece
        _SEEN.add(ch)

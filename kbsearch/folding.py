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

import functools
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
    if text.isascii():
        return text.lower(), range(len(text))
    pieces = list(map(_fold_char, text))
    folded = "".join(pieces)
    if len(folded) == len(text):  # no piece is empty, so each is one character
        return folded, range(len(text))
    return folded, [i for i, piece in enumerate(pieces) for _ in piece]


@functools.cache
def _fold_char(ch: str) -> str:
    # Cached: a text of 20,000 characters uses a few hundred distinct ones.
    return fold(ch)

"""Input limits: sizes a real briefing or query never reaches and an abuser does.

Checking costs milliseconds a claim and searching about 25 µs a character of
the query, so one unbounded request (200,000 要点 lines, a 900 KB query) held
a server for minutes. Each check limit is 7 to 20 times what the team's real
inputs use (a briefing: about 12,000 characters, 5 items, at most 7 claims
an item, 35 in all); the largest check they allow (10 items of 50 claims)
took the default model 15 s of work on two cores shared with other work
(load average 7). The CLI and the server read these same values; ``kbsearch
check --bulk`` lifts the check limits for a deliberate bulk run on the
user's own machine, and a local JSONL file (a pipeline's batch, "of any
length") keeps only the limits of each record. A limit passed is one
``TooLarge`` naming it. The limits
in force are ``active_limits()``: the defaults, or what a ``using`` block
around the call sets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from kbsearch.errors import KbError, TooLarge

if TYPE_CHECKING:
    from kbsearch.records import Record

BULK_HINT = "split the input, or check it locally with 'kbsearch check FILE --bulk'"
_SURROGATE = re.compile("[\ud800-\udfff]")


class InputLimits(BaseModel):
    """The largest input each operation takes; None: no limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query_chars: int | None = 4_000
    """Characters of a search query (a pasted abstract is about 1,500)."""
    input_chars: int | None = 200_000
    """Characters of one check's input: a briefing, card or JSONL text."""
    input_items: int | None = 100
    """Items (increments, cards, records) in one check."""
    input_claims: int | None = 500
    """Claims of all the items of one check, together."""
    item_claims: int | None = 50
    """Claims of one item: its 要点 lines, or the sentences of a text without them."""
    item_chars: int | None = 20_000
    """Characters of one item: its title, and its text or its claims, whichever is longer."""

    def bulk(self) -> InputLimits:
        """These limits with every check limit lifted (the query's stays)."""
        return InputLimits(query_chars=self.query_chars, **dict.fromkeys(CHECK_LIMITS))

    def per_item(self) -> InputLimits:
        """These limits without those on the whole input (a local JSONL batch of any length)."""
        return self.model_copy(update=dict.fromkeys(("input_chars", "input_items", "input_claims")))

    def usable_query(self, query: str) -> str:
        """The query as search takes it, a NUL read as a space (FTS5 reads a NUL
        as the end of the string); a ``KbError`` if it is not text or too long."""
        require_text(query, "the query")
        if self.query_chars is not None and len(query) > self.query_chars:
            raise TooLarge(
                f"the query has {len(query):,} characters; the limit is {self.query_chars:,} (query_chars)",
                limit="query_chars",
                hint="search for a sentence or a title, not a whole text; use 'kbsearch check' for a text",
            )
        return query.replace("\0", " ")

    def check_text(self, text: str, where: str) -> None:
        """Refuse a check's input before it is parsed: too long, or not text."""
        require_text(text, "the text", where)
        _at_most(len(text), self.input_chars, "input_chars", "characters", where)

    def may_exceed(self, path: Path) -> bool:
        """Whether the file is large enough to be over ``input_chars`` (a
        character is at least a byte): only then need it be read to tell."""
        return self.input_chars is not None and path.stat().st_size > self.input_chars

    def check_items(self, items: list[Record], where: str) -> None:
        """Refuse parsed items over the item and claim limits, naming the first."""
        _at_most(len(items), self.input_items, "input_items", "items", where)
        total = 0
        for item in items:
            claims = len(item.claim_texts())
            _at_most(claims, self.item_claims, "item_claims", "claims", where, item.id)
            # A briefing's text holds its claims; a JSONL record may give either or both.
            chars = len(item.title) + max(len(item.text), sum(map(len, item.claims)))
            _at_most(chars, self.item_chars, "item_chars", "characters", where, item.id)
            total += claims
        _at_most(total, self.input_claims, "input_claims", "claims", where)


CHECK_LIMITS = ("input_chars", "input_items", "input_claims", "item_claims", "item_chars")
"""The limits ``--bulk`` lifts."""
DEFAULT_LIMITS = InputLimits()
_active: ContextVar[InputLimits] = ContextVar("kbsearch_limits", default=DEFAULT_LIMITS)


def active_limits() -> InputLimits:
    """The limits in force here: ``DEFAULT_LIMITS``, unless inside ``using``."""
    return _active.get()


@contextmanager
def using(limits: InputLimits) -> Iterator[None]:
    """Check and search under ``limits`` in this block (``check --bulk``: the check limits lifted)."""
    token = _active.set(limits)
    try:
        yield
    finally:
        _active.reset(token)


JSON_CHAR_BYTES = 12
"""The most bytes one character takes in a JSON body: an astral one, escaped as a pair (\\ud83d\\ude00)."""
BODY_SLACK = 64 * 1024
"""Bytes of a body beside its text: the other fields, and JSON's own."""


def body_bytes(chars: int | None) -> int | None:
    """The largest JSON body that can carry a text within ``chars`` characters:
    a server refuses a larger one unread (None: no such bound)."""
    return None if chars is None else chars * JSON_CHAR_BYTES + BODY_SLACK


def _at_most(count: int, limit: int | None, name: str, unit: str, where: str, item: str | None = None) -> None:
    if limit is None or count <= limit:
        return
    whose = f"item {item!r} has" if item else "the input has"
    raise TooLarge(f"{whose} {count:,} {unit}; the limit is {limit:,} ({name})", limit=name, hint=BULK_HINT, path=where)


def require_text(text: str, what: str, where: str | None = None) -> None:
    """A ``KbError`` when ``text`` is not Unicode text (``unicode_problem``)."""
    problem = unicode_problem(text)
    if problem is not None:
        raise KbError(f"{what} is {problem}", hint=UNICODE_HINT, path=where)


UNICODE_HINT = "send UTF-8; in JSON, a \\ud83d escape only as half of a surrogate pair"


def unicode_problem(text: str) -> str | None:
    """What makes ``text`` not Unicode text: a lone surrogate (undecodable
    bytes, or a JSON ``\\ud800`` escape without its pair), which SQLite and
    the models fail on; None when it is text."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return f"not valid Unicode: a lone surrogate U+{ord(found.group()):04X} at character {found.start()}"

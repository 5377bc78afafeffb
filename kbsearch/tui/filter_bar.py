"""Kind, instance, topic, category, section and date-range filters above the results."""

from __future__ import annotations

import datetime as dt

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Select

from kbsearch.errors import KbError
from kbsearch.kb import SearchFilter
from kbsearch.records import Kind
from kbsearch.tui.literal import plain

FIELDS = ("kind", "instance", "topic", "category", "section", "since", "until")
TEXTS = ("section", "since", "until")
"""The filters typed rather than chosen from a menu."""
NARROW = 75
"""Below this width the filters' minimum widths (app.tcss) do not fit: the bar turns -narrow."""


def parse_day(text: str) -> dt.date | None:
    """A complete YYYY-MM-DD, else None (a half-typed date filters nothing yet)."""
    try:
        return dt.date.fromisoformat(text.strip()) if len(text.strip()) == 10 else None
    except ValueError:
        return None


def dates_problem(since: str, until: str) -> str | None:
    """Why the since and until inputs filter nothing, in the TUI's words, else None: one
    that is not a whole date (``2026-10``, which ``--since`` refuses too: no month is read
    as its first day), or a range that can hold no record."""
    for name, text in (("since", since), ("until", until)):
        if text.strip() and parse_day(text) is None:
            return f"{name}: {text.strip()!r} is not a date yet; write YYYY-MM-DD, like 2026-09-19"
    first, last = parse_day(since), parse_day(until)
    if range_problem(first, last) is not None:
        return f"since {first} is later than until {last}, so no record can match; swap the two dates, or clear one"
    return None


def range_problem(since: dt.date | None, until: dt.date | None) -> KbError | None:
    """Why a date range can hold no record (since after until), else None."""
    try:
        SearchFilter(since=since, until=until)
    except KbError as err:
        return err
    return None


class FilterBar(Horizontal):
    """Posts ``FilterBar.Changed`` with the whole filter whenever it changes."""

    class Changed(Message):
        def __init__(self, flt: SearchFilter) -> None:
            super().__init__()
            self.flt = flt

    def compose(self) -> ComposeResult:
        kinds = [(Text(kind.value), kind.value) for kind in Kind]
        # The prompt names the menu (no "any …": cut at 80 columns, four read "any▼" alike).
        yield Select(kinds, prompt="kind", id="kind", compact=True)
        yield Select([], prompt="instance", id="instance", compact=True)
        yield Select([], prompt="topic", id="topic", compact=True)
        yield Select([], prompt="category", id="category", compact=True)
        # As --section: records whose section contains this text, any case.
        yield Input(placeholder="section", id="section", compact=True)
        for name in ("since", "until"):
            # validate_on=[]: Textual's own validation would add -valid beside our -invalid.
            yield Input(
                placeholder=f"{name} YYYY-MM-DD",
                id=name,
                restrict=r"[0-9-]*",
                max_length=10,
                compact=True,
                validate_on=[],
            )

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    def set_choices(self, instances: list[str], topics: list[str], categories: list[str]) -> None:
        """Options from the index's stats; the current choice is kept when it still exists."""
        for name, values in (("instance", instances), ("topic", topics), ("category", categories)):
            select = self.query_one(f"#{name}", Select)
            keep = select.value
            select.set_options([(plain(v), v) for v in values])
            if keep in values:
                select.value = keep

    def problem(self) -> str | None:
        """Why the dates filter nothing (``dates_problem``): the search waits for them, and says so."""
        since, until = (self.query_one(f"#{name}", Input).value for name in ("since", "until"))
        return dates_problem(since, until)

    def current(self) -> SearchFilter:
        """The filters as set; dates in the wrong order limit nothing, as a
        half-typed date does (both are marked, and ``problem`` says why)."""
        kind = self._select("kind")
        chosen = SearchFilter(
            kinds=[Kind(kind)] if kind else [],
            instance=self._select("instance"),
            topic=self._select("topic"),
            category=self._select("category"),
            section=self.query_one("#section", Input).value.strip() or None,
        )
        since, until = self._day("since"), self._day("until")
        if range_problem(since, until) is not None:
            return chosen
        return chosen.model_copy(update={"since": since, "until": until})  # the range was checked just above

    def set_field(self, name: str, value: str | None) -> None:
        """Set one filter (from the command palette); ``None`` clears it."""
        if name in TEXTS:
            self.query_one(f"#{name}", Input).value = value or ""
            return
        select = self.query_one(f"#{name}", Select)
        if value is None:
            select.clear()
        else:
            select.value = value

    def clear(self) -> None:
        for name in FIELDS:
            self.set_field(name, None)

    def _select(self, name: str) -> str | None:
        value = self.query_one(f"#{name}", Select).value
        return value if isinstance(value, str) else None

    def _day(self, name: str) -> dt.date | None:
        return parse_day(self.query_one(f"#{name}", Input).value)

    @on(Select.Changed)
    @on(Input.Changed)
    def _changed(self, event: Message) -> None:
        event.stop()
        if isinstance(event, Input.Changed):
            self._mark_days()
        self.post_message(self.Changed(self.current()))

    def _mark_days(self) -> None:
        """Mark a date that is not one yet, or both when since is after until (and say why)."""
        problem = range_problem(self._day("since"), self._day("until"))
        for name in ("since", "until"):
            field = self.query_one(f"#{name}", Input)
            half_typed = bool(field.value.strip()) and parse_day(field.value) is None
            field.set_class(half_typed or problem is not None, "-invalid")
        if problem is not None:
            self.app.notify(str(self.problem()), severity="error", markup=False)

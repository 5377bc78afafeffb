"""The one error type kbsearch raises for anything a user can fix."""

from __future__ import annotations


class KbError(Exception):
    """A problem the user can act on: a one-line message plus a hint.

    The CLI prints ``str(err)`` to stderr and exits 2; the TUI shows it as a
    notification. ``path`` and ``line`` locate the problem in an input file.
    """

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        self.message = message
        self.hint = hint
        self.path = path
        self.line = line
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        text = f"{where}{self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return " ".join(text.split())


class NoIncrementsToday(KbError):
    """A briefing with no increments whose count line says 0 (增量条数：0 条): a day with no
    news, which ``check`` reads as nothing to check (exit 0), not as a broken briefing."""


class RecordNotFound(KbError):
    """No stored record has the id asked for (the server answers 404)."""


class Busy(KbError):
    """The work could not start now, and nothing was done; trying again later
    is the fix (the server answers 503 with a Retry-After of ``retry_after``
    seconds)."""

    def __init__(self, message: str, *, hint: str | None = None, retry_after: float = 5.0) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class WriterBusy(Busy):
    """Another writer held the index's writer lock for longer than the timeout."""


class TooLarge(KbError):
    """An input is over one of the limits of ``kbsearch.limits`` (the server answers 413).

    ``limit`` names the limit, as ``InputLimits`` spells it.
    """

    def __init__(self, message: str, *, limit: str, hint: str | None = None, path: str | None = None) -> None:
        super().__init__(message, hint=hint, path=path)
        self.limit = limit


class Stopped(KbError):
    """A request's work was stopped before it finished: it ran over its time
    budget, the caller went away or the server is stopping (see
    ``kbsearch.runtime.cancel``). Nothing was written: the stop comes before a
    write commits, and a write it interrupts is rolled back. ``retry_after``:
    seconds after which the same request may succeed (the server answers 503
    with Retry-After), None when sending it again would only stop again."""

    def __init__(self, message: str, *, hint: str | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after

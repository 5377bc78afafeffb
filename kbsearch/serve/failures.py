"""A refused call as an MCP agent needs it: a stable code, the message and hint apart,
and when to try again.

The JSON API says an error with its HTTP status, ``Retry-After`` and ``{"error", "hint"}``;
an MCP tool error has only text. So a tool error's text starts with a code an agent can
branch on (``busy: …; retry in 5s``), and its ``_meta`` carries the same as data
(``"kbsearch/error": {"code", "status", "error", "hint", "retry_after"}``), never
``structuredContent``, which strict clients check against the tool's output schema even
on an error. Hints written for the CLI's user (a command to run, a flag, an environment
variable to set) are said in the server's words (``words``): the tool or field to use instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbsearch.errors import Busy, KbError, RecordNotFound, Stopped, TooLarge
from kbsearch.serve.service import Forbidden
from kbsearch.serve.words import Words, said

META_KEY = "kbsearch/error"

CODES = {
    "bad_request": "the call is wrong: fix it as the hint says; sending it again unchanged fails again",
    "not_found": "no record has the id asked for",
    "forbidden": "the token does not allow it (accept needs the write token)",
    "too_large": "an input is over a limit: split it",
    "busy": "nothing was done; send the same call again after retry_after seconds",
    "stopped": "stopped before it finished, nothing written; send it again after retry_after seconds, "
    "unless retry_after is null",
}
"""Every code a tool error starts with, and what it means for the caller."""


@dataclass(frozen=True)
class Failure:
    """One refused call: ``code`` (a key of ``CODES``), the /api's status, message and hint."""

    code: str
    status: int
    message: str
    hint: str | None = None
    retry_after: int | None = None
    where: dict[str, str | int] = field(default_factory=dict)

    def one_line(self) -> str:
        """``code: [path:line: ]message; hint``, on one line."""
        place = ""
        if "path" in self.where:
            place = (
                f"{self.where['path']}:{self.where['line']}: " if "line" in self.where else f"{self.where['path']}: "
            )
        text = f"{self.code}: {place}{self.message}" + (f"; {self.hint}" if self.hint else "")
        return " ".join(text.split())

    def meta(self) -> dict[str, object]:
        said = {"code": self.code, "status": self.status, "error": self.message, "hint": self.hint}
        return {**said, "retry_after": self.retry_after, **self.where}


def bad_request(message: str, hint: str | None = None) -> Failure:
    return Failure("bad_request", 422, message, hint)


def failure_of(err: KbError, *, lock_timeout: float | None = None, words: Words = "mcp") -> Failure:
    """``err`` as the server says it to an agent: the JSON API's status, in the server's
    ``words`` (``words.said``: MCP's tools, or the /api's routes and fields)."""
    message, hint = said(err.message, words) or err.message, said(err.hint, words)
    where = {name: value for name, value in (("path", err.path), ("line", err.line)) if value is not None}
    if isinstance(err, Busy):
        seconds = max(1, round(err.retry_after))
        if "KBSEARCH_LOCK_TIMEOUT" in (hint or ""):
            # A remote agent cannot set the server's environment: say the server's setting.
            waited = f"{lock_timeout:g}s" if lock_timeout is not None else "its --lock-timeout"
            hint = f"this server waits {waited} for the writer lock (serve --lock-timeout)"
        retry = f"retry in {seconds}s"
        return Failure("busy", 503, message, f"{hint}; {retry}" if hint else retry, seconds, where)
    if isinstance(err, Stopped):
        if err.retry_after is None:
            return Failure("stopped", 503, message, hint, None, where)
        again = max(1, round(err.retry_after))
        hint = f"{hint}; retry in {again}s" if hint else f"retry in {again}s"
        return Failure("stopped", 503, message, hint, again, where)
    if isinstance(err, TooLarge):
        return Failure("too_large", 413, message, hint, None, where)
    if isinstance(err, RecordNotFound):
        return Failure("not_found", 404, message, hint, None, where)
    if isinstance(err, Forbidden):
        return Failure("forbidden", 403, message, hint, None, where)
    return Failure("bad_request", 400, message, hint, None, where)

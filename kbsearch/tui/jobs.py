"""The body shared by every thread worker: run a facade call, post the answer.

Workers are started with ``@work(thread=True, exclusive=True)``; a newer
worker in the same group cancels the older one, and a cancelled worker posts
nothing, so a stale answer never reaches the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import get_current_worker

from kbsearch.errors import KbError
from kbsearch.kb import KnowledgeBase, SearchMode
from kbsearch.kb.search_judge import judge_ready
from kbsearch.tui.gateway import KbGateway, Superseded

T = TypeVar("T")


class JobFailed(Message):
    """A facade call raised; the app shows it as a notification."""

    def __init__(self, error: BaseException, what: str) -> None:
        super().__init__()
        self.error = error
        self.what = what

    def error_text(self) -> str:
        """The error in one line: a KbError's message and hint, else its type and text."""
        if isinstance(self.error, KbError):
            return self.error.one_line()
        return f"{type(self.error).__name__}: {self.error}"


def run_job(
    target: MessagePump, gateway: KbGateway, what: str, job: Callable[[KnowledgeBase], T], done: Callable[[T], Message]
) -> None:
    """Call from inside a thread worker: ``done(result)`` is posted to ``target``
    unless the worker was cancelled meanwhile; an exception becomes ``JobFailed``."""
    worker = get_current_worker()

    def wanted() -> bool:
        return not worker.is_cancelled

    try:
        result = gateway.call(job, wanted)
    except Superseded:
        return
    except Exception as err:  # every failure must become a notification, never a traceback
        if wanted():
            target.post_message(JobFailed(err, what))
        return
    if wanted():
        target.post_message(done(result))


def search_mode(kb: KnowledgeBase) -> SearchMode:
    """Hybrid once the model and the judge it weighs are loaded; until then the words alone.
    The gateway runs one job at a time, so a search by meaning during a load (seconds, on a
    thread of its own) would hold every later keystroke's search behind it."""
    return SearchMode.hybrid if kb.model_ready() and judge_ready(kb) else SearchMode.lexical

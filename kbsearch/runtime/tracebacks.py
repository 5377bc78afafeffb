"""Whether an unexpected exception (a bug, not the user's mistake) shows its
whole traceback: only on ``KBSEARCH_TRACEBACK=1``, since a user can do
nothing with one; by default it is one line naming the error and what to do."""

from __future__ import annotations

TRACEBACK_ENV = "KBSEARCH_TRACEBACK"


def wanted() -> bool:
    from kbsearch.errors import KbError
    from kbsearch.settings import settings

    try:
        return settings().traceback
    except KbError:  # a bad variable: the one line still says what went wrong
        return False


def described(err: BaseException) -> str:
    """``ValueError: what it says``, or the type alone when it says nothing."""
    said = " ".join(str(err).split())
    return f"{type(err).__name__}: {said}" if said else type(err).__name__

"""The option groups several commands share, and the values argparse reads for them.

``remote_options`` (``--local``, ``--server``, ``--token-file``) for a command a server can answer,
``local_option`` for one it cannot, ``filter_options`` for the commands that filter records; and the
types that refuse a bad value with its fix (an empty filter text, a date that is no day)."""

from __future__ import annotations

import argparse
import datetime as dt
import re
from collections.abc import Callable

from kbsearch.cli.errors import Parser
from kbsearch.filters import empty_text_filter


def remote_options() -> Parser:
    remote = Parser(add_help=False)
    remote.add_argument(
        "--local",
        action="store_true",
        help="use the index here, not a server: neither the one --server or $KBSEARCH_SERVER names "
        "nor the one found running for the index (its serve.json)",
    )
    remote.add_argument(
        "--server",
        metavar="URL",
        help="ask a running 'kbsearch serve --http' (its index and model) instead (default: $KBSEARCH_SERVER)",
    )
    remote.add_argument(
        "--token-file",
        metavar="FILE",
        help="the server's bearer token (default: $KBSEARCH_TOKEN; for a found server with neither, "
        "its index folder's write token, else its read token)",
    )
    return remote


def local_option() -> Parser:
    """``--local`` of a command with no server form, which refuses to run while $KBSEARCH_SERVER is set."""
    local = Parser(add_help=False)
    local.add_argument("--local", action="store_true", help="run even when $KBSEARCH_SERVER names a server")
    return local


def filter_options() -> Parser:
    filters = Parser(add_help=False)
    filters.add_argument(
        "--kind",
        action="append",
        choices=["increment", "paper_card", "doc_section"],
        help="only this kind (repeatable)",
    )
    filters.add_argument("--instance", type=filter_text("instance"), help="only records by this instance")
    filters.add_argument("--topic", type=filter_text("topic"), help="only this topic")
    filters.add_argument(
        "--category",
        type=filter_text("category"),
        help="only this category, any case: a paper card's primary category, an increment's 主分类 (inference, cs.CL)",
    )
    filters.add_argument(
        "--section",
        type=filter_text("section"),
        help="only records whose section contains this text, any case (add --topic for one doc's: §2.1 is in many)",
    )
    filters.add_argument("--since", type=iso_date, metavar="YYYY-MM-DD")
    filters.add_argument("--until", type=iso_date, metavar="YYYY-MM-DD")
    return filters


def filter_text(field: str) -> Callable[[str], str]:
    """An instance, topic, category or section as argparse reads it: refused empty (``empty_text_filter``)."""

    def checked(value: str) -> str:
        problem = empty_text_filter(field, value, command="'kbsearch {}'")
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    return checked


def until_or_half(value: str) -> dt.date | str:
    try:
        return "half" if value == "half" else iso_date(value)
    except argparse.ArgumentTypeError as err:
        raise argparse.ArgumentTypeError(f"{err} (or 'half')") from err


def iso_date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as err:
        # 2026-13-01 is written right and still no day: say which part is wrong.
        why = f" ({err})" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else ""
        raise argparse.ArgumentTypeError(f"{value!r} is not a date{why}; write YYYY-MM-DD, like 2026-09-19") from err

"""``--server``: the commands that read ask a running ``kbsearch serve`` instead:
the one ``--server`` or ``$KBSEARCH_SERVER`` names, else the one that runs for
the index (``serve.json`` in its folder), unless ``--local``.

The server answers with the very document ``--json`` prints, so it is
printed as it is, or rendered as text by the same code as a local run.
Nothing here imports the index, the store or the model.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import kbsearch.runtime.timings as timings
from kbsearch.cli.output import print_check_warnings, print_styled, warn_unnamed_stdin
from kbsearch.errors import KbError
from kbsearch.text.terminal import inert_json

if TYPE_CHECKING:
    from pydantic import BaseModel

FILTERS = ("kind", "instance", "topic", "category", "section", "since", "until")


def server_for(args: argparse.Namespace) -> tuple[str, str, bool] | None:
    """(url, token, found) of the server to ask: named (found False), or found running for
    the index; None to run locally. A command naming a model of its own runs locally. The
    token is the user's ($KBSEARCH_TOKEN, --token-file) whenever given, a found server's too.
    Decided once a command (its health check asked once, its note said once)."""
    if not hasattr(args, "server_target"):
        args.server_target = _server_for(args)
    target: tuple[str, str, bool] | None = args.server_target
    return target


def _server_for(args: argparse.Namespace) -> tuple[str, str, bool] | None:
    with timings.phase("imports"):  # the settings and pydantic: a cold run's, whichever path it takes
        from kbsearch.cli.client import found_server, given_token, require_answer, server_url, token

    if args.local:
        return None
    url = server_url(args.server)
    if url is not None:
        bearer = token(args.token_file)
        require_answer(url)
        return url, bearer, False
    found = None if args.model else found_server(args.index, given_token(args.token_file))
    return None if found is None else (*found, True)


def require_k(args: argparse.Namespace) -> None:
    """``-k`` of 1 or more, and no more than a server answers when one is asked (a found one
    too): its validator's words (``k: Input should be …``) said nothing of the flag or of --local."""
    if args.k < 1:
        raise KbError(f"-k must be at least 1, not {args.k}")
    from kbsearch.serve.requests import MAX_K

    if args.k > MAX_K and (target := server_for(args)) is not None:
        raise KbError(
            f"-k must be at most {MAX_K} when a server answers ({target[0]}), not {args.k}",
            hint="lower -k, or pass --local to read the index here, which takes any -k",
        )


def ask_server(args: argparse.Namespace, operation: str, body: dict[str, Any]) -> str | None:
    """The server's answer (see ``server_for``), else None: run locally. A found server that
    no longer answers (it just stopped) sends the command to the local index."""
    from kbsearch.cli.client import Unreachable, call

    target = server_for(args)
    if target is None:
        return None
    url, bearer, found = target
    try:
        return call(url, operation, body, bearer, found=found)
    except Unreachable:
        if found:
            return None
        raise


def print_answer(args: argparse.Namespace, answer: str, result: BaseModel, as_text: Callable[[Any], Any]) -> None:
    """A server's document exactly as a local run prints it."""
    if args.json:
        print(inert_json(answer))
        return
    text = as_text(result)
    if isinstance(text, str):
        print(text)
    else:
        print_styled(text)


def filter_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The filter flags that were given, by the names the server's bodies use."""
    return {name: getattr(args, name) for name in FILTERS if getattr(args, name) not in (None, [])}


# What to do instead, for each command that has no server form.
LOCAL_ONLY = {
    "ingest": "send each file to the server with 'kbsearch check FILE --accept' (the write token)",
    "reindex": "run it on the server's host",
    "remove": "run it on the server's host",
    "audit": "run it on the server's host",
    "calibrate": "it fits on scratch indexes of its own",
    "export": "run it on the server's host",
    "doctor": "run it on the server's host",
    "tui": "run it on the server's host",
    "backup": "run it on the server's host",
}


def refuse_local_only(args: argparse.Namespace) -> None:
    """A command with no server form refuses to run locally while $KBSEARCH_SERVER names a
    server: the user means the server's index, and a local run would read or build ./index."""
    with timings.phase("imports"):  # the settings and pydantic: every command's first
        from kbsearch.cli.client import server_url
    from kbsearch.errors import KbError

    instead = LOCAL_ONLY.get(args.command)
    url = server_url(None)
    if instead is None or url is None or getattr(args, "local", False):
        return
    raise KbError(
        f"KBSEARCH_SERVER is set ({url}), and '{args.command}' has no server form: it would use a local "
        "index, not the server's",
        hint=f"{instead}; or pass --local (or unset KBSEARCH_SERVER) to run it on a local index",
    )


def config_fields(args: argparse.Namespace) -> dict[str, Any]:
    """``--config FILE`` for a server: the whole file, which the server validates as a local
    run would, and its name for the server's errors and notes to name (as a local run's do)."""
    from kbsearch.cli.client import config_fields as read

    return {"config": read(args.config), "config_path": args.config} if args.config else {}


def check_remotely(args: argparse.Namespace, stdin_text: str | None, named: str | None) -> int | None:
    """``check`` through the server (its exit code), or None when no server is named.
    ``named``: the file stdin is read as (``--path``), resolved here, where it is."""
    with timings.phase("imports"):  # the settings, pydantic and the result types: a cold run's, whichever path
        from kbsearch import render
        from kbsearch.cli.client import check_body, server_url
        from kbsearch.dedupe.results import CheckResult

    if args.bulk and not args.local and server_url(args.server) is not None:
        raise KbError(
            "--bulk lifts the limits of a local check; a server keeps its own",
            hint="drop --server (and unset $KBSEARCH_SERVER) to check this input locally",
        )
    target = None if args.bulk else server_for(args)  # --bulk: a found server keeps its limits, run here
    if target is None:
        return None
    text, path = check_body(args.input, stdin_text)
    body = {"text": text, "path": path or named, "input": args.path or args.input}
    body |= {"as_of": args.as_of, "accept": args.accept}
    if args.replace:
        body["replace"] = True
    if args.skip_duplicates:  # sent only when asked: an older server refuses the unknown field, never ignores it
        body["skip_duplicates"] = True
    answer = ask_server(args, "check", body | config_fields(args))
    if answer is None:
        return None  # the found server stopped meanwhile
    result = CheckResult.model_validate_json(answer)
    if warn_unnamed_stdin(args, result):
        answer = result.model_dump_json(indent=2)
    print_answer(args, answer, result, render.check_text)
    print_check_warnings(args, result)
    return result.exit_code

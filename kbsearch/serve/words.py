"""The CLI's words in an error, said in the server's: one table for every hint.

The core raises ``KbError``s whose hints speak to the CLI's user: a command to run
(``run 'kbsearch reindex'``), a flag to pass (``pass --replace``). An agent calling
an MCP tool or a script posting to ``/api`` can do neither: it needs the field to
send or the tool (route) to call instead. The server says every error through
``said``, with the words of its side: ``mcp`` names tools and arguments, ``api``
routes and JSON fields; ``cli`` keeps the CLI's words, for the CLI's own client
(``kbsearch search --server``), whose output is the same as a local run's.
A hint that only the server's owner can act on (a reindex) says so.
"""

from __future__ import annotations

import re
from typing import Literal

Words = Literal["cli", "api", "mcp"]
CLI_HEADER = "X-Kbsearch-Words"
"""The CLI's client sends ``X-Kbsearch-Words: cli`` to get its own words back."""

OWNER = "ask whoever runs this server to reindex the index"
# (the CLI's words, a regular expression; /api's; MCP's). The longer phrases come first.
PHRASES: tuple[tuple[str, str, str], ...] = (
    (r"stdin is empty", "text is empty", "text is empty"),
    (
        r"pipe a briefing or the text of one increment into 'kbsearch check -'",
        'send a briefing or one increment as "text"',
        "send a briefing or one increment as text",
    ),
    (
        r"list the ids with 'kbsearch list --format ids' or 'kbsearch list --json'",
        "POST /api/list lists the ids; /api/search finds them",
        "the list tool lists the ids; search finds them",
    ),
    (
        r"ids are listed by 'kbsearch list --json' and 'search --json'",
        "/api/list and /api/search give the ids",
        "the list and search tools give the ids",
    ),
    (r"ids are listed by 'kbsearch list --json'", "POST /api/list lists the ids", "the list tool lists the ids"),
    (r"pass --replace", 'send "replace": true', "pass replace: true to the accept tool"),
    (r"use 'kbsearch check' for a text", "POST a text to /api/check", "use the check tool for a text"),
    # --bulk lifts the limits on the CLI only: a caller can only split the input.
    (r",? or check it locally with 'kbsearch check FILE --bulk'", "", ""),
    (r"run 'kbsearch reindex[^']*'", OWNER, OWNER),
    (r"run 'kbsearch doctor'", "ask whoever runs this server to check the index", "ask whoever runs this server"),
    (
        r"restart 'kbsearch serve' or the TUI",
        "ask whoever runs this server to restart it",
        "ask whoever runs this server to restart it",
    ),
    (
        r"fit one with 'kbsearch calibrate [^']*'",
        'send "config" with the fields of a fitted config',
        "ask whoever runs this server to fit one",
    ),
)
FLAGS: dict[str, tuple[str, str]] = {
    # A flag the core names, as (the /api's field, MCP's argument or tool).
    "--as-of": ('"as_of"', "as_of"),
    "--since": ('"since"', "since"),
    "--until": ('"until"', "until"),
    "--limit": ('"limit"', "limit"),
    "--kind": ('"kind"', "kind"),
    "--instance": ('"instance"', "instance"),
    "--topic": ('"topic"', "topic"),
    "--category": ('"category"', "category"),
    "--section": ('"section"', "section"),
    "--mode": ('"mode"', "mode"),
    "--path": ('"path"', "path"),
    "--replace": ('"replace"', "replace"),
    "--accept": ('"accept": true', "the accept tool"),
    "--skip-duplicates": ('"skip_duplicates": true', "skip_duplicates"),
    "-k": ('"k"', "k"),
}
_PHRASES = tuple((re.compile(cli), api, mcp) for cli, api, mcp in PHRASES)
_FLAG = re.compile(r"(?<![\w-])(" + "|".join(re.escape(flag) for flag in FLAGS) + r")(?![\w-])")


def said(text: str | None, words: Words) -> str | None:
    """``text`` (an error's message or hint) in ``words``; None stays None."""
    if text is None or words == "cli":
        return text
    side = 0 if words == "api" else 1
    for cli, *server in _PHRASES:
        text = cli.sub(server[side], text)
    return _FLAG.sub(lambda flag: FLAGS[flag.group(1)][side], text)

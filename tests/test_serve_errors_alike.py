"""A request the server refuses is said by the CLI exactly as a local run says it: the
server sends the message, its hint and the file apart (``{"error", "hint", "path", "line"}``),
not one line the CLI cannot take apart again."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_support import Running
from support.cli import run

FAILING = [
    ["show", "card/2099"],
    ["similar", "no/such", "-k", "2"],
    ["explain", "tri-jay", "no/such"],
    ["check", "{tmp}/bad.jsonl"],
    ["search", "   "],
    ["list", "--section", " "],
    ["search", "KV", "--since", "2026-09-20", "--until", "2026-09-19"],
]


def test_the_server_refuses_as_a_local_run_does(
    served: tuple[Running, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, index = served
    (tmp_path / "bad.jsonl").write_text('{"id": "x", "title": "t", "text": "t"}\n{not json\n', encoding="utf-8")
    token_file = tmp_path / "token"
    token_file.write_text(server.read_token + "\n", encoding="utf-8")
    for command in FAILING:
        argv = [word.format(tmp=tmp_path) for word in command]
        for output in ([], ["--json"]):
            local = run(capsys, *argv, *output, "--index", str(index), "--local")
            remote = run(capsys, *argv, *output, "--server", server.url, "--token-file", str(token_file))
            assert local[0] == 2 and local[1] == "", (argv, local)
            assert remote == local, argv

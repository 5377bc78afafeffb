"""The TUI's audit view shows the per-instance table and the clusters across instances
that ``kbsearch audit --json`` and ``--across`` give: the same objects, not recounted
(probe 26: the lead in the TUI could not see who repeats most, nor leave out the
clusters of one writer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Static
from tui_support import SIZE, build_index, drive, wait_for

from kbsearch.cli import main
from kbsearch.tui import make_app
from kbsearch.tui.audit_screen import AuditScreen
from kbsearch.tui.cluster_tree import ClusterTree
from kbsearch.tui.instance_table import InstanceTable


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    build_index(tmp_path / "idx")
    return "idx"


def cli_audit(index: str, capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["audit", "--index", index, "--json", *options]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def table_rows(table: InstanceTable) -> list[dict[str, object]]:
    keys = ("instance", "items", "repeats", "own_repeats", "claimed_new_seen_before")
    rows = []
    for r in range(table.row_count):
        cells = [c.plain if isinstance(c, Text) else str(c) for c in table.get_row_at(r)]
        rows.append({k: (v if k == "instance" else int(v)) for k, v in zip(keys, cells, strict=True)})
    return rows


def first_ids(tree: ClusterTree) -> list[str]:
    return [node.data.first_seen.id for node in tree.root.children if node.data is not None]  # type: ignore[attr-defined]


@drive
async def test_the_audit_view_shows_the_per_instance_table_and_the_clusters_across_instances(
    index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    every = cli_audit(index, capsys)
    across = cli_audit(index, capsys, "--across")
    every_firsts = [c["first_seen"]["id"] for c in every["clusters"]]  # type: ignore[attr-defined,index]
    across_firsts = [c["first_seen"]["id"] for c in across["clusters"]]  # type: ignore[attr-defined,index]
    assert every["by_instance"] and 0 < len(across_firsts) < len(every_firsts), (every, across)
    app = make_app(index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        await wait_for(pilot, lambda: screen.result is not None, "the audit")
        table = screen.query_one(InstanceTable)
        tree = screen.query_one(ClusterTree)
        summary = screen.query_one("#audit-summary", Static)
        assert table.display and table_rows(table) == every["by_instance"]
        assert first_ids(tree) == every_firsts
        await pilot.press("ctrl+t")  # only the clusters across instances, as --across
        assert screen.across and first_ids(tree) == across_firsts
        assert all(len(node.data.instances) >= 2 for node in tree.root.children if node.data)  # type: ignore[attr-defined]
        left_out = across["one_instance_left_out"]
        assert f"({left_out} of one instance left out: ctrl+t shows them)" in str(summary.render())
        assert table_rows(table) == across["by_instance"]
        await pilot.press("ctrl+t")  # and back, without auditing again
        assert not screen.across and first_ids(tree) == every_firsts
        assert "left out" not in str(summary.render())

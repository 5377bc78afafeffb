"""Probe 28, an operator backfilling old briefings out of order: of two writers' briefings of
one day, audit credited the one loaded first (tom, signed 22:20, loaded before vera, signed
09:10). The signature's time of day is kept on the records (``Record.signed_at``); when every
record of the day gives one, the earliest signed is first; else the order of loading decides
and the cluster says so, in ``audit``'s text, its ``--json`` and the TUI alike."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import fake_config
from textual.app import App, ComposeResult
from tui_support import drive

from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.audit_results import AuditResult
from kbsearch.parse.briefing import parse_briefing
from kbsearch.records import Record
from kbsearch.store import Store
from kbsearch.store.migrations import ON_OPEN, SIGNED_TIMES
from kbsearch.tui.cluster_tree import ClusterTree

TOM = """inference · E1 预消化简报(2026-10-05)
一、本周增量

增量 1：LatticeKV：2-bit KV Cache 量化，误差用格点码本补偿（⭐⭐⭐⭐）
来源：arXiv:2610.01111v1（2026-10，cs.LG）
要点：
- 把每个 head 的 K/V 向量投到 8 维格点码本上，残差用 2-bit 标量量化
- Llama-3.1-70B 上 KV 显存降到 FP16 的 1/7，LongBench 平均分只掉 0.4

{signature}
"""
VERA = """inference · E1 预消化简报(2026-10-05)
一、本周增量

增量 1：LatticeKV — 2-bit KV cache quantization with lattice codebooks（⭐⭐⭐）
来源：arXiv:2610.01111
要点：
- K/V vectors per head go to an 8-dim lattice codebook, residual in 2-bit scalars
- On Llama-3.1-70B KV memory is 1/7 of FP16; LongBench loses 0.4

{signature}
"""
TOM_ID = "tom/2026-10-05-tom-inference-e1prep#1"
VERA_ID = "vera/2026-10-05-vera-inference-e1prep#1"


def write(tmp_path: Path, who: str, text: str) -> Path:
    path = tmp_path / "in" / who / f"2026-10-05-{who}-inference-e1prep.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def backfill(cli, tmp_path: Path, tom_signed: str, vera_signed: str, *, tom_first: bool = True) -> str:  # type: ignore[no-untyped-def]
    """tom's and vera's briefings of one day, ingested one after the other in the order given."""
    index = str(tmp_path / "idx")
    tom = write(tmp_path, "tom", TOM.format(signature=tom_signed))
    vera = write(tmp_path, "vera", VERA.format(signature=vera_signed))
    for path in (tom, vera) if tom_first else (vera, tom):
        assert cli("ingest", str(path), "--index", index)[0] == 0
    return index


def audited(cli, index: str) -> tuple[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    code, text, _ = cli("audit", "--index", index)
    assert code == 0
    code, out, _ = cli("audit", "--index", index, "--json")
    assert code == 0
    [cluster] = json.loads(out)["clusters"]
    return text, cluster


@pytest.mark.parametrize("tom_first", [True, False])
def test_the_earlier_signature_is_first_whatever_the_loading_order(cli, tmp_path: Path, tom_first: bool) -> None:  # type: ignore[no-untyped-def]
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05 9:10", tom_first=tom_first)
    text, cluster = audited(cli, index)
    assert cluster["first_seen"]["id"] == VERA_ID and cluster["first_seen"]["signed_at"] == "09:10"
    assert cluster["repeats"][0]["id"] == TOM_ID and cluster["repeats"][0]["signed_at"] == "22:20"
    assert cluster["same_day"] == {"ids": [TOM_ID], "decided_by": "signed time"}
    lines = [line.strip() for line in text.splitlines()]
    first = next(n for n, line in enumerate(lines) if line.startswith("first  vera 2026-10-05"))
    assert lines[first + 1] == f"same day as {TOM_ID}; signed first (09:10)"
    decided = "the shared id decides, not the learned score"
    assert f"same item as {VERA_ID}: both are about arXiv 2610.01111: {decided}" in lines


def test_without_every_time_the_order_of_loading_decides_and_says_so(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05")
    text, cluster = audited(cli, index)
    assert cluster["first_seen"]["id"] == TOM_ID and cluster["repeats"][0]["signed_at"] is None
    assert cluster["same_day"] == {"ids": [VERA_ID], "decided_by": "loading order"}
    assert f"same day as {VERA_ID}; order of loading decides" in [line.strip() for line in text.splitlines()]


def test_a_time_only_counts_with_the_briefings_own_day(tmp_path: Path) -> None:
    """A signature of another day (signed after midnight) says nothing of the order within the day."""

    def signed(signature: str) -> str | None:
        path = write(tmp_path, "tom", TOM.format(signature=signature))
        return parse_briefing(path.read_text(encoding="utf-8"), path).records[0].signed_at

    assert signed("Tom · 2026-10-05 22:20") == "22:20"
    assert signed("— Tom · 2026-10-05 7：05") == "07:05"
    assert signed("Tom · 2026-10-06 00:10") is None
    assert signed("Tom · 2026-10-05 25:10") is None
    assert signed("本报告由 Tom 实例自动生成") is None
    # The real briefings' own line, with notes after it.
    assert signed("本报告由 Tom 实例自动生成 · 2026-10-05 22:20 CST 增量条目：1 条\n以下领域确认无新增量") == "22:20"
    assert signed("本报告由 Tom 实例自动生成 · 2026-10-06 00:10 CST") is None


def test_an_index_written_before_the_field_opens_and_audits(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Records are JSON in the ``records`` table: one written without ``signed_at`` (as every
    record of an older index) reads back with None, and audit falls back to the loading order."""
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05 09:10")
    with sqlite3.connect(Path(index) / "kb.sqlite") as db:
        for rowid, data in db.execute("SELECT rowid, data FROM records").fetchall():
            old = json.loads(data)
            old.pop("signed_at")
            db.execute("UPDATE records SET data = ? WHERE rowid = ?", (json.dumps(old, ensure_ascii=False), rowid))
    store = Store.open(Path(index))
    record = store.get(TOM_ID)
    assert record is not None and record.signed_at is None and record.instance == "tom"
    assert Record.model_validate_json(record.stored_json()) == record  # and is written back without it
    [cluster] = audit(store, "fake", fake_config()).clusters
    store.close()
    assert cluster.first_seen.id == TOM_ID
    assert cluster.same_day is not None and cluster.same_day.decided_by == "loading order"


class Trees(App[None]):
    def compose(self) -> ComposeResult:
        yield ClusterTree(id="clusters")


@drive
async def test_the_tui_shows_the_same_day_line_of_the_cli(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    index = backfill(cli, tmp_path, "Tom · 2026-10-05 22:20", "Vera · 2026-10-05 09:10")
    _, out, _ = cli("audit", "--index", index, "--json")
    result = AuditResult.model_validate_json(out)
    app = Trees()
    async with app.run_test():
        tree = app.query_one(ClusterTree)
        tree.show(result)
        rows = [str(node.label).strip() for node in tree.root.children[0].children]
    assert f"same day as {TOM_ID}; signed first (09:10)" in rows


def test_only_a_write_of_a_signing_time_marks_the_index_for_older_versions_to_refuse(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A kbsearch before ``signed_at`` validates stored records strictly and failed on one
    ("internal error: ValidationError"): the write storing the first marks the index, which
    such a version refuses in one line ("written by a newer kbsearch"), as for ``first_date``."""
    index = backfill(cli, tmp_path, "Tom · 2026-10-05", "Vera · 2026-10-05")

    def schema() -> int:
        with sqlite3.connect(Path(index) / "kb.sqlite") as db:
            return int(db.execute("PRAGMA user_version").fetchone()[0])

    assert schema() == ON_OPEN  # no time given: readable by the version before
    write(tmp_path, "vera", VERA.format(signature="Vera · 2026-10-05 09:10"))
    assert cli("ingest", str(tmp_path / "in"), "--index", index)[0] == 0
    assert schema() == SIGNED_TIMES

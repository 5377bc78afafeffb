"""audit on an inbox file reused from day to day (``inbox/<writer>/today.md``).

Each day the file holds that day's briefing, and its records carry the day in
their ids (``omega/today@2026-09-24#1``) but share the file. Each id-table flag
names its own day.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import ingest_rows, run
from support.files import write

PAPER = "2609.30001"
ITEMS = {
    "fp4": (
        "FlashInfer 0.6 adds FP4 attention kernels for Blackwell",
        "FP4 attention kernels reach 1.9x the FP8 throughput on B200 at equal accuracy",
        "inbox/omega/fp4.md",
    ),
    "paper": (
        "RingKV shards the KV cache across a ring of GPUs",
        "Ring sharding cuts the per-GPU KV memory by 4x at 32k context",
        f"arXiv {PAPER}",
    ),
    "uv": (
        "uv pins CUDA wheels per platform with an index url",
        "One lock file serves x86 and aarch64 builds of the serving image",
        "inbox/nova/uv.md",
    ),
}


def briefing(day: str, *names: str, new_in_table: str | None = None) -> str:
    """A briefing in the team's layout, one increment per name; its id table lists
    ``new_in_table`` as 本次新增."""
    lines = [f"llm-infra · E1 预消化简报({day})", "状态摘要", "二、增量条目"]
    for number, name in enumerate(names, 1):
        title, point, source = ITEMS[name]
        lines += [f"增量 {number}：{title}（⭐⭐⭐）", f"来源：{source}", "要点：", f"- {point}"]
        lines += ["可信度：中", "建议归入章节：§1.1"]
    if new_in_table:
        lines += ["四、可引用 arXiv 号列表", "| arXiv 号 | 标题 | 可信度 | 与 inference.md 关系 |", "|---|---|---|---|"]
        lines += [f"| {new_in_table} | A paper | 高 | 本次新增 → §1.1 |"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """An index holding a card dated 2026-09-20 about ``PAPER``."""
    card = {"id": "card/2000", "title": "RingKV", "text": "KV cache sharded over a ring", "date": "2026-09-20"}
    return str(ingest_rows(capsys, tmp_path, [{**card, "arxiv_ids": [PAPER]}]))


def ingest_day(capsys: pytest.CaptureFixture[str], path: Path, text: str, index: str) -> None:
    """The day's briefing written into ``path``, and its inbox ingested as each day."""
    write(path, text)
    code, _, err = run(capsys, "ingest", str(path.parent.parent), "--prune", "--index", index)
    assert code == 0, err


def test_each_table_flag_of_a_reused_file_names_its_own_day(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """nova's 09-24 and 09-26 tables (the same today.md) both call the paper new, and a card had
    it on 09-20: audit printed the 09-24 line twice, labelled by the file's first table."""
    inbox = tmp_path / "inbox" / "nova" / "today.md"
    ingest_day(capsys, inbox, briefing("2026-09-24", "uv", new_in_table=PAPER), index)
    ingest_day(capsys, inbox, briefing("2026-09-26", "uv", new_in_table=PAPER), index)
    code, out, err = run(capsys, "audit", "--index", index)
    assert code in (0, 1), err
    said = f"arXiv {PAPER} is listed as '本次新增' but a record had it on 2026-09-20 (card/2000)"
    flagged = sorted(line.strip() for line in out.splitlines() if said in line)
    assert flagged == [f"! nova 2026-09-24: {said}", f"! nova 2026-09-26: {said}"]

"""The briefings the parser and gate tests read, in both layouts.

The two real briefings (``../shared/seeds``) are the ground truth for the
format, but they sit beside the project, not in it: a clone alone has none.
``tests/fixtures/briefings`` holds two briefings written for the tests in the
same two layouts, with the same structure where the tests look (wrapped
id-table rows, an id listed both as 本次新增 and as 9-16锚定, a citation of an
id anchored on an earlier day, a key point holding the credibility, …), so
every behaviour is tested with or without the seeds. Each test that reads a
briefing runs once per source; the seed run skips, with the reason shown by
``pytest -ra``, when the seeds are absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
FIXTURES = ROOT / "tests" / "fixtures" / "briefings"
SEEDS_ABSENT = (
    f"the real briefings are not beside this checkout ({SEEDS}); tests/fixtures/briefings covers the same behaviours"
)


@dataclass(frozen=True)
class Briefing:
    """One briefing file, and the facts about it that differ between sources."""

    path: Path
    id_table_rows: int
    date: str
    """The briefing's own date: its record ids carry it, as the file name does not."""

    @property
    def stem(self) -> str:
        return self.path.stem

    def record_id(self, number: int, instance: str = "tom") -> str:
        return f"{instance}/{self.stem}@{self.date}#{number}"


# 增量 N：Title（⭐⭐⭐） layout, tom, 2026-09-19, five increments.
SEED_0919 = Briefing(SEEDS / "000_c534be5e5b71eb8c.txt", id_table_rows=20, date="2026-09-19")
FIXTURE_0919 = Briefing(FIXTURES / "tom-0919.txt", id_table_rows=12, date="2026-09-19")
# 增量 N【Area · §x.y 首次锚入】🟢 Title ★★★ layout, tom, 2026-08-26, five increments.
SEED_0826 = Briefing(SEEDS / "003_11fd4a84ef5353d3.txt", id_table_rows=7, date="2026-08-26")
FIXTURE_0826 = Briefing(FIXTURES / "tom-0826.txt", id_table_rows=7, date="2026-08-26")

_SKIP_WITHOUT_SEEDS = pytest.mark.skipif(not SEEDS.is_dir(), reason=SEEDS_ABSENT)


def from_seed_and_fixture(seed: object, fixture: object) -> list[object]:
    """Parameters for a test or fixture: the seed (skipped when absent) and the fixture."""
    return [pytest.param(seed, id="seed", marks=_SKIP_WITHOUT_SEEDS), pytest.param(fixture, id="fixture")]


LAYOUT_0919 = from_seed_and_fixture(SEED_0919, FIXTURE_0919)
LAYOUT_0826 = from_seed_and_fixture(SEED_0826, FIXTURE_0826)
# Folders holding exactly the two briefings above, ten increments in all.
BRIEFING_FOLDERS = from_seed_and_fixture(SEEDS, FIXTURES)


def written_briefing(day: str | None, items: list[tuple[str, str, str]], new_in_table: str | None = None) -> str:
    """A briefing in the team's layout, written for a test: one increment per
    (title, key point, 来源) of ``items``; no date when ``day`` is None; its id
    table lists ``new_in_table`` as 本次新增."""
    head = f"llm-infra · E1 预消化简报({day})" if day else "llm-infra · E1 预消化简报"
    lines = [head, "状态摘要", "二、增量条目"]
    for number, (title, point, source) in enumerate(items, 1):
        lines += [f"增量 {number}：{title}（⭐⭐⭐）", f"来源：{source}", "要点：", f"- {point}"]
        lines += ["可信度：中", "建议归入章节：§1.1"]
    if new_in_table:
        lines += ["四、可引用 arXiv 号列表", "| arXiv 号 | 标题 | 可信度 | 与 inference.md 关系 |", "|---|---|---|---|"]
        lines += [f"| {new_in_table} | A paper | 高 | 本次新增 → §1.1 |"]
    return "\n".join(lines) + "\n"

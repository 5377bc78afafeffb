"""A living-doc section's entry on a paper the item only cites is evidence for a claim
restating that paper's fact (``dedupe.cited_entries``), not for the item's own claims."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one, said_by
from test_finer_passages import OTHER, SECTION

from kbsearch.dedupe.results import Rule
from kbsearch.records import Kind, Record


def successor(claims: list[str]) -> Record:
    """A successor paper of its own id, citing the section's Pebble in its relation line."""
    return Record(
        id="jay/2026-11-09#1", kind=Kind.increment, instance="jay", date=dt.date(2026, 11, 9),
        title="Quarto：2-bit 缓存量化", text="", claims=claims, arxiv_ids=["2611.33333"],
        cited_ids=["2601.22222"], relation="§2.4 以 Pebble（arXiv:2601.22222）为基线",
    )  # fmt: skip


def test_a_claim_restating_the_cited_papers_entry_is_known_from_the_section(tmp_path: Path) -> None:
    claims = ["前作回顾：Pebble 以 3-bit 量化缓存，长序列下内存减少 6.4x", "新版：长序列下内存减少 9.1x"]
    item = check_one(tmp_path, [SECTION, OTHER], successor(claims), said_by("lexical"))
    [match] = [m for m in item.matches if m.id == SECTION.id]
    assert not match.same_item and match.rule is Rule.doc_section  # not the item, but evidence
    recalled, own = item.claims
    assert recalled.known and recalled.best_id == SECTION.id
    assert not own.known  # its own figure: the entry on Pebble does not state it


def test_the_entry_on_a_paper_the_item_does_not_cite_is_no_evidence(tmp_path: Path) -> None:
    """Lumen's line in the same section: the item cites Pebble only."""
    item = check_one(
        tmp_path, [SECTION, OTHER], successor(["对照：Lumen 按行块重排缓存，读取带宽下降约 35%"]), said_by("lexical")
    )
    [claim] = item.claims
    assert not claim.known

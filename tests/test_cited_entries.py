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


SLT = Record(
    id="doc/speech#§2.2", kind=Kind.doc_section, title="§2.2 语音翻译", date=dt.date(2026, 11, 2),
    text="Tern-SLT（arXiv:2601.44444，Marlin Labs）是级联式 SLT，支持 20 种语言，属于离线翻译而非流式翻译。",
    arxiv_ids=["2601.44444"],
)  # fmt: skip


def streaming(claims: list[str]) -> Record:
    """A new paper of Marlin Labs building on Tern-SLT, which it cites."""
    return Record(
        id="liz/2026-11-09#3", kind=Kind.increment, instance="liz", date=dt.date(2026, 11, 9),
        title="Tern-Live — streaming speech translation from Marlin Labs", text="", claims=claims,
        arxiv_ids=["2611.55555"], cited_ids=["2601.44444"], relation="§2.2 holds Tern-SLT (arXiv:2601.44444)",
    )  # fmt: skip


def test_the_acronym_inside_the_cited_papers_name_does_not_name_the_paper(tmp_path: Path) -> None:
    """SLT, the field of Tern-SLT: a claim on the item's task naming it is no claim on the cited paper,
    and the entry saying the cited model is offline does not make it known (probe 48)."""
    item = check_one(tmp_path, [SLT, OTHER], streaming(["SLT，属于流式翻译而非离线翻译"]), said_by("lexical"))
    [task] = item.claims
    assert not task.known and item.stated_in_doc == []


def test_a_claim_naming_the_cited_paper_whole_is_still_known_from_its_entry(tmp_path: Path) -> None:
    item = check_one(tmp_path, [SLT, OTHER], streaming(["Tern-SLT 支持 20 种语言"]), said_by("lexical"))
    [recalled] = item.claims
    assert recalled.known and recalled.best_id == SLT.id

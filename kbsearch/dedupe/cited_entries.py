"""A living-doc section's entries on a paper the item only cites: evidence for a claim on that paper.

An item often recalls the paper it follows or compares with ("前代回顾：V1 生成 5 秒 720p
片段，VBench-X 81.7 分") and cites its id in the relation line; the section listing that
paper states the very fact. The section is not the item (``rules``: a doc section), and its
entries on the cited paper are not on the item (``finer.section_on_item``: audit does not hold
the item "in doc" by them), so the claim was new (probe 36). Here those entries are evidence
for a claim that names the cited paper: a name the entry writes and the item's title does not
(V1 beside the title's V2), or the cited id itself. A claim on the item alone ("V2 生成 8 秒")
names no such name, and a figure the entry does not state keeps a claim new anyway
(``claims.judge_said``): a field survey still makes known only what it says.

The entry's names are its whole names (``features.whole_names``): the acronym in a hyphenated
name is the field the paper works in, not the paper (S2ST of Polyglot-S2ST). A simultaneous
speech translator's claim on its task named S2ST, and the entry on the whole-utterance model it
builds on, saying that model is not simultaneous, made it known (probe 48): the other paper's
fact, the opposite of the claim's.
"""

from __future__ import annotations

from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.features import whole_names
from kbsearch.dedupe.finer import named_in, naming
from kbsearch.records import Kind, Record


def cited_entries(item: Record, sections: list[Embedded]) -> list[Record]:
    """Each section listing a paper the item only cites, cut to its entries naming that paper."""
    cited = set(item.cited_ids) - set(item.arxiv_ids)
    out = []
    for section in sections:
        ids = cited & set(section.record.arxiv_ids)
        if section.record.kind is Kind.doc_section and ids and (cut := naming(section.record, ids)) is not None:
            out.append(cut)
    return out


def on_cited(claim: str, item: Record, entries: list[Record]) -> list[Record]:
    """The entries whose cited paper the claim names: by its id, or by a whole name the entry
    writes (not the acronym inside a hyphenated one) that the item's title does not."""
    named = named_in(claim) - named_in(item.title)
    return [
        e for e in entries if any(i in claim for i in e.arxiv_ids) or named & whole_names(frozenset(named_in(e.text)))
    ]

"""The records of one item among a search's best hits.

The knowledge base holds the same item several times: a paper card, the
briefings of several instances on several days, often in both languages. A
query that finds one of them well may find the others badly (a Chinese query
and the English record on the same paper share few words, and the model
sees only part of the match), yet a user who asked about the item wants all
of them. Two records are taken for one item, as the dedupe rules take them,
when their titles lead with the same rare coined name (TriAttention …,
When2Think: …), or when both are about one and the same arXiv id alone.
A leading name held by more than ``max(5, 1%)`` titles names a topic (vLLM),
not an item. A living-doc section is no member of an item, nor its head, even
when it lists one paper alone: it is the topic's overview (``similar`` and
``check`` never take it for the same item), so it is listed at its own score.
"""

from __future__ import annotations

from kbsearch.records import Kind, RecordHead
from kbsearch.store import SearchFilter, Store
from kbsearch.text.plain_names import head_plain_name
from kbsearch.text.textsim import head_names

RARE_TITLES_MIN = 5
RARE_TITLES_SHARE = 0.01


def same_item(store: Store, leaders: list[int], flt: SearchFilter) -> dict[int, int]:
    """Record → the first of ``leaders`` (row ids, best first) it shares an
    item with, for the records within ``flt``. A leader maps only to a better
    leader of its item, never to itself or to a worse one."""
    heads = store.heads(leaders, 0)
    limit = int(max(RARE_TITLES_MIN, RARE_TITLES_SHARE * store.record_total()))
    found: dict[int, int] = {}
    for place, leader in enumerate(leaders):
        head = heads.get(leader)
        if head is None or head.kind is Kind.doc_section:
            continue
        for rowid in store.restrict(_siblings(store, head, limit), flt):
            if rowid not in found and rowid not in leaders[: place + 1]:
                found[rowid] = leader
    return found


def _siblings(store: Store, head: RecordHead, limit: int) -> list[int]:
    names = _head_names(head.title)
    holders = [r for name in names for r in _rare_holders(store, name, limit)]
    if len(head.arxiv_ids) == 1:
        holders += store.rowids_with_arxiv(head.arxiv_ids, role="subject")
    heads = store.heads(dict.fromkeys(holders), 0)
    return [
        rowid
        for rowid, other in heads.items()
        if other.kind is not Kind.doc_section
        and ((names & _head_names(other.title)) or (len(head.arxiv_ids) == 1 and other.arxiv_ids == head.arxiv_ids))
    ]


def _head_names(title: str) -> set[str]:
    """The names a title leads with: coined ones, or a plain word it is about ("Brimstone — …";
    probe 25: an English and a Chinese record of Brimstone were not one item in search)."""
    return head_names(title) | head_plain_name(title)


def _rare_holders(store: Store, name: str, limit: int) -> list[int]:
    holders = store.rowids_holding(name, "title", limit)
    return holders if len(holders) <= limit else []

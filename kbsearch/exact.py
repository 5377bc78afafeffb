"""The records carrying an exact identifier from a query, in tiers.

An arXiv id, a GitHub repo or a URL in a query says which records are
wanted more surely than any score, so those records come first, tier by tier:

1. ``about``: paper cards whose only subject is the id: the paper's own record;
2. ``about``: other records about the id alone (an increment reporting the paper);
3. ``overview``: records about several ids, the id among them. A living-doc
   section that lists the papers of its topic is about each of them (it is
   their accepted home, and ``check`` compares a new item with it), but it
   is about none of them in particular, so it follows the records about the
   id alone;
4. ``cites``: records that only cite the id (related work, 与活文档现有脉络的关系);
5. ``ref``: records carrying a repo or URL from the query.

An identifier that no record within the filters carries is reported, so that
a mistyped or unknown id is not silently answered with unrelated records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbsearch.records import Kind
from kbsearch.responses import Tier
from kbsearch.store import SearchFilter, Store


@dataclass
class Pins:
    """The query's exact identifiers and the records carrying them."""

    tiers: list[tuple[Tier, list[int]]] = field(default_factory=list)
    """Non-empty tiers in order, each a list of row ids (unordered within)."""
    missing: list[str] = field(default_factory=list)
    """Identifiers from the query that no record within the filter carries."""

    def rowids(self) -> list[int]:
        return [r for _, group in self.tiers for r in group]


def find_pins(store: Store, exact: list[str], flt: SearchFilter) -> Pins:
    """The records within ``flt`` carrying one of ``exact`` (normalized arXiv
    ids, ``github:owner/repo``, ``url:…``), in the tiers above."""
    if not exact:
        return Pins()
    arxiv = [e for e in exact if ":" not in e]
    refs = [e for e in exact if ":" in e]
    subject = store.restrict(store.rowids_with_arxiv(arxiv, role="subject"), flt)
    cited = store.restrict(store.rowids_with_arxiv(arxiv, role="cited"), flt)
    referring = store.restrict(store.rowids_with_refs(refs), flt)
    heads = store.heads(subject, 0)
    alone = [r for r in subject if r in heads and len(heads[r].arxiv_ids) == 1]
    cards = [r for r in alone if heads[r].kind is Kind.paper_card]
    groups: list[tuple[Tier, list[int]]] = [
        ("about", cards),
        ("about", [r for r in alone if r not in cards]),
        ("overview", [r for r in subject if r not in alone]),
        ("cites", cited),
        ("ref", referring),
    ]
    seen: set[int] = set()
    tiers: list[tuple[Tier, list[int]]] = []
    for tier, group in groups:
        kept = [r for r in dict.fromkeys(group) if r not in seen]
        seen.update(kept)
        if kept:
            tiers.append((tier, kept))
    return Pins(tiers=tiers, missing=_missing(store, arxiv, refs, flt))


def _missing(store: Store, arxiv: list[str], refs: list[str], flt: SearchFilter) -> list[str]:
    found = [a for a in arxiv if store.restrict(store.rowids_with_arxiv([a]), flt)]
    found += [r for r in refs if store.restrict(store.rowids_with_refs([r]), flt)]
    return [e for e in [*arxiv, *refs] if e not in found]

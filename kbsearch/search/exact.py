"""The records carrying an exact identifier from a query, in tiers.

An arXiv id, a GitHub repo or a URL in a query says which records are
wanted more surely than any score, so those records come first, tier by tier:

0. ``record``: the record whose id the query is (above);
1. ``card``: paper cards whose only subject is the id: the paper's own record;
2. ``about``: other records about the id alone (an increment reporting the paper);
3. ``overview``: records about several ids, the id among them, and every
   living-doc section about the id. A section that lists the papers of its
   topic is about each of them (it is their accepted home, and ``check``
   compares a new item with it), but it is about none of them in particular,
   even when it lists one alone, so it follows the records about the id alone;
4. ``cites``: records that only cite the id (related work, 与活文档现有脉络的关系);
5. ``ref``: records carrying a repo or URL from the query.

A query that is a record's id (``card/2004``, ``doc/inference#§1.5``), or the
start of one id alone as ``kbsearch show`` takes it, lists that record first,
in the tier ``record``, and alone (the start of several ids: the first ``k`` of
their records in id order, and how many there are); one shaped as a record id that names none lists
nothing, as a query of arXiv ids alone that no record carries. A query of several record ids
(``card/12 card/31 tom/…#2``: each token with a ``/`` that begins stored ids) lists those records
alone, in the order given, and names the ids no record has. An identifier that no record within the
filters carries is reported, so that a mistyped or unknown id is not silently
answered with unrelated records, with the first records outside the filters
that carry it (a ``--kind`` or ``--instance`` hid it: which one to drop); so is a query shaped as a record id (one
token with a ``/``) whose first part begins stored ids (``card/``, ``tom/``)
but which is no id nor the start of one.

A GitHub repo is one identifier however the query writes it: its address
(``https://github.com/o/r``), ``github.com/o/r``, ``GitHub o/r`` or the bare
``o/r``. A bare ``o/r`` may also be two words (prefill/decode), so it pins the
records that carry such a repo and is never reported when none does.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from kbsearch.records import Kind
from kbsearch.responses import Tier
from kbsearch.store import SearchFilter, Store
from kbsearch.text.folding import normal_form
from kbsearch.text.ids import bare_repos, extract_github_repos, extract_urls, github_repo_of, query_arxiv_ids

ELSEWHERE_SHOWN = 3
"""The records named as carrying a missing identifier outside the filters."""
ID_START_COUNTED = 10_000
"""The ids starting as a query does that are counted (``Pins.starting``); more are not."""


@dataclass(frozen=True)
class QueryIds:
    """The exact identifiers of a query, folded as records' are (``kbsearch.text.ids``)."""

    named: list[str] = field(default_factory=list)
    """Written as identifiers (arXiv ids, ``github:o/r``, ``url:…``): reported when no record carries one."""
    bare: list[str] = field(default_factory=list)
    """``github:o/r`` from a bare ``o/r`` token: pinned when carried, never reported."""
    record: str | None = None
    """The query itself when it is one token: it may be a record's id (or, with a ``/``, the start of one)."""
    records: list[str] = field(default_factory=list)
    """The query's tokens when it is several, each with a ``/``: they may be record ids."""

    def all(self) -> list[str]:
        return self.named + self.bare


def query_ids(query: str) -> QueryIds:
    """The identifiers ``query`` asks for. A repo's own address is the repo
    (``github:o/r``), not a URL besides it: records write the repo in forms
    that carry no URL at all. A deeper GitHub link is a URL and its repo."""
    repos = extract_github_repos(query)
    urls = [u for u in extract_urls(query) if github_repo_of(u) is None]
    named = query_arxiv_ids(query) + [f"github:{r}" for r in repos] + [f"url:{u}" for u in urls]
    bare = [f"github:{r}" for r in bare_repos(normal_form(query))]
    whole = unicodedata.normalize("NFKC", query).strip()
    record = whole if whole and not any(ch.isspace() for ch in whole) else None
    tokens = list(dict.fromkeys(whole.split()))
    records = tokens if len(tokens) > 1 and all("/" in t and "://" not in t for t in tokens) else []
    return QueryIds(named=named, bare=[b for b in bare if b not in named], record=record, records=records)


@dataclass
class Pins:
    """The query's exact identifiers and the records carrying them."""

    tiers: list[tuple[Tier, list[int]]] = field(default_factory=list)
    """Non-empty tiers in order, each a list of row ids (unordered within)."""
    missing: list[str] = field(default_factory=list)
    """Identifiers from the query that no record within the filter carries,
    and a record id that no record within the filter has."""
    elsewhere: dict[str, list[str]] = field(default_factory=dict)
    """For a missing identifier that records outside the filter carry: the first
    ``ELSEWHERE_SHOWN`` of those records' ids, so the user knows which filter hid it."""
    starting: int | None = None
    """The query is the start of several record ids: how many within the filter
    (up to ``ID_START_COUNTED``) start so; the first ``k`` of them, in id order, are the tier ``record``."""

    def record(self) -> bool:
        """The query named a record, which is listed alone."""
        return any(tier == "record" for tier, _ in self.tiers)

    def alone(self, ids: QueryIds) -> bool:
        """The query is a record's id, or is shaped as one and names none within the filters:
        that record is listed alone, or nothing (the records nearest to ``card/2199`` are no answer)."""
        shaped = [ids.record] if ids.record is not None else ids.records
        return self.record() or (bool(shaped) and all(r in self.missing for r in shaped))

    def rowids(self) -> list[int]:
        return [r for _, group in self.tiers for r in group]


def find_pins(store: Store, ids: QueryIds, flt: SearchFilter, k: int) -> Pins:
    """The records within ``flt`` carrying one of ``ids`` (normalized arXiv
    ids, ``github:owner/repo``, ``url:…``), in the tiers above; of the start
    of several record ids, the first ``k`` records whose id starts so."""
    exact = ids.all()
    several = _named_records(store, ids.records, flt)
    outside: dict[str, list[str]] = {}
    if several is not None:
        named, unknown, outside = several
        starting = None
    else:
        named, unknown, starting = _named_record(store, ids.record, flt)
    named = named[:k]
    if not exact:
        return Pins(tiers=[("record", named)] if named else [], missing=unknown, elsewhere=outside, starting=starting)
    arxiv = [e for e in exact if ":" not in e]
    refs = [e for e in exact if ":" in e]
    subject = store.restrict(store.rowids_with_arxiv(arxiv, role="subject"), flt)
    cited = store.restrict(store.rowids_with_arxiv(arxiv, role="cited"), flt)
    referring = store.restrict(store.rowids_with_refs(refs), flt)
    heads = store.heads(subject, 0)
    alone = [
        r for r in subject if r in heads and len(heads[r].arxiv_ids) == 1 and heads[r].kind is not Kind.doc_section
    ]
    cards = [r for r in alone if heads[r].kind is Kind.paper_card]
    groups: list[tuple[Tier, list[int]]] = [
        ("record", named),
        ("card", cards),
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
    missing, elsewhere = _missing(store, ids.named, flt)
    # An owner/repo token whose owner is an instance (tom/vllm) is the repo its records carry.
    unknown, starting = ([], None) if referring else (unknown, starting)
    return Pins(tiers=tiers, missing=missing + unknown, elsewhere=elsewhere | outside, starting=starting)


def _named_records(
    store: Store, wanted: list[str], flt: SearchFilter
) -> tuple[list[int], list[str], dict[str, list[str]]] | None:
    """Of a query of several record ids: the rows of those within ``flt``, in the order given;
    the ids no record within ``flt`` has; and of those, each that a record outside ``flt`` has
    (itself). None when a token is no id nor begins as stored ids do (prefill/decode): words."""
    if not wanted:
        return None
    rows = store.rowids_of(wanted)
    if not all(w in rows or store.ids_with_prefix(w.split("/")[0] + "/", 1) for w in wanted):
        return None
    kept = set(store.restrict([rows[w] for w in wanted if w in rows], flt))
    missing = [w for w in wanted if rows.get(w) not in kept]
    return [rows[w] for w in wanted if rows.get(w) in kept], missing, {w: [w] for w in missing if w in rows}


def _named_record(store: Store, wanted: str | None, flt: SearchFilter) -> tuple[list[int], list[str], int | None]:
    """The row of the record whose id is ``wanted``, or the rows of those whose
    id starts with it (as ``kbsearch show`` takes it: the start of one id, or
    of several, then in id order with their count), within ``flt``; else
    ``wanted`` as missing when it is no id but begins as stored ids do (``card/``)."""
    if wanted is None:
        return [], [], None
    rowid = store.rowids_of([wanted]).get(wanted)
    if rowid is None and "/" not in wanted:  # a word, not an id's start (MoE, 2.4x)
        return [], [], None
    if rowid is None:
        starting = store.ids_with_prefix(wanted, ID_START_COUNTED)
        if len(starting) > 1:  # the start of several ids: show names them, search lists them
            rows = store.rowids_of(starting)
            listed = store.restrict([rows[i] for i in starting if i in rows], flt)
            return listed, [] if listed else [wanted], len(listed) or None
        rowid = store.rowids_of(starting).get(starting[0]) if starting else None
    if rowid is not None:
        kept = store.restrict([rowid], flt)
        return kept, [] if kept else [wanted], None
    return [], [wanted] if store.ids_with_prefix(wanted.split("/")[0] + "/", 1) else [], None


def _missing(store: Store, named: list[str], flt: SearchFilter) -> tuple[list[str], dict[str, list[str]]]:
    """The identifiers no record within ``flt`` carries; and for those that records
    outside it carry, the ids of the first ``ELSEWHERE_SHOWN`` of them."""
    missing: list[str] = []
    elsewhere: dict[str, list[str]] = {}
    for ident in named:
        rows = store.rowids_with_refs([ident]) if ":" in ident else store.rowids_with_arxiv([ident])
        if store.restrict(rows, flt):
            continue
        missing.append(ident)
        if rows:
            heads = store.heads(sorted(rows)[:ELSEWHERE_SHOWN], 0)
            elsewhere[ident] = [head.id for head in heads.values()]
    return missing, elsewhere

"""Audit's clusters: stars around a first-seen record, grown from the
judgements in time order, under rules that transitivity alone would break:

- a record joins a cluster through exact evidence shared with any member,
  or through a learned judgement of the cluster's first-seen record itself,
  never of a later member (which would chain A to C through B);
- two records about different arXiv ids are never in one cluster;
- a record about several ids (a living-document section, a survey) joins
  each cluster it is directly the same item as, but never links two
  clusters: it is evidence for each pair, not a bridge between them;
- one paper is one cluster: stars whose single-subject records are about one
  arXiv id are merged (two increments of one briefing about one paper are
  never compared, and a section listing it joined each as its own star).

Rows, not records: the roster and the judgements are arrays, and only
clusters of more than one record take any memory of their own.
"""

from __future__ import annotations

import numpy as np

from kbsearch.dedupe.judging import Judged
from kbsearch.dedupe.roster import Roster


def grow_clusters(roster: Roster, judged: Judged) -> list[list[int]]:
    """The clusters of more than one record, as lists of rows."""
    single = roster.present.copy()
    for row in roster.arxiv:
        single[row] &= not roster.is_hub(row)
    group_of = _exact_groups(roster, single, judged)
    first_of = np.full(len(roster), -1, dtype=np.int64)
    members: dict[int, list[int]] = {}
    ids: dict[int, frozenset[str]] = {}
    rows = np.flatnonzero(single)
    for row in rows[np.argsort(roster.rank[rows], kind="stable")].tolist():
        if first_of[row] >= 0:
            continue  # a later member of an exact group, placed with its group
        group = group_of.get(row, [row])
        own = frozenset().union(*(roster.ids_of(r) for r in group))
        joined = _surest_first(group, own, judged, first_of, ids)
        if joined is None:
            if len(group) > 1:
                members[row] = list(group)
            first = row  # iterated by rank, so the group's earliest
        else:
            first = joined
            members.setdefault(first, [first]).extend(group)
        if own:
            ids[first] = ids.get(first, frozenset()) | own
        first_of[group] = first
    _add_hubs(roster, judged, single, first_of, members)
    return _one_per_paper(roster, list(members.values()))


def _one_per_paper(roster: Roster, clusters: list[list[int]]) -> list[list[int]]:
    """The clusters, those whose single-subject items are about the same arXiv
    id merged into the first of them, a record (a hub) listed once. A living-doc
    section's ids take no part: a section never links two clusters, and one listing
    only an earlier item's id (probe 23: §2.1 listed Sable's, and held EchoVault by
    name) would merge that item's cluster into another item's."""
    docs = roster.docs if len(roster.docs) == len(roster) else np.zeros(len(roster), dtype=bool)
    paper: dict[frozenset[str], tuple[list[int], set[int]]] = {}
    out = []
    for group in clusters:
        key = frozenset().union(*(roster.ids_of(r) for r in group if not roster.is_hub(r) and not docs[r]))
        if not key:
            out.append(group)
        elif key in paper:
            into, held = paper[key]
            into += [r for r in group if r not in held]
            held.update(group)
        else:
            paper[key] = (group, set(group))
            out.append(group)
    return out


def _surest_first(
    group: list[int], own: frozenset[str], judged: Judged, first_of: np.ndarray, ids: dict[int, frozenset[str]]
) -> int | None:
    """The first-seen record that a member of ``group`` was judged most surely
    the same item as (the first such among equals), if any may be joined."""
    best: int | None = None
    for later in group:
        for at in judged.before(later):
            earlier = int(judged.earlier[at])
            if judged.held[at]:
                continue  # a section holding the item joins as a hub (``_add_hubs``), never heads it
            theirs = ids.get(earlier, frozenset())
            if first_of[earlier] != earlier or (own and theirs and own != theirs):
                continue
            if best is None or judged.strength(at) > judged.strength(best):
                best = at
    return None if best is None else int(judged.earlier[best])


def _add_hubs(
    roster: Roster, judged: Judged, single: np.ndarray, first_of: np.ndarray, members: dict[int, list[int]]
) -> None:
    """Each record about several ids joins the cluster of every single-subject
    record it was judged the same item as."""
    placed: set[tuple[int, int]] = set()
    for earlier, later, held in zip(judged.earlier.tolist(), judged.later.tolist(), judged.held.tolist(), strict=True):
        for hub, other in ((earlier, later), (later, earlier)):
            # A living-doc section holding the item (``in_doc``) joins its cluster as a hub does.
            holds = held == (1 if hub == earlier else 2)
            if (single[hub] and not holds) or not single[other]:
                continue
            first = int(first_of[other])
            if (first, hub) not in placed:  # hubs enter clusters only here
                members.setdefault(first, [first]).append(hub)
                placed.add((first, hub))


def _exact_groups(roster: Roster, single: np.ndarray, judged: Judged) -> dict[int, list[int]]:
    """Row → its group (rows ascending), for the rows that exact evidence joins
    to another; never two different arXiv ids in one group."""
    exact = judged.exact & (judged.held == 0) & single[judged.earlier] & single[judged.later]
    parent: dict[int, int] = {}
    ids: dict[int, frozenset[str]] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(judged.earlier[exact].tolist(), judged.later[exact].tolist(), strict=True):
        ra, rb = find(a), find(b)
        mine, theirs = ids.get(ra, roster.ids_of(ra)), ids.get(rb, roster.ids_of(rb))
        if ra != rb and not (mine and theirs and mine != theirs):
            parent[rb] = ra
            ids[ra] = mine | theirs
            ids.pop(rb, None)
    groups: dict[int, list[int]] = {}
    for row in sorted(parent):
        groups.setdefault(find(row), []).append(row)
    return {row: group for group in groups.values() if len(group) > 1 for row in group}

"""What ``audit`` keeps of every record at once: a few numbers, not the record.

At a million records audit cannot hold the records themselves (4.4 KB each
as pydantic objects, 2 KB more for a vector, 1 KB for the text features:
more than 17 GB with the pairs). It reads them in chunks and keeps, per
record, only what pairing and clustering read: its place in first-seen
order, a key of its briefing (file and day) and of its normalised text, its arXiv ids (for the
few records that have any), whether it is marked new and a key of each coined name it
holds (``name_pairs``). About 40 bytes a record and 16 a name; a record is read
again only when a pair or a cluster needs it.

Rows are positions among the audited row ids, ascending.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np

from kbsearch.dedupe.flags import NEW_MARKERS
from kbsearch.dedupe.name_pairs import NameKeys
from kbsearch.records import Kind, Record
from kbsearch.store import Store
from kbsearch.text.textsim import language, normalized

CHUNK = 20_000
"""Records read at once: 20k records are about 90 MB as pydantic objects."""

# Sorts after every real date, as ``seen_order`` puts undated records last.
_NO_DATE = dt.date.max.toordinal() + 1

Visit = Callable[[np.ndarray, np.ndarray], None]
"""Called with each chunk's rows that have a whole vector, and those vectors."""


@dataclass
class Roster:
    """Per audited record, the facts pairing and clustering read, as arrays."""

    rowids: np.ndarray
    """The audited records' row ids, ascending: row i is record ``rowids[i]``."""
    present: np.ndarray
    """Whether the record has a whole-text vector; records without one are not audited."""
    rank: np.ndarray
    """Place in first-seen order (``flags.seen_order``, then by id): earliest date
    first, on one day a living doc's section last, a writer's record before
    an unattributed card, then the record stored first."""
    briefing_key: np.ndarray
    """A key of the record's briefing (``briefing_of``; 0: no file). One
    briefing's records are never compared: its increments are distinct by
    construction."""
    text_key: np.ndarray
    """A key of the normalised whole text: equal keys are candidate identical texts."""
    marked_new: np.ndarray
    """The record's anchor calls it new (本次新增, 首次锚入, new …)."""
    chinese: np.ndarray
    """The record is written in Chinese (``textsim.language``), else in English."""
    arxiv: dict[int, frozenset[str]] = field(default_factory=dict)
    """Row → the arXiv ids the record is about, for the rows that have any."""
    names: NameKeys = field(default_factory=NameKeys)
    """Each record's coined names as keys, for the pairs sharing a rare one (``name_pairs``)."""
    lacking_judge: list[str] = field(default_factory=list)
    """Ids of records without a judge vector (when the config has a judge)."""
    docs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """The record is a living-doc section (dated by the doc's last update, not by when the
    section was written)."""
    reported: np.ndarray | None = None
    """The rows a filtered audit reports on (None: every row): their flags, and
    the clusters holding any of them. Every row is compared and clustered all
    the same, so a reported row's cluster, and who in it was first, is the one
    the unfiltered audit finds."""

    def __len__(self) -> int:
        return len(self.rowids)

    @property
    def audited(self) -> int:
        return int(self.reportable.sum())

    @property
    def reportable(self) -> np.ndarray:
        """Rows present and reported on."""
        return self.present if self.reported is None else self.present & self.reported

    def ids_of(self, row: int) -> frozenset[str]:
        return self.arxiv.get(row, frozenset())

    def is_hub(self, row: int) -> bool:
        """About several arXiv ids: evidence for each, a bridge between none."""
        return len(self.arxiv.get(row, ())) > 1

    def same_briefing(self, a: int, b: int) -> bool:
        return bool(self.briefing_key[a] != 0 and self.briefing_key[a] == self.briefing_key[b])


def briefing_of(file: str | None, date: dt.date | None) -> tuple[str, dt.date | None] | None:
    """What "one file" is to audit: one file on one day. An inbox file reused from
    day to day (``inbox/nova/today.md``) holds a day's briefing each day, and its
    days are compared as dated files are; one day's items are distinct items."""
    return (file, date) if file else None


def read_roster(
    store: Store,
    rowids: np.ndarray,
    judge: str | None,
    visit: Visit,
    judge_visit: Visit | None = None,
    chunk: int = CHUNK,
) -> Roster:
    """Read the records ``rowids`` (ascending, each once) in chunks: fill the
    roster, and hand each chunk's whole vectors to ``visit`` (and its judge
    vectors to ``judge_visit``) before the chunk is let go."""
    n = len(rowids)
    roster = Roster(
        rowids=rowids,
        present=np.zeros(n, dtype=bool),
        rank=np.zeros(n, dtype=np.int64),
        briefing_key=np.zeros(n, dtype=np.int64),
        text_key=np.zeros(n, dtype=np.int64),
        marked_new=np.zeros(n, dtype=bool),
        chinese=np.zeros(n, dtype=bool),
    )
    order = _OrderKeys(n)
    for start in range(0, n, chunk):
        rows = np.arange(start, min(start + chunk, n))
        _read_chunk(store, roster, order, rows, judge, visit, judge_visit)
    roster.rank = order.ranks()
    roster.docs = order.docs
    return roster


def _read_chunk(
    store: Store,
    roster: Roster,
    order: _OrderKeys,
    rows: np.ndarray,
    judge: str | None,
    visit: Visit,
    judge_visit: Visit | None,
) -> None:
    chunk_rowids = roster.rowids[rows].tolist()
    records = store.by_rowids(chunk_rowids)
    wholes = store.whole_vectors(records)
    judges = store.judge_vectors(records, judge) if judge is not None else {}
    read_from = store.files_of(chunk_rowids)
    named: list[int] = []
    texts: list[str] = []
    for row, rowid in zip(rows.tolist(), chunk_rowids, strict=True):
        record = records.get(rowid)
        if record is None or rowid not in wholes:
            continue
        _note(roster, order, row, record, record.source or read_from.get(rowid))
        named.append(row)
        texts.append(record.embed_text())
        if judge is not None and rowid not in judges:
            roster.lacking_judge.append(record.id)
    roster.names.note(named, texts)
    kept = rows[roster.present[rows]]
    if len(kept):
        visit(kept, np.stack([wholes[int(roster.rowids[r])] for r in kept]))
        judged = [r for r in kept.tolist() if int(roster.rowids[r]) in judges]
        if judge_visit is not None and judged:
            judge_visit(np.array(judged, dtype=np.int64), np.stack([judges[int(roster.rowids[r])] for r in judged]))


def _note(roster: Roster, order: _OrderKeys, row: int, record: Record, file: str | None) -> None:
    roster.present[row] = True
    briefing = briefing_of(file, record.date)
    roster.briefing_key[row] = _key(briefing) if briefing else 0
    roster.text_key[row] = _key(normalized(record.embed_text()))
    roster.marked_new[row] = bool(record.anchor and NEW_MARKERS.search(record.anchor))
    roster.chinese[row] = language(record.embed_text()) == "zh"
    if record.arxiv_ids:
        roster.arxiv[row] = frozenset(record.arxiv_ids)
    order.note(row, record)


def _key(value: Hashable) -> int:
    """A 64-bit key of a string or a briefing (0 is kept for "none"); equal values, equal keys."""
    return hash(value) or 1


class _OrderKeys:
    """The parts of ``flags.seen_order`` (date, doc or not, arrival, instance) and the id for
    every row, turned into ranks once all are read: a million key tuples would cost 200 MB."""

    def __init__(self, n: int) -> None:
        self.dates = np.full(n, _NO_DATE + 1, dtype=np.int64)
        self.docs = np.zeros(n, dtype=bool)
        self.instances = np.full(n, -1, dtype=np.int64)
        self.names: dict[str, int] = {}
        self.ids: list[str] = [""] * n

    def note(self, row: int, record: Record) -> None:
        self.dates[row] = record.date.toordinal() if record.date else _NO_DATE
        self.docs[row] = record.kind is Kind.doc_section
        if record.instance is not None:
            self.instances[row] = self.names.setdefault(record.instance, len(self.names))
        self.ids[row] = record.id

    def ranks(self) -> np.ndarray:
        # Instances by name, then "no instance" last, as (instance is None, instance or "") sorts.
        name_rank = np.empty(len(self.names) + 1, dtype=np.int64)
        for rank, name in enumerate(sorted(self.names)):
            name_rank[self.names[name]] = rank
        name_rank[-1] = len(self.names)
        instance = name_rank[self.instances]  # -1 (none) reads the last entry
        id_rank = np.empty(len(self.ids), dtype=np.int64)
        id_rank[sorted(range(len(self.ids)), key=self.ids.__getitem__)] = np.arange(len(self.ids))
        # Rows are in row-id order, the order records were stored: on one day, after the
        # doc/card split, the record stored first (``seen_order``'s arrival), not a name.
        unattributed = self.instances < 0
        arrival = np.arange(len(self.ids))
        first_seen = np.lexsort((id_rank, instance, arrival, unattributed, self.docs, self.dates))
        ranks = np.empty(len(first_seen), dtype=np.int64)
        ranks[first_seen] = np.arange(len(first_seen))
        return ranks

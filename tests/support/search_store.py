"""A small store of dated increments for the search tests, embedded by the fake encoder."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store


def increment(id: str, title: str, text: str, i: int, instance: str = "spark") -> Record:
    """The ``i``-th increment of ``instance``: a day of October 2026 and a position from ``i``."""
    return Record.model_validate(
        {
            "id": id,
            "kind": Kind.increment,
            "title": title,
            "text": text,
            "instance": instance,
            "date": dt.date(2026, 10, 1 + i % 28),
            "source": f"/src/{instance}.md",
            "position": i,
        }
    )


def store_of(folder: Path, records: list[Record], encoder: FakeEncoder) -> Store:
    """A new store in ``folder`` holding ``records``."""
    store = Store.open(folder, create=True)
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store

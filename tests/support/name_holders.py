"""A store holding some records, read for how many hold each name (``dedupe.names.NameHolders``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import NAME_COUNT_CAP
from kbsearch.dedupe.names import NameHolders
from kbsearch.ingest import ingest_records
from kbsearch.records import Record
from kbsearch.store import ChangeSet, Store


@contextmanager
def holders_of(folder: Path, records: list[Record]) -> Iterator[NameHolders]:
    """The name counts of a new index in ``folder`` holding ``records``; closed after."""
    encoder = FakeEncoder()
    store = Store.open(folder / "idx", create=True)
    ingest_records(store, ChangeSet(upserts=records), model="fake", load_encoder=lambda: encoder)
    try:
        yield NameHolders(store, NAME_COUNT_CAP)
    finally:
        store.close()

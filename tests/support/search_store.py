"""A small store of dated increments for the search tests, embedded by the fake encoder."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

import numpy as np

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


class SteeredEncoder(FakeEncoder):
    """The ``queries`` along axis 0; a record holding a marker of ``cosines`` at that cosine with them (the
    rest on an axis of its own); other texts as the fake encoder hashes them, moved off axis 0, so a test
    of the ranking sets each record's cosine as a model gave it in the case it is after."""

    def __init__(self, queries: Sequence[str], cosines: dict[str, float]) -> None:
        super().__init__()
        self.queries, self.cosines = frozenset(queries), cosines

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = super().encode(texts)
        for row, text in enumerate(texts):
            if text.strip() in self.queries:
                out[row] = np.eye(self.dim, dtype=np.float32)[0]
                continue
            for axis, (marker, cosine) in enumerate(self.cosines.items(), start=1):
                if marker in text:
                    out[row] = cosine * np.eye(self.dim)[0] + np.sqrt(1 - cosine**2) * np.eye(self.dim)[axis]
                    break
            else:
                out[row, 0] = 0.0
                out[row] /= np.linalg.norm(out[row]) or 1.0
        return out

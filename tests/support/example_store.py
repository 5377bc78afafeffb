"""The example corpus in a store on the fake encoder, and a search of it: what the
search tests of ids (arXiv ids, record ids) read."""

from __future__ import annotations

from pathlib import Path

from fake_encoder import FakeEncoder
from kbsearch.ingest import ingest_records
from kbsearch.parse import iter_input_files, parse_file
from kbsearch.search import SearchMode, search
from kbsearch.store import ChangeSet, SearchFilter, Store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example_store(folder: Path) -> tuple[Store, FakeEncoder]:
    """A new index in ``folder`` holding every record of ``examples/``."""
    encoder = FakeEncoder()
    store = Store.open(folder / "idx", create=True)
    records = [r for path in iter_input_files([EXAMPLES]) for r in parse_file(path.resolve()).records]
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)
    return store, encoder


def ranked(examples: tuple[Store, FakeEncoder], query: str, mode: SearchMode = SearchMode.hybrid, **flt: object):  # type: ignore[no-untyped-def]
    store, encoder = examples
    return search(store, encoder, query, 10, SearchFilter(**flt), mode)

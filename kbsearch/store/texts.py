"""Every stored text at once, keyed by hash: what a reindex or doctor compares
with the vectors kept. Full scans, kept off the everyday ``Store`` facade."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbsearch.records import text_hash
from kbsearch.store.sql import load_record

if TYPE_CHECKING:
    from kbsearch.store.facade import Store


def whole_texts(store: Store) -> dict[str, str]:
    """Hash → whole text (``Record.embed_text``) of every record: what the judge reads."""
    texts: dict[str, str] = {}
    for (data,) in store.db.execute("SELECT data FROM records"):
        text = load_record(data).embed_text()
        texts[text_hash(text)] = text
    return texts


def all_passage_texts(store: Store) -> dict[str, str]:
    """Passage hash → text, for every passage of every record."""
    texts: dict[str, str] = {}
    for (data,) in store.db.execute("SELECT data FROM records"):
        texts.update((text_hash(t), t) for t in load_record(data).passages())
    return texts

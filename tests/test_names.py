"""Which records hold a coined name as a word (``kbsearch.dedupe.names``), and the
lookups a warm process keeps between checks until the index changes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.dedupe.names import NameHolders, holds_word, kept_lookups
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

ENCODER = FakeEncoder()


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("the des method", True),
        ("des at the start", True),
        ("ends with des", True),
        ("论文提出des方法", True),  # a Chinese character is no letter of the name's word
        ("describes the method", False),
        ("modes and codes", False),
        ("describes it; then des wins", True),  # the second occurrence is a word
        ("des2 is another name", False),
        ("c2des", False),
    ],
)
def test_a_name_is_held_only_as_a_word(text: str, held: bool) -> None:
    assert holds_word(text, "des") is held


def _write(store: Store, rid: str, text: str) -> None:
    record = Record(id=rid, kind=Kind.increment, title=rid, text=text, date=dt.date(2026, 9, 1))
    ingest_records(store, ChangeSet(upserts=[record]), model="fake", load_encoder=lambda: ENCODER)


def test_lookups_are_kept_between_checks_until_a_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    try:
        _write(store, "a", "FoldKV folds the KV cache; it describes DES too")
        _write(store, "b", "a note that describes nothing of the kind")
        lookups = []
        real = store.rowids_holding
        monkeypatch.setattr(store, "rowids_holding", lambda *a: lookups.append(a[0]) or real(*a))
        assert NameHolders(store, 50, kept_lookups(store)).count("FoldKV") == 1
        assert NameHolders(store, 50, kept_lookups(store)).count("FoldKV") == 1  # the next check: kept
        assert NameHolders(store, 50, kept_lookups(store)).count("DES") == 1  # "describes" is no DES
        assert lookups == ["FoldKV", "DES"]
        _write(store, "c", "FoldKV again, in another record")
        assert NameHolders(store, 50, kept_lookups(store)).count("FoldKV") == 2  # the write moved the generation
    finally:
        store.close()

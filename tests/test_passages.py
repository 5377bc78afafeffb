"""Which texts of a record get a vector, and what happens to an index whose
passages another version of kbsearch chose."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_encoder import FakeEncoder
from kbsearch.errors import KbError
from kbsearch.ingest import ingest_records, reindex_store
from kbsearch.kb.doctor import examine
from kbsearch.records import CLAIMS_FROM_CHARS, PASSAGES_VERSION, Kind, Record
from kbsearch.store import ChangeSet, Store, checkup, writer
from kbsearch.store.passages import META_KEY as PASSAGES_META

LONG_SENTENCE = "A first sentence that runs on about the paged KV cache and its eviction policy in detail."
SHORT_SENTENCE = "It helps."


def record(text: str = "", *, title: str = "Paged eviction", claims: list[str] | None = None) -> Record:
    return Record(id="r", kind=Kind.increment, title=title, text=text, claims=claims or [])


def test_a_short_text_is_embedded_whole_without_its_sentences() -> None:
    text = "KV pages are evicted coldest first. Hit rates rose by a third."
    assert len(text) < CLAIMS_FROM_CHARS
    assert record(text).passages() == ["Paged eviction", f"Paged eviction\n{text}"]


def test_a_long_text_adds_the_sentences_that_do_not_repeat_it() -> None:
    others = [f"Point {i} says something of its own about caches and pages." for i in range(6)]
    text = " ".join(others)
    assert len(text) >= CLAIMS_FROM_CHARS
    assert record(text).passages()[2:] == others


def test_a_sentence_that_is_most_of_the_text_gets_no_vector_of_its_own() -> None:
    long_one = "A single sentence that carries nearly all of this text, " * 6 + "and ends here."
    text = f"{long_one} Short tail here."
    passages = record(text).passages()
    assert long_one not in passages and "Short tail here." in passages


def test_given_claims_are_kept_unless_they_repeat_the_title() -> None:
    claims = ["Paged eviction", "Evicts the coldest pages first", "Hit rate up by a third"]
    passages = record(claims=claims).passages()
    assert passages[2:] == claims[1:]
    assert passages[1] == "Paged eviction\n" + "\n".join(claims)


def test_a_markdown_heading_is_neither_a_claim_nor_a_passage() -> None:
    """A card's body is split by headings; "## Method" labels a part and says nothing."""
    body = [f"Point {i} says something of its own about caches and pages." for i in range(6)]
    text = "\n".join(["## Method", *body[:3], "### Results", *body[3:]])
    card = record(text)
    assert card.claim_texts() == body
    assert not any(p.startswith("#") for p in card.passages())


# -- an index of another passage version -----------------------------------------------------


@pytest.fixture
def old_index(tmp_path: Path) -> Path:
    """An index as version 1 wrote it: every sentence of a short text a passage."""
    encoder = FakeEncoder()
    store = Store.open(tmp_path, create=True)
    texts = [f"Note {i} is about caches. It has a second sentence {i}." for i in range(20)]
    records = [Record(id=f"n{i}", kind=Kind.increment, text=t) for i, t in enumerate(texts)]
    ingest_records(store, ChangeSet(upserts=records), model="fake", load_encoder=lambda: encoder)
    old = [text_hash_list(r) for r in records]
    with writer.transaction(store):
        store.db.execute("DELETE FROM passages")
        for (rowid,), hashes in zip(
            store.db.execute("SELECT rowid FROM records ORDER BY rowid").fetchall(), old, strict=True
        ):
            store.db.executemany(
                "INSERT INTO passages(rowid, idx, content_hash) VALUES (?,?,?)",
                [(rowid, i, h) for i, h in enumerate(hashes)],
            )
        writer._put_vectors(store.db, {h: encoder.encode([t])[0] for r in records for h, t in old_texts(r)}, "fake")
        store.db.execute("UPDATE meta SET value = '1' WHERE key = ?", (PASSAGES_META,))
    store.close()
    return tmp_path


def old_texts(r: Record) -> list[tuple[str, str]]:
    from kbsearch.records import text_hash
    from kbsearch.text.textsim import sentences

    texts = [r.embed_text(), *sentences(r.text)]
    return [(text_hash(t), t) for t in texts]


def text_hash_list(r: Record) -> list[str]:
    return [h for h, _ in old_texts(r)]


def test_an_index_of_another_passage_version_says_reindex_and_reindex_mends_it(
    old_index: Path, fake_models: Path
) -> None:
    encoder = FakeEncoder()
    store = Store.open(old_index, model="fake")
    assert checkup.passages_version(store) == 1 and store.passage_count() == 60
    with pytest.raises(KbError, match="kbsearch reindex"):
        ingest_records(store, ChangeSet(upserts=[record("new")]), model="fake", load_encoder=lambda: encoder)
    assert store.search_records(encoder.encode(["Note 3 is about caches"])[0], 1)  # readers still work
    finding = next(f for f in examine(old_index).findings if f.check == "records")
    assert not finding.ok and "kbsearch reindex" in (finding.fix or "")
    report = reindex_store(store, model="fake", load_encoder=lambda: encoder)
    assert report.embedded == 0  # the whole texts already had vectors
    assert checkup.passages_version(store) == PASSAGES_VERSION and store.passage_count() == 20
    ingest_records(store, ChangeSet(upserts=[record("new")]), model="fake", load_encoder=lambda: encoder)
    assert examine(old_index).healthy
    store.close()

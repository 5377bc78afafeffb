"""A corpus of up to a million records of real text, and its vectors, cached.

    python bench/corpus.py [--records 1000000] [--encode]   # build (and encode) once; prints counts

Every record is made of real sentences of ../shared/eval, read at run time;
nothing is copied into the project. The corpus and its vectors live under
``$KBSEARCH_BENCH_CACHE`` (default /work/cache/scale), outside the repository.

Two parts:

- **Labelled records**: every row of the three dev digest streams as one
  record whose text is its summary alone, no title (``tldr_zh`` for feeds a
  and c, ``tldr_en`` for feed g): 14,713 records. Two records of one ``paper``
  are a true duplicate, within a feed, across feeds and across languages.
  The paper id is kept here as truth, never given to kbsearch.
- **Filler** up to the size asked: every distinct sentence of the other fields
  (titles, method and result summaries, English abstracts) and of the pair and
  parallel sets, windows of two and three neighbouring sentences of one text,
  and pairs of the pairs (both sides of a labelled pair, two neighbouring
  parallel rows). Filler never repeats a labelled summary, so the truth holds:
  it is hard distraction (other text about the same papers), not unlabelled
  duplicates of them.

Record order is fixed: the labelled records first, then the filler in one
seeded shuffle, so a 100k corpus is the first 100k records of the 1M one.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EVAL = ROOT.parent / "shared" / "eval"
CACHE = Path(os.environ.get("KBSEARCH_BENCH_CACHE", "/work/cache/scale"))
MODEL = "use-multilingual-v3"
STREAMS = {"a": "arxiv-digest-dev.jsonl", "c": "arxiv-digest-dev-c.jsonl", "g": "arxiv-digest-en-dev.jsonl"}
MAX_WINDOW = 4
MAX_CHARS = 700
PAIR_SPREAD = 14
DAYS = [f"2025-06-{d:02d}" for d in range(1, 13)]


@dataclass(frozen=True)
class Row:
    """One record of the corpus, as a JSONL line and its truth."""

    id: str
    text: str
    instance: str
    date: str
    kind: str
    paper: str | None = None

    def line(self) -> str:
        fields = {"id": self.id, "kind": self.kind, "text": self.text, "instance": self.instance, "date": self.date}
        # The document a record came from: one digest per feed and day, one note per filler record.
        source = f"digest/{self.instance}/{self.date}" if self.paper else f"note/{self.id}"
        return json.dumps({**fields, "source": source}, ensure_ascii=False)


def require_eval() -> None:
    if not (EVAL / "domain" / STREAMS["a"]).is_file():
        sys.exit(f"the evaluation sets are missing: {EVAL} (see ../shared/eval/README.md)")


def labelled_rows() -> list[Row]:
    """Each digest row's summary as a record, with its paper as truth."""
    rows = []
    for feed, name in STREAMS.items():
        field = "tldr_en" if feed == "g" else "tldr_zh"
        for i, line in enumerate((EVAL / "domain" / name).open(encoding="utf-8")):
            data = json.loads(line)
            text = (data.get(field) or "").strip()
            if text:
                kind = "paper_card" if i % 2 else "increment"
                rows.append(Row(f"{feed}/{i}", text, f"feed-{feed}", data["date"], kind, data["paper"]))
    return rows


def _stream_sequences() -> Iterator[tuple[list[str], str, str]]:
    """(sentences of one text, instance, date): per digest row, its English
    title and abstract as one text, its Chinese title, method and result as
    another, and feed g's English method and result as a third. Summaries are
    left out: they are the labelled records."""
    from kbsearch.text.textsim import sentences

    groups = (("title", "abstract_en"), ("title_zh", "method_zh", "result_zh"), ("method_en", "result_en"))
    for feed, name in STREAMS.items():
        for line in (EVAL / "domain" / name).open(encoding="utf-8"):
            data = json.loads(line)
            for fields in groups:
                parts = [s for f in fields for s in (sentences(data.get(f) or "") or [(data.get(f) or "").strip()])]
                if any(parts):
                    yield [p for p in parts if p], f"feed-{feed}", data["date"]


def _set_columns() -> Iterator[tuple[list[dict[str, str]], list[str], str]]:
    """(rows, text columns, name) of each pair and parallel set."""
    for path in sorted((EVAL / "pairs").glob("*.tsv")) + sorted((EVAL / "parallel").glob("*.tsv")):
        lines = path.read_text(encoding="utf-8").splitlines()
        header = lines[0].split("\t")
        rows = [dict(zip(header, line.split("\t"), strict=False)) for line in lines[1:]]
        yield rows, [c for c in header if c not in {"id", "doc", "label", "lang"}], path.stem


def _set_sequences() -> Iterator[tuple[list[str], str, str]]:
    """Each cell of the pair and parallel sets; both sides of a labelled pair as
    one text; the rows of one WMT document, column by column, as one text."""
    for rows, columns, name in _set_columns():
        for number, row in enumerate(rows):
            for column in columns:
                yield [row.get(column, "").strip()], name, DAYS[number % len(DAYS)]
            if "a" in row and "b" in row:
                yield [row["a"].strip(), row["b"].strip()], name, DAYS[number % len(DAYS)]
        if rows and "doc" in rows[0]:
            for doc, members in itertools.groupby(rows, key=lambda r: r["doc"]):
                group = list(members)
                for column in columns:
                    yield [r.get(column, "").strip() for r in group], name, DAYS[hash(doc) % len(DAYS)]


def _sentence_columns() -> Iterator[tuple[list[str], str]]:
    """Lists of sentences to pair up: each column of the pair and parallel
    sets, and each stream's method and result sentences."""
    for rows, columns, name in _set_columns():
        for column in columns:
            yield [r.get(column, "").strip() for r in rows], name
    for feed, name in STREAMS.items():
        fields = ("method_en", "result_en") if feed == "g" else ("method_zh", "result_zh")
        rows = [json.loads(line) for line in (EVAL / "domain" / name).open(encoding="utf-8")]
        for field in fields:
            yield [(r.get(field) or "").strip() for r in rows], f"feed-{feed}"


def _pairs_of_pairs(spread: int) -> Iterator[tuple[list[str], str, str]]:
    """Two sentences of one column as one text: row i with row i + d, as a
    note that lists two items would."""
    for cells, name in _sentence_columns():
        for gap in range(2, spread + 2):
            for i, cell in enumerate(cells):
                yield [cell, cells[(i + gap) % len(cells)]], name, DAYS[i % len(DAYS)]


def _join(parts: list[str]) -> str:
    """Sentences back into one text: no space after Chinese punctuation, one after the rest."""
    text = parts[0]
    for part in parts[1:]:
        text += ("" if text.endswith(("。", "！", "？", "；")) else " ") + part
    return text


def filler_texts(exclude: set[str], spread: int = PAIR_SPREAD) -> list[tuple[str, str, str]]:
    """Every distinct filler text (sentences, windows, pairs of pairs), in a fixed order."""
    seen: dict[str, tuple[str, str]] = {}
    sequences = itertools.chain(_stream_sequences(), _set_sequences(), _pairs_of_pairs(spread))
    for parts, instance, date in sequences:
        parts = [p for p in parts if len(p) >= 8]
        for size in range(1, MAX_WINDOW + 1):
            for start in range(0, len(parts) - size + 1):
                text = _join(parts[start : start + size])
                if len(text) <= MAX_CHARS and text not in exclude:
                    seen.setdefault(text, (instance, date))
    return [(text, instance, date) for text, (instance, date) in seen.items()]


def corpus(records: int) -> list[Row]:
    """The first ``records`` records: labelled first, then the shuffled filler."""
    require_eval()
    labelled = labelled_rows()
    filler = filler_texts({r.text for r in labelled})
    random.Random(17).shuffle(filler)
    wanted = records - len(labelled)
    if wanted > len(filler):
        sys.exit(f"only {len(labelled) + len(filler):,} distinct records can be made from ../shared/eval")
    rows = list(labelled[:records])
    kinds = ("increment", "paper_card", "doc_section")
    for i, (text, instance, date) in enumerate(filler[: max(0, wanted)]):
        rows.append(Row(f"s{i}", text, instance, date, kinds[i % 3]))
    return rows


def held_out(count: int, records: int = 1_000_000) -> list[str]:
    """Real texts of the same kinds that no corpus of up to ``records`` holds:
    the last of the shuffled filler. Queries for the benches."""
    labelled = labelled_rows()
    filler = filler_texts({r.text for r in labelled})
    random.Random(17).shuffle(filler)
    if len(filler) - count < records - len(labelled):
        sys.exit(f"not enough filler to hold {count} queries apart from {records:,} records")
    return [text for text, _, _ in filler[-count:]]


def corpus_file(records: int) -> Path:
    """The corpus as one JSONL file, written once."""
    path = CACHE / f"corpus-{records}.jsonl"
    if not path.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as out:
            for row in corpus(records):
                out.write(row.line() + "\n")
        tmp.replace(path)
    return path


def truth(records: int) -> dict[str, str]:
    """Record id → paper, for the labelled records."""
    return {r.id: r.paper for r in labelled_rows()[:records] if r.paper}


# -- the vectors --------------------------------------------------------------


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def stored_vectors(db: sqlite3.Connection, hashes: list[str]) -> dict[str, bytes]:
    """The cached vector of each hash the cache holds (SQLite's variable limit: 500 at a time)."""
    found: dict[str, bytes] = {}
    for start in range(0, len(hashes), 500):
        chunk = hashes[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(db.execute(f"SELECT content_hash, vector FROM vectors WHERE content_hash IN ({marks})", chunk))
    return found


def vector_db() -> sqlite3.Connection:
    CACHE.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(CACHE / f"vectors-{MODEL}.sqlite")
    db.execute("CREATE TABLE IF NOT EXISTS vectors (content_hash TEXT PRIMARY KEY, vector BLOB NOT NULL)")
    db.execute("CREATE TABLE IF NOT EXISTS runs (started TEXT, texts INTEGER, seconds REAL, note TEXT)")
    return db


def texts_to_embed(rows: list[Row]) -> dict[str, str]:
    """hash → text of every text a passage choice could embed: each record's
    whole text and each of its sentences."""
    from kbsearch.records import Kind, Record

    texts: dict[str, str] = {}
    for row in rows:
        record = Record(id=row.id, kind=Kind(row.kind), text=row.text)
        for text in [record.embed_text(), *record.claim_texts()]:
            texts[text_hash(text)] = text
    return texts


def encode_missing(texts: dict[str, str], batch: int = 256, first: int = 0) -> None:
    """Encode what the cache lacks with the real default model, in length
    buckets, committing every batch (an interrupted run resumes). The texts of
    the ``first`` records (the smaller corpora) go first: dict order is record order."""
    from kbsearch.embed import load_encoder
    from kbsearch.models import resolve_model

    db = vector_db()
    have = {r[0] for r in db.execute("SELECT content_hash FROM vectors")}
    order = {h: i for i, h in enumerate(texts)}
    todo = sorted((h for h in texts if h not in have), key=lambda h: (order[h] >= first, len(texts[h])))
    print(f"{len(texts):,} texts, {len(have):,} cached, {len(todo):,} to encode", flush=True)
    if not todo:
        return
    encoder = load_encoder(resolve_model(MODEL))
    started = time.perf_counter()
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        vectors = encoder.encode([texts[h] for h in chunk]).astype(np.float32)
        db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?)", zip(chunk, (v.tobytes() for v in vectors), strict=True)
        )
        db.commit()
        done = start + len(chunk)
        if done % (batch * 200) < batch or done == len(todo):
            rate = done / (time.perf_counter() - started)
            print(f"  {done:,}/{len(todo):,} encoded, {rate:.0f} texts/s", flush=True)
    seconds = time.perf_counter() - started
    db.execute(
        "INSERT INTO runs VALUES (datetime('now'), ?, ?, ?)",
        (len(todo), seconds, f"threads={os.environ.get('KBSEARCH_USE_THREADS', '1')} load={os.getloadavg()[0]:.1f}"),
    )
    db.commit()


def first_build() -> tuple[int, float, str] | None:
    """(texts, seconds, note) of the largest encoding run the cache recorded."""
    row = vector_db().execute("SELECT texts, seconds, note FROM runs ORDER BY texts DESC LIMIT 1").fetchone()
    return (int(row[0]), float(row[1]), str(row[2])) if row else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--encode", action="store_true", help="encode what the vector cache lacks")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = corpus(args.records)
    labelled = sum(1 for r in rows if r.paper)
    print(f"{len(rows):,} records ({labelled:,} labelled) in {time.perf_counter() - started:.0f} s")
    print(f"corpus file: {corpus_file(args.records)}")
    texts = texts_to_embed(rows)
    print(f"{len(texts):,} distinct texts to embed (whole texts and sentences)")
    if args.encode:
        encode_missing(texts, first=len(texts_to_embed(rows[:100_000])))
    run = first_build()
    if run:
        print(f"largest encoding run: {run[0]:,} texts in {run[1]:.0f} s ({run[2]})")


if __name__ == "__main__":
    main()

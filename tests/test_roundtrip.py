"""Round trips an index must survive, as properties over generated input.

- Save, then load: an index closed and opened again (the vector cache read
  back from disk) gives the same records and the same search results, in
  every mode.
- Re-ingesting unchanged input changes nothing: the report says every record
  is unchanged, nothing is embedded (the encoder is not even called), and the
  records, the generation and the cache files stay as they were.

The records are JSONL lines built from a small mixed Chinese and English
vocabulary (so searches have something to find and every line is valid
input), with the fake encoder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import index_files
from support.files import write_jsonl

from fake_encoder import FakeEncoder
from kbsearch.kb import KnowledgeBase
from kbsearch.models import ModelSpec
from kbsearch.search import SearchMode

SPEC = ModelSpec(name="fake", source="python:fake_encoder:make", dim=64)
CACHE_FILES = {"vectors.faiss", "manifest.json"}
WORDS = [
    "KV",
    "cache",
    "compression",
    "offloading",
    "SGLang",
    "vLLM",
    "TriAttention",
    "10.7x",
    "29%",
    "频域",
    "压缩",
    "零拷贝",
    "卸载",
    "推测解码",
    "前缀缓存",
    "吞吐",
    "维护模式",
]
PHRASE = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
ARXIV = st.sampled_from(["2607.17715", "2608.01526", "2609.19671"])


@st.composite
def record_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 8))
    rows = []
    for number in range(count):
        row: dict[str, Any] = {
            "id": f"r{number}",
            "kind": draw(st.sampled_from(["increment", "paper_card", "doc_section"])),
            "title": draw(PHRASE),
            "instance": draw(st.sampled_from(["tom", "jay", "spark", "stephen"])),
            "date": f"2026-09-{draw(st.integers(1, 28)):02d}",
        }
        if draw(st.booleans()):
            row["text"] = draw(PHRASE)
        if draw(st.booleans()):
            row["claims"] = draw(st.lists(PHRASE, min_size=1, max_size=3))
        if draw(st.booleans()):
            row["arxiv_ids"] = [draw(ARXIV)]
        rows.append(row)
    return rows


QUERIES = st.lists(PHRASE | ARXIV, min_size=1, max_size=3)
PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ingest(folder: Path, rows: list[dict[str, Any]], encoder: FakeEncoder) -> tuple[KnowledgeBase, Path]:
    source = write_jsonl(folder / "in.jsonl", rows)
    kb = KnowledgeBase(folder / "idx", SPEC, create=True, encoder=encoder)
    kb.ingest([source])
    return kb, source


def answers(kb: KnowledgeBase, queries: list[str]) -> list[list[tuple[str, float, float | None]]]:
    """Every query in every mode: ids with their scores, in rank order."""
    return [
        [(hit.id, hit.score, hit.dense_score) for hit in kb.search(query, k=5, mode=mode).results]
        for query in queries
        for mode in SearchMode
    ]


def records(kb: KnowledgeBase) -> list[dict[str, Any]]:
    return [kb.show(listed.id).model_dump(mode="json") for listed in kb.listing().records]


@PROPERTY
@given(rows=record_rows(), queries=QUERIES)
def test_closing_and_opening_an_index_gives_the_same_results(rows: list[dict[str, Any]], queries: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        kb, _ = ingest(Path(tmp), rows, FakeEncoder())
        with kb:
            before = answers(kb, queries)
            stored = records(kb)
        assert len(stored) == len(rows)
        with KnowledgeBase(Path(tmp) / "idx", SPEC, encoder=FakeEncoder()) as reopened:
            assert records(reopened) == stored
            assert answers(reopened, queries) == before
            assert reopened.notes == []  # the cache on disk was used, not rebuilt


@PROPERTY
@given(rows=record_rows())
def test_ingesting_unchanged_input_again_changes_nothing(rows: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        encoder = FakeEncoder()
        kb, source = ingest(Path(tmp), rows, encoder)
        with kb:
            stored, generation = records(kb), kb.stats().generation
        cache = {name: data for name, data in index_files(Path(tmp) / "idx").items() if name in CACHE_FILES}
        assert cache.keys() == CACHE_FILES
        calls = encoder.calls

        with KnowledgeBase(Path(tmp) / "idx", SPEC, encoder=encoder) as again:
            report = again.ingest([source])
            assert (report.unchanged, report.added, report.updated, report.removed) == (len(rows), 0, 0, 0)
            assert report.embedded == 0 and encoder.calls == calls
            assert again.stats().generation == generation
            assert records(again) == stored
        after = index_files(Path(tmp) / "idx")
        assert {name: after[name] for name in cache} == cache

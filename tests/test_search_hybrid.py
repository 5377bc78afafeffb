"""Dense, lexical and hybrid search: modes, fusion, filters, pinning, snippets,
and the FTS index kept in step with the records."""

from __future__ import annotations

import datetime as dt
import io
import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from support.cli import ingest_rows

from fake_encoder import FakeEncoder
from kbsearch import render
from kbsearch.cli import main
from kbsearch.ingest import ingest_records, reindex_store
from kbsearch.records import Kind, Record
from kbsearch.search import DEFAULT_FUSION, SearchMode, search
from kbsearch.search.fusion import Fusion, reciprocal_rank, term_coverage, weighted_sum
from kbsearch.store import ChangeSet, SearchFilter, Store, lexical, writer
from kbsearch.store.lexical_counts import COUNTS_TABLE
from kbsearch.store.migrations import ON_OPEN
from kbsearch.store.vector_search import DenseSearch
from kbsearch.text.snippet import ELLIPSIS, make_snippet

MODES = list(SearchMode)

NOTES = [
    ("KV cache 频域压缩 10.7x，已合入 TensorRT-LLM", "三角函数频域压缩 KV cache，长推理 10.7x 内存压缩"),
    ("SGLang 前缀缓存 RadixAttention", "SGLang 的前缀缓存在共享前缀负载上比 vLLM 快 29%"),
    ("vLLM 吞吐 benchmark on H100", "vLLM throughput on H100 with chunked prefill"),
    ("TGI 进入维护模式", "Hugging Face TGI enters maintenance mode; users should migrate to vLLM or SGLang"),
    ("Zero-copy KV cache offloading", "OSDI '26: zero-copy offloading of the KV cache between GPU and host memory"),
    ("MCP design patterns for agents", "Model Context Protocol tool servers and agent design patterns"),
]


def note(i: int, *, instance: str = "tom", **extra: object) -> Record:
    title, text = NOTES[i % len(NOTES)]
    fields: dict[str, object] = {
        "id": f"{instance}/n{i}",
        "kind": Kind.increment if i % 2 else Kind.paper_card,
        "title": title,
        "text": f"{text} (note {i})",
        "instance": instance,
        "date": dt.date(2026, 9, 1 + i % 20),
        "source": f"/src/{instance}.md",
        "position": i,
    }
    fields.update(extra)
    return Record.model_validate(fields)


def fill(store: Store, records: list[Record], encoder: FakeEncoder) -> None:
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder)


def ids(
    store: Store,
    encoder: FakeEncoder | None,
    query: str,
    k: int = 5,
    mode: SearchMode = SearchMode.hybrid,
    **flt: object,
) -> list[str]:
    return [h.id for h in search(store, encoder, query, k, SearchFilter(**flt), mode).results]


@pytest.fixture
def store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    opened = Store.open(tmp_path / "idx", create=True)
    fill(opened, [note(i) for i in range(len(NOTES))], encoder)
    return opened


def fts_rows(store: Store) -> dict[int, str]:
    return {r: t for r, t in store.db.execute(f"SELECT rowid, body FROM {lexical.FTS_TABLE}")}


# -- filters ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_filtered_search_returns_k_when_k_exist(tmp_path: Path, encoder: FakeEncoder, mode: SearchMode) -> None:
    store = Store.open(tmp_path, create=True)
    # 120 tom records outrank the 6 jay ones on any query; a filter applied after
    # the top-k cut would return fewer than 6 of them.
    fill(
        store,
        [note(i, instance="tom") for i in range(120)]
        + [note(i, instance="jay", text=f"unrelated jay memo number {i}") for i in range(6)],
        encoder,
    )
    found = ids(store, encoder, "KV cache memo", k=6, mode=mode, instance="jay")
    assert sorted(found) == sorted(f"jay/n{i}" for i in range(6))
    # Kind and date filters together: exactly 3 records pass.
    wanted = ids(
        store,
        encoder,
        "vLLM memo note",
        k=3,
        mode=mode,
        kinds=[Kind.increment],
        since=dt.date(2026, 9, 2),
        until=dt.date(2026, 9, 4),
        instance="tom",
    )
    assert len(wanted) == 3
    for rid in wanted:
        record = store.get(rid)
        assert record is not None and record.kind is Kind.increment
        assert record.date is not None and dt.date(2026, 9, 2) <= record.date <= dt.date(2026, 9, 4)


def test_filters_apply_to_the_short_query_fallback(store: Store, encoder: FakeEncoder) -> None:
    assert ids(store, None, "频域", mode=SearchMode.lexical, kinds=[Kind.increment]) == []
    assert ids(store, None, "频域", mode=SearchMode.lexical, kinds=[Kind.paper_card]) == ["tom/n0"]


# -- exact identifiers ----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_id_queries_put_the_record_carrying_the_id_first(
    tmp_path: Path, encoder: FakeEncoder, mode: SearchMode
) -> None:
    store = Store.open(tmp_path, create=True)
    records = [note(i) for i in range(30)]
    records[17] = note(17, arxiv_ids=["2609.19671"], title="When2Think", text="difficulty-aware length control")
    records[23] = note(23, sources=["GitHub WeianMao/triattention · 2026-08"])
    records[11] = note(11, text="see https://example.org/kv-report.html for the numbers")
    fill(store, records, encoder)
    assert ids(store, encoder, "arXiv:2609.19671v2", mode=mode)[0] == "tom/n17"
    # An id inside a query about something else still wins.
    assert ids(store, encoder, "KV cache 频域压缩 2609.19671", mode=mode)[0] == "tom/n17"
    assert ids(store, encoder, "https://github.com/WeianMao/triattention", mode=mode)[0] == "tom/n23"
    assert ids(store, encoder, "numbers in https://example.org/kv-report.html", mode=mode)[0] == "tom/n11"
    hit = search(store, encoder, "github.com/weianmao/triattention", 3, mode=mode).results[0]
    assert hit.matched_ids == ["github:weianmao/triattention"]


def test_id_pinning_respects_the_filter(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, [note(0, arxiv_ids=["2609.19671"]), note(1), note(2)], encoder)
    assert "tom/n0" not in ids(store, encoder, "2609.19671", instance="jay")
    assert ids(store, encoder, "2609.19671", kinds=[Kind.increment])[:1] != ["tom/n0"]


# -- short Chinese queries and exact names --------------------------------------


@pytest.mark.parametrize("mode", [SearchMode.lexical, SearchMode.hybrid])
@pytest.mark.parametrize("query", ["频域", "频"])
def test_one_or_two_chinese_characters_find_their_record(
    store: Store, encoder: FakeEncoder, mode: SearchMode, query: str
) -> None:
    # Trigram FTS alone matches nothing this short: the fallback must answer.
    fts = lexical.FTS_TABLE
    assert (
        store.db.execute(
            f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (lexical.match_expression([query]),)
        ).fetchone()[0]
        == 0
    )
    assert ids(store, encoder, query, mode=mode)[0] == "tom/n0"


def test_two_letter_query_uses_the_fallback_and_is_case_blind(store: Store) -> None:
    assert ids(store, None, "tg", mode=SearchMode.lexical) == ["tom/n3"]


def test_lexical_mode_finds_exact_names_and_numbers(store: Store) -> None:
    assert ids(store, None, "TensorRT-LLM", mode=SearchMode.lexical) == ["tom/n0"]
    assert ids(store, None, "10.7x", mode=SearchMode.lexical) == ["tom/n0"]
    assert ids(store, None, "29%", mode=SearchMode.lexical) == ["tom/n1"]
    assert ids(store, None, "chunked prefill", mode=SearchMode.lexical)[0] == "tom/n2"


@pytest.mark.parametrize("query", ['AND OR NEAR(x y) "quoted', "title:vLLM * ^", "-- ; DROP TABLE records", "    "])
def test_query_text_is_never_read_as_fts_syntax(store: Store, encoder: FakeEncoder, query: str) -> None:
    for mode in MODES:
        search(store, encoder, query, 5, mode=mode)  # no error
    assert store.count() == len(NOTES)


def test_query_terms_split_chinese_into_trigrams_and_keep_names_whole() -> None:
    terms = lexical.query_terms("频域压缩 TensorRT-LLM, 10.7x KV 吞吐")
    assert terms.long == ["频域压", "域压缩", "tensorrt-llm", "10.7x"]
    assert terms.short == ["kv", "吞吐"]
    assert terms.names == ["tensorrt-llm"]


def test_coined_names_are_told_from_ordinary_words() -> None:
    query = "提出（RingPose）与ShardNet框架，GPT-4o、SGLang; Kinetics Transformer Tom KV 10.7x"
    assert lexical.query_terms(query).names == ["ringpose", "shardnet", "gpt-4o", "sglang"]


def test_a_rare_name_in_a_long_query_lifts_the_record_holding_it(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(
        store,
        [note(i) for i in range(60)]
        + [
            note(64, id="named", title="RingPose", text="单分支轻量级全局建模网络，实时姿态估计"),
            note(65, id="jay/named", instance="jay", title="RingPose 复现", text="实时姿态估计的开源复现"),
            note(66, id="other", title="单分支轻量级网络", text="单分支结构的轻量级全局建模网络，实时姿态估计"),
        ],
        encoder,
    )
    query = "提出 RingPose：单分支结构的轻量级全局建模网络，实时姿态估计"
    no_names = replace(DEFAULT_FUSION, name_weight=0.0)
    plain = [(h.id, h.score) for h in search(store, encoder, query, 2, fusion=no_names).results]
    assert [i for i, _ in plain] == ["other", "named"]
    lifted = search(store, encoder, query, 2).results
    assert [h.id for h in lifted] == ["named", "other"]
    # the name's weight, nothing else
    assert lifted[0].score == pytest.approx(plain[1][1] + DEFAULT_FUSION.name_weight, abs=1e-3)
    assert ids(store, encoder, query, k=1, instance="jay") == ["jay/named"]
    jay = store.db.execute("SELECT rowid FROM records WHERE id = 'jay/named'").fetchone()[0]
    assert store.records_with_names(["ringpose"], SearchFilter(instance="jay")) == {"ringpose": [jay]}


def test_a_name_many_records_hold_is_not_rare(store: Store) -> None:
    # vLLM is in 3 of the 6 notes: a topic, not an identifier; RadixAttention is in one.
    assert store.records_with_names(["vllm", "radixattention", "absentname"]) == {
        "radixattention": [store.db.execute("SELECT rowid FROM records WHERE id = 'tom/n1'").fetchone()[0]]
    }


# -- modes and fusion -----------------------------------------------------------


def test_lexical_mode_needs_no_encoder(store: Store) -> None:
    response = search(store, None, "SGLang", 3, mode=SearchMode.lexical)
    assert response.results[0].id == "tom/n1"
    assert response.results[0].dense_score is None and response.results[0].lexical_rank == 1
    with pytest.raises(ValueError):
        search(store, None, "SGLang", 3, mode=SearchMode.hybrid)


class WaitsForTheLexicalSide(FakeEncoder):
    """Embeds only once the lexical side has started: inline, before it, it would wait in vain."""

    def __init__(self, started: threading.Event) -> None:
        super().__init__()
        self.started = started
        self.saw_it: list[bool] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.saw_it.append(self.started.wait(timeout=5))
        return super().encode(texts)


def test_the_query_is_embedded_while_the_lexical_side_runs(
    store: Store, monkeypatch: pytest.MonkeyPatch, encoder: FakeEncoder
) -> None:
    started = threading.Event()
    lexical_search = store.lexical_search

    def lexical_side(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
        started.set()
        return lexical_search(*args, **kwargs)

    monkeypatch.setattr(store, "lexical_search", lexical_side)
    waiting = WaitsForTheLexicalSide(started)
    response = search(store, waiting, "SGLang 前缀缓存", 3)
    assert waiting.saw_it == [True]
    query = "SGLang 前缀缓存"
    alone = search(store, None, query, 3, vector=encoder.encode([query])[0])
    assert [(h.id, h.score) for h in response.results] == [(h.id, h.score) for h in alone.results]


@pytest.mark.parametrize(
    ("store_call", "query"),
    [("lexical_search", "SGLang 前缀缓存"), ("stored_vectors", "SGLang 前缀缓存 vLLM")],
    ids=["the lexical side runs", "its candidates are read"],
)
def test_the_index_is_walked_while_the_caller_s_thread_works(
    store: Store, monkeypatch: pytest.MonkeyPatch, encoder: FakeEncoder, store_call: str, query: str
) -> None:
    """During the walk the caller's thread runs the lexical side, then reads
    its candidates' vectors and texts. Had it waited for the walk first, the
    walk, waiting in turn for that call, would give up after 5 s."""
    called, saw_it = threading.Event(), []
    original, nearest = getattr(store, store_call), DenseSearch.nearest

    def seen(*args: Any, **kwargs: Any) -> Any:
        called.set()
        return original(*args, **kwargs)

    def walk(self: DenseSearch, query: np.ndarray, k: int) -> list[tuple[int, float, int]]:
        saw_it.append(called.wait(timeout=5))
        return nearest(self, query, k)

    before = search(store, None, query, 3, vector=encoder.encode([query])[0])
    monkeypatch.setattr(store, store_call, seen)
    monkeypatch.setattr(DenseSearch, "nearest", walk)
    after = search(store, None, query, 3, vector=encoder.encode([query])[0])
    assert saw_it == [True]
    assert [(h.id, h.score) for h in after.results] == [(h.id, h.score) for h in before.results]


def test_vectors_read_together_score_as_those_read_alone(store: Store, encoder: FakeEncoder) -> None:
    """Scores from vectors read among others' (a search's read ahead) are those
    ``score_records`` reads for the records alone, to the last bit, in the order asked."""
    rowids = [r for (r,) in store.db.execute("SELECT rowid FROM records ORDER BY rowid DESC")]
    query = encoder.encode(["KV cache 压缩"])[0]
    together = store.stored_vectors(rowids[::2]).joined(store.stored_vectors(rowids[1::2]))
    some = [*rowids[1:4], 10**9]  # one row id that holds nothing
    assert together.scores(some, query) == store.score_records(some, query)
    assert [r for r, _, _ in together.scores(some, query)] == rowids[1:4]


def test_an_encoder_error_reaches_the_caller(store: Store) -> None:
    class Broken(FakeEncoder):
        def encode(self, texts: Sequence[str]) -> np.ndarray:
            raise RuntimeError("the model is gone")

    with pytest.raises(RuntimeError, match="the model is gone"):
        search(store, Broken(), "SGLang", 3)


def test_each_mode_reports_its_own_scores(store: Store, encoder: FakeEncoder) -> None:
    dense = search(store, encoder, "vLLM throughput H100", 3, mode=SearchMode.dense).results
    assert all(h.lexical_rank is None and h.dense_score == h.score for h in dense)
    top = search(store, encoder, "vLLM throughput H100", 3, mode=SearchMode.hybrid).results[0]
    assert top.id == "tom/n2" and top.lexical_rank == 1 and top.dense_score is not None
    # The default fusion: cosine + 0.7 × (idf-weighted term coverage)² + 0.2 × the
    # share of the query's rare names held; n2 holds every term and H100, the one rare name.
    assert top.score == pytest.approx(top.dense_score + 0.7 + 0.2, abs=1e-3)
    rrf = search(
        store, encoder, "vLLM throughput H100", 3, mode=SearchMode.hybrid, fusion=Fusion("rrf", rrf_k=60)
    ).results[0]
    assert rrf.id == "tom/n2" and rrf.score == pytest.approx(2 / 61, abs=1e-4)  # first in both lists


def test_hybrid_finds_an_exact_number_dense_misses(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, [note(i) for i in range(60)], encoder)
    holds = [f"tom/n{i}" for i in range(1, 60, len(NOTES))]  # the SGLang notes: "快 29%"
    assert not set(ids(store, encoder, "29%", k=5, mode=SearchMode.dense)) & set(holds)
    assert set(ids(store, encoder, "29%", k=3, mode=SearchMode.hybrid)) <= set(holds)


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    fused = reciprocal_rank([1, 2, 3], [3, 4], Fusion(rrf_k=60, lexical_weight=1.0))
    assert max(fused, key=lambda r: fused[r]) == 3
    dense_only = reciprocal_rank([1, 2, 3], [3, 4], Fusion(rrf_k=60, lexical_weight=0.0))
    assert sorted(dense_only, key=lambda r: -dense_only[r])[:3] == [1, 2, 3]


def test_weighted_sum_adds_coverage_to_the_cosine() -> None:
    assert term_coverage({"cache": 1.0, "10.7x": 3.0}, "kv cache 10.7x") == 1.0  # folded, as the index holds it
    assert term_coverage({"cache": 1.0, "nope": 3.0}, "KV cache") == 0.25
    assert term_coverage({"cache": 1.0, "nope": 3.0}, "KV cache", power=2.0) == 0.0625
    assert term_coverage({}, "KV cache") == 0.0
    fused = weighted_sum({1: 0.8, 2: 0.7}, {2: 1.0, 3: 1.0}, Fusion("weighted", lexical_weight=0.2))
    assert fused == pytest.approx({1: 0.8, 2: 0.9, 3: 0.2})


def test_rare_terms_weigh_more_and_absent_ones_still_count(store: Store) -> None:
    terms = lexical.query_terms("vLLM RadixAttention zzzqqq 频域 KV")
    sample = [text for _, text in sorted(lexical_texts(store).items())]
    weights = lexical.term_weights(store.db, terms, sample)
    assert weights["radixattention"] > weights["vllm"]  # in 1 record against 3
    assert weights["zzzqqq"] > weights["radixattention"]  # in none
    # Short terms are estimated from the sample: 频域 in 1 of 6 records, kv in 2.
    assert weights["频域"] == pytest.approx(weights["radixattention"])
    assert weights["kv"] < weights["频域"]


def lexical_texts(store: Store) -> dict[int, str]:
    return store.lexical_documents([r for (r,) in store.db.execute("SELECT rowid FROM records")])


# -- the lexical index stays in step with the records ---------------------------


def test_fts_follows_upsert_delete_and_reindex(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, [note(i) for i in range(6)], encoder)
    assert len(fts_rows(store)) == store.count() == 6
    fill(store, [note(2, text="rewritten: speculative decoding with suffix trees")], encoder)
    assert ids(store, None, "speculative", mode=SearchMode.lexical) == ["tom/n2"]
    assert ids(store, None, "chunked prefill", mode=SearchMode.lexical) == []
    ingest_records(store, ChangeSet(deletes=["tom/n2", "tom/n4"]), model="fake", load_encoder=lambda: encoder)
    assert ids(store, None, "speculative", mode=SearchMode.lexical) == []
    assert len(fts_rows(store)) == store.count() == 4
    assert (
        store.db.execute("SELECT count(*) FROM record_refs WHERE rowid NOT IN (SELECT rowid FROM records)").fetchone()[
            0
        ]
        == 0
    )
    reindex_store(store, model="fake2", load_encoder=lambda: FakeEncoder("fake2", dim=32))
    assert ids(store, None, "RadixAttention", mode=SearchMode.lexical) == ["tom/n1"]


def test_a_failed_write_leaves_fts_and_records_unchanged(
    tmp_path: Path, encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(tmp_path, create=True)
    fill(store, [note(i) for i in range(3)], encoder)
    before = fts_rows(store)
    doomed = ChangeSet(upserts=[note(7, text="never committed")])
    doomed.vectors = {"x": encoder.encode(["x"])[0]}

    def fail(*_: object) -> None:
        raise RuntimeError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(writer, "_replace_mentions", fail)
        with pytest.raises(RuntimeError):
            store.apply(doomed, "fake")
    assert fts_rows(store) == before and store.get("tom/n7") is None


def test_an_index_from_before_the_lexical_index_is_migrated(tmp_path: Path, encoder: FakeEncoder) -> None:
    root = tmp_path / "old"
    store = Store.open(root, create=True)
    fill(store, [note(i, sources=["GitHub sgl-project/sglang"] if i == 1 else []) for i in range(6)], encoder)
    store.close()
    # Turn it back into a schema-1 index: no FTS table, no references, no trigram counts.
    db = sqlite3.connect(root / "kb.sqlite")
    db.executescript(
        f"DROP TABLE {lexical.FTS_TABLE}; DROP TABLE record_refs; DROP TABLE {COUNTS_TABLE}; PRAGMA user_version = 1;"
    )
    db.close()
    migrated = Store.open(root, model="fake")
    assert migrated.db.execute("PRAGMA user_version").fetchone()[0] == ON_OPEN  # schema 10 waits for a first_date write
    assert len(fts_rows(migrated)) == 6
    assert ids(migrated, None, "RadixAttention", mode=SearchMode.lexical) == ["tom/n1"]
    assert ids(migrated, encoder, "github.com/sgl-project/sglang")[0] == "tom/n1"


# -- snippets -------------------------------------------------------------------


def test_snippet_marks_the_matched_terms(store: Store, encoder: FakeEncoder) -> None:
    hit = search(store, encoder, "TensorRT-LLM 频域压缩", 1).results[0]
    marked = [s.text for s in hit.snippet if s.match]
    assert "频域压缩" in marked
    assert "".join(s.text for s in hit.snippet).startswith("三角函数")


def test_snippet_with_brackets_renders_literally(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    text = "[bold]not bold[/bold] [link=https://evil.example]click[/link] KV cache [red]x"
    fill(store, [note(0, text=text)], encoder)
    hit = search(store, encoder, "cache", 1).results[0]
    assert [s.text for s in hit.snippet if s.match] == ["cache"]
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=200)
    console.print(render.snippet_text(hit.snippet))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "[bold]not bold[/bold] [link=https://evil.example]click[/link]" in shown
    assert "[red]x" in shown
    assert "\x1b]8;" not in shown  # no hyperlink escape was produced
    assert "\x1b[1;4mcache\x1b[0m" in shown  # the match, and only it, is styled


def test_snippet_strips_escape_sequences(encoder: FakeEncoder) -> None:
    spans = make_snippet("ok \x1b[31mred\x1b[0m cache", ["cache"])
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=200)
    console.print(render.snippet_text(spans))
    assert "\x1b[31m" not in console.file.getvalue()  # type: ignore[attr-defined]


def test_snippet_without_a_match_shows_the_best_passage(tmp_path: Path, encoder: FakeEncoder) -> None:
    store = Store.open(tmp_path, create=True)
    claims = ["first point about memory", "second point: zero-copy offloading to host memory"]
    fill(store, [note(0, text="long text " * 40, claims=claims)], encoder)
    hit = search(store, encoder, "zero-copy offloading to host memory", 1, mode=SearchMode.dense).results[0]
    assert "".join(s.text for s in hit.snippet) == claims[1]


@given(st.text(alphabet="ab[]频域 x\n", max_size=400), st.lists(st.sampled_from(["a", "b[", "频域", "x"]), max_size=3))
def test_snippet_spans_are_a_window_of_the_text(text: str, terms: list[str]) -> None:
    spans = make_snippet(text, terms, width=40)
    flat = " ".join(text.split())
    body = [s for s in spans if s.text != ELLIPSIS or s.match]
    window = "".join(s.text for s in body)
    assert window in flat and len(window) <= 40
    assert all(
        s.text.lower() in {t.lower() for t in terms} or any(t.lower() in s.text.lower() for t in terms)
        for s in spans
        if s.match
    )


# -- command line -----------------------------------------------------------------


def test_cli_modes_and_json_shape(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"id": "a", "title": "TriAttention", "text": "KV cache [bold]10.7x[/bold] 频域压缩"},
        {"id": "b", "title": "SGLang", "text": "RadixAttention prefix cache"},
    ]
    index = str(ingest_rows(capsys, tmp_path, rows))
    assert main(["search", "10.7x", "--index", index, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["mode"] == "hybrid" and found["results"][0]["id"] == "a"
    first = found["results"][0]
    assert {"score", "dense_score", "lexical_rank", "snippet", "matched_ids"} <= set(first)
    assert {"text": "10.7x", "match": True} in first["snippet"]

    def no_model(*_: object) -> None:
        raise AssertionError("lexical search loaded a model")

    monkeypatch.setattr("kbsearch.kb.opened.load_encoder", no_model)
    assert main(["search", "频域", "--mode", "lexical", "--index", index]) == 0
    out = capsys.readouterr().out
    assert "[bold]10.7x[/bold]" in out and "lexical search" in out

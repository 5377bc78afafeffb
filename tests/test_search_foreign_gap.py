"""A far closer record in the other language outweighs a few shared common words in the query's own
(``kbsearch.search.foreign_gap``).

Project-written fixtures, after probe 36: an English query for text-controlled camera paths in video
generation listed an English record about another video model first (cosine 0.49, half of the query's
words: "motion", "video", "generation") and the Chinese record about camera paths (0.68) second.
The encoder here gives each record the cosine the model gave in such a case, so the test is about the
fusion, not the model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.search_store import SteeredEncoder, increment, store_of

from kbsearch.search import DEFAULT_FUSION, SearchMode, search
from kbsearch.search.foreign_gap import best_foreign
from kbsearch.store import SearchFilter, Store

QUERY = "prompt-steered lens trajectory control for clip generation"
# marker in the text → the cosine its record has with QUERY, along a direction of its own
COSINES = {"轨迹由文字": 0.66, "Dancers": 0.49, "full lens": 0.45, "Rotor": 0.30}


def steered() -> SteeredEncoder:
    return SteeredEncoder((QUERY,), COSINES)


FILLER = [
    ("数据加载流水线的预取", "训练时的数据加载与预取流水线"),
    ("Tokenizer merges audit", "an audit of tokenizer merges across model releases"),
    ("评测集的污染检查", "对评测集做 n-gram 污染检查的工具"),
]
FOREIGN = ("Pellet-Cam — 镜头轨迹由文字指定的视频生成", "镜头轨迹由文字描述给出，模型按该轨迹生成视频片段。")
NEAR = (
    "Tarrow-Move — group dance clip generation",
    "Dancers' motion trajectory control for multi-person clip generation.",
)
FULL = (
    "Lumen-Path — prompt-steered lens trajectory control for clip generation",
    "The full lens path follows the prompt.",
)


def store_with(tmp_path: Path, *extra: tuple[str, str]) -> Store:
    records = [increment(f"spark/f{i}", *FILLER[i % len(FILLER)], i) for i in range(24)]
    records += [increment("milo/pellet", *FOREIGN, 25, "milo"), increment("tess/tarrow", *NEAR, 26, "tess")]
    records += [increment(f"tess/extra{i}", *pair, 27 + i, "tess") for i, pair in enumerate(extra)]
    return store_of(tmp_path, records, steered())


def test_a_far_closer_foreign_record_beats_a_few_shared_words(tmp_path: Path) -> None:
    store, encoder = store_with(tmp_path), steered()
    hits = search(store, encoder, QUERY, 3, mode=SearchMode.hybrid).results
    assert [h.id for h in hits[:2]] == ["milo/pellet", "tess/tarrow"]
    assert hits[0].dense_score == pytest.approx(0.66, abs=1e-3)
    assert hits[1].dense_score == pytest.approx(0.49, abs=1e-3) and hits[1].lexical_rank == 1
    # Without the rule the shared words win, as in the probe.
    before = replace(DEFAULT_FUSION, foreign_gap=0.0)
    assert search(store, encoder, QUERY, 3, mode=SearchMode.hybrid, fusion=before).results[0].id == "tess/tarrow"


def test_a_record_holding_the_whole_query_still_counts_in_full(tmp_path: Path) -> None:
    # Every term of the query is more than the topic's words: squared once more, a whole share stays whole.
    store = store_with(tmp_path, FULL)
    hits = search(store, steered(), QUERY, 3, mode=SearchMode.hybrid).results
    assert hits[0].id == "tess/extra0"
    assert (hits[0].dense_score or 0.0) < 0.66 - DEFAULT_FUSION.foreign_gap


def test_no_lean_when_the_dense_best_is_in_the_query_language(tmp_path: Path) -> None:
    cosine = {1: 0.7, 2: 0.68, 3: 0.4}
    language = {1: "en", 2: "zh", 3: "en"}.__getitem__
    assert best_foreign(cosine, "en", language) is None  # the dense side prefers the query's language itself
    assert best_foreign(cosine, "zh", language) == pytest.approx(0.7)
    assert best_foreign(cosine, None, language) is None  # an id or a number has no language


def test_a_filter_scores_a_record_as_the_unfiltered_search(tmp_path: Path) -> None:
    # The foreign best is read by the unfiltered ranking: hiding the foreign record moves no score.
    store, encoder = store_with(tmp_path), steered()
    whole = {h.id: h.score for h in search(store, encoder, QUERY, 5, mode=SearchMode.hybrid).results}
    tess = search(store, encoder, QUERY, 5, SearchFilter(instance="tess"), mode=SearchMode.hybrid).results
    assert tess[0].id == "tess/tarrow" and tess[0].score == pytest.approx(whole["tess/tarrow"])

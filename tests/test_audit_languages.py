"""Audit's candidates across languages: each record's nearest records in the other language."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe import audit as audit_module
from kbsearch.dedupe import other_language
from kbsearch.dedupe.audit import audit
from kbsearch.dedupe.judging import Candidates
from kbsearch.dedupe.neighbours import NeighbourPairs
from kbsearch.dedupe.other_language import OtherLanguage, OtherLanguagePairs
from kbsearch.dedupe.roster import Roster
from kbsearch.dedupe.spilled import SpilledVectors
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

DIM = 16


def roster_of(chinese: np.ndarray, docs: np.ndarray | None = None) -> Roster:
    n = len(chinese)
    zeros = np.zeros(n, dtype=np.int64)
    return Roster(
        rowids=np.arange(1, n + 1),
        present=np.ones(n, dtype=bool),
        rank=np.arange(n),
        briefing_key=zeros,
        text_key=np.arange(1, n + 1),
        marked_new=np.zeros(n, dtype=bool),
        chinese=chinese,
        docs=np.zeros(n, dtype=bool) if docs is None else docs,
    )


def nearest_across(vectors: np.ndarray, chinese: np.ndarray, k: int) -> set[tuple[int, int]]:
    """Brute force: each row with its k nearest rows of the other language."""
    found = set()
    for row, vector in enumerate(vectors):
        others = np.flatnonzero(chinese != chinese[row])
        for other in others[np.argsort(-(vectors[others] @ vector), kind="stable")[:k]].tolist():
            found.add((min(row, other), max(row, other)))
    return found


def spilled_pairs(tmp_path: Path, vectors: np.ndarray, chinese: np.ndarray, k: int) -> set[tuple[int, int]]:
    spilled = SpilledVectors(tmp_path / "whole.f32", len(vectors))
    for start in range(0, len(vectors), 7):  # the roster hands vectors over a chunk at a time
        rows = np.arange(start, min(start + 7, len(vectors)))
        spilled.write(rows, vectors[rows])
    found = OtherLanguagePairs(spilled, None, k).pairs(roster_of(chinese), nearby=k)
    if found is None:
        return set()
    return set(zip(found.candidates.left.tolist(), found.candidates.right.tolist(), strict=True))


def random_vectors(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.mark.parametrize("exact_up_to", [100_000, 10])
def test_each_record_is_paired_with_its_nearest_records_in_the_other_language(
    tmp_path: Path, exact_up_to: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(other_language, "EXACT_UP_TO", exact_up_to)  # 10: through a graph
    vectors = random_vectors(60, seed=3)
    chinese = np.arange(60) % 3 != 0  # two in three Chinese
    found, truth = spilled_pairs(tmp_path, vectors, chinese, 2), nearest_across(vectors, chinese, 2)
    assert all(chinese[a] != chinese[b] for a, b in found)
    assert len(found & truth) >= (1.0 if exact_up_to > 60 else 0.9) * len(truth)


def test_none_are_asked_for_when_the_config_asks_for_none(tmp_path: Path) -> None:
    assert spilled_pairs(tmp_path, random_vectors(20, seed=4), np.arange(20) % 2 == 0, 0) == set()


# A Chinese note and its English retelling, each among records of its own
# language that are nearer to it than the other is.
ROWS = [
    ("zh1", "2026-09-01", "TriAttention 频域 KV cache 压缩", "TriAttention 把 KV cache 变换到三角函数基底上压缩"),
    ("zh2", "2026-09-02", "TriAttention KV cache 压缩复现", "TriAttention 把 KV cache 变换到三角函数基底上压缩, 复现"),
    (
        "en1",
        "2026-09-03",
        "TriAttention compresses the KV cache",
        "TriAttention moves the KV cache to a trigonometric basis",
    ),
    ("en4", "2026-09-03", "KV cache moved to a trigonometric basis", "the KV cache moves to a trigonometric basis"),
    ("en2", "2026-09-04", "Medusa draft heads", "Medusa heads predict four tokens at once"),
    ("en3", "2026-09-05", "Medusa draft heads again", "Medusa heads predict four tokens at once, again"),
]


def test_audit_compares_a_record_with_its_nearest_record_in_the_other_language(
    tmp_path: Path, encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(tmp_path / "idx", create=True)
    records = [Record(id=i, kind=Kind.increment, date=day, title=t, text=x) for i, day, t, x in ROWS]
    files = {r.id: f"/src/{r.id}.md" for r in records}
    ingest_records(store, ChangeSet(upserts=records, files=files), model="fake", load_encoder=lambda: encoder)
    compared: set[frozenset[str]] = set()
    real = audit_module.judge_candidates

    def spy(store, roster, found, config, name_count, tokens=None):  # type: ignore[no-untyped-def]
        ids = {rowid: record.id for rowid, record in store.by_rowids(roster.rowids.tolist()).items()}
        compared.update(
            frozenset({ids[int(roster.rowids[a])], ids[int(roster.rowids[b])]})
            for a, b in zip(found.earlier, found.later, strict=True)
        )
        return real(store, roster, found, config, name_count, tokens)

    monkeypatch.setattr(audit_module, "judge_candidates", spy)
    # No name is rare here (``rare_name_records`` 0): the shared TriAttention would pair the
    # languages by name (``name_pairs``), and this is about the nearest records across them.
    alone = fake_config().model_copy(update={"audit_neighbours": 1, "audit_other_language": 0, "rare_name_records": 0})
    audit(store, "fake", alone)
    across = {frozenset({zh, en}) for zh in ("zh1", "zh2") for en in ("en1", "en4")}
    assert compared and not compared & across  # each record's one nearest is in its own language
    compared.clear()
    audit(store, "fake", alone.model_copy(update={"audit_other_language": 1}))
    assert compared & across


def test_a_pair_across_languages_is_judged_against_the_records_of_the_earlier_ones_language() -> None:
    """Row 0 (English) sits among English records far closer under USE than
    any Chinese one: against them, its Chinese retelling (row 3) would never
    stand out. Across languages its neighbourhood is its nearest Chinese records."""
    chinese = np.array([False, False, False, True])
    same_language = NeighbourPairs(left=np.array([0, 0]), right=np.array([1, 2]), cosine=np.array([0.9, 0.85]))
    across = OtherLanguage(
        candidates=NeighbourPairs(left=np.array([0]), right=np.array([3]), cosine=np.array([0.8])),
        nearby=NeighbourPairs(left=np.array([0]), right=np.array([3]), cosine=np.array([0.5])),
        nearby_judged=np.array([0.8]),
    )
    config = fake_config()
    found = Candidates(np.array([1, 3]), np.array([0, 0]), same_language, np.array([0.9, 0.88]), across)
    around = found.around_reader(roster_of(chinese), config)
    assert around(0)(3).best == pytest.approx(0.5) and around(0)(3).judge_best == pytest.approx(0.8)
    assert around(0)(1).best == pytest.approx(0.9)
    without = Candidates(np.array([1, 3]), np.array([0, 0]), same_language, np.array([0.9, 0.88]))
    assert without.around_reader(roster_of(chinese), config)(0)(3).best == pytest.approx(0.9)


def test_two_sections_across_languages_are_judged_among_the_later_ones_nearest() -> None:
    """Probe 19: a Chinese section (row 0) had an English section (row 2) among its nearest
    records; read against its nearest English records alone (far lower), the pair stood out
    and audit made the two sections one item, where similar and explain, reading its own
    nearest, did not. An item across languages (row 3) is still read among its language."""
    chinese = np.array([True, True, False, False])
    docs = np.array([True, True, True, False])
    own = NeighbourPairs(left=np.array([0, 0]), right=np.array([1, 2]), cosine=np.array([0.55, 0.27]))
    across = OtherLanguage(
        candidates=NeighbourPairs(left=np.array([0, 0]), right=np.array([2, 3]), cosine=np.array([0.27, 0.1])),
        nearby=NeighbourPairs(left=np.array([0, 0]), right=np.array([2, 3]), cosine=np.array([0.27, 0.1])),
        nearby_judged=np.array([0.8, 0.7]),
    )
    found = Candidates(np.array([1, 2, 3]), np.array([0, 0, 0]), own, np.array([0.9, 0.8]), across)
    around = found.around_reader(roster_of(chinese, docs), fake_config())
    assert around(0)(2).best == pytest.approx(0.55)  # two sections: among its own nearest, as similar reads it
    assert around(0)(3).best == pytest.approx(0.27)  # an item across languages: among the English records

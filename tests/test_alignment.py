"""The judge's token alignment: a feature ``check`` reads, with its own
fitted decision (``aligned_same_item``), when the judge gives token vectors.
With the fake encoder and fake token vectors (one per word)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.files import write_jsonl
from test_judge import FAKE_JUDGE_DEDUPE, judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import token_alignment
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model

KNOWN = [
    {"id": "k-des", "instance": "jay", "date": "2026-09-17", "text": "alpha beta gamma delta epsilon"},
    {"id": "k-far", "instance": "jay", "date": "2026-09-17", "text": "zeta eta theta iota kappa"},
]
# k-des in "another language": the fake index model and judge see nothing
# alike, while the token vectors, which read both, align word for word.
ITEM = {"id": "i-des", "instance": "tom", "date": "2026-09-18", "text": "甲 乙 丙 丁 戊"}
TRANSLATIONS = dict(zip(["甲", "乙", "丙", "丁", "戊"], ["alpha", "beta", "gamma", "delta", "epsilon"], strict=True))


def _raw() -> dict:
    return json.loads(FAKE_JUDGE_DEDUPE.read_text(encoding="utf-8"))


def _aligned_only() -> dict:
    """A decision that says "same" exactly when the tokens align at 0.9 or more."""
    return {
        "features": ["aligned"],
        "weights": [100.0],
        "means": [0.9],
        "scales": [1.0],
        "bias": 0.0,
        "threshold": 0.5,
        "fitted_on": "not fitted: a test rule, aligned >= 0.9",
    }


def test_alignment_is_one_for_the_same_tokens_in_any_order_and_lower_for_others() -> None:
    tokens = FakeTokenEncoder()
    a, b, c = tokens.encode_tokens(["alpha beta gamma", "gamma alpha beta", "alpha zeta eta"])
    assert token_alignment(a, b) == pytest.approx(1.0, abs=1e-6)
    assert token_alignment(a, c) == pytest.approx(token_alignment(c, a))
    assert token_alignment(a, c) < 0.9
    assert token_alignment(a, np.zeros((0, 32), np.float32)) == 0.0


def _check(
    tmp_path: Path,
    config: DedupeConfig,
    tokens: FakeTokenEncoder | None,
    encoder: FakeEncoder | None = None,
    judge: FakeEncoder | None = None,
) -> dict:
    spec = resolve_model("fake")
    encoders = {"encoder": encoder or FakeEncoder(), "judge": judge or judge_encoder(), "tokens": tokens}
    with KnowledgeBase(tmp_path / "idx", spec, create=True, **encoders) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [ITEM])), config=config).items[0]
    return {m.id: m for m in item.matches}


def test_check_decides_with_the_alignment_when_the_config_reads_it(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    plain = DedupeConfig.model_validate(_raw())
    aligned = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    without = _check(tmp_path / "a", plain, FakeTokenEncoder(TRANSLATIONS))
    assert not without["k-des"].same_item  # the whole-text decision alone misses it
    assert "aligned" in without["k-des"].features  # a calibration records the feature anyway
    matches = _check(tmp_path / "b", aligned, FakeTokenEncoder(TRANSLATIONS))
    assert matches["k-des"].same_item and not matches["k-far"].same_item
    assert matches["k-des"].features["aligned"] == pytest.approx(1.0, abs=1e-3)
    assert "aligned_relative" in matches["k-des"].features
    no_tokens = _check(tmp_path / "c", aligned, None)  # a judge without token vectors: the whole-text decision
    assert not no_tokens["k-des"].same_item and "aligned" not in no_tokens["k-des"].features


def test_an_aligned_decision_is_validated() -> None:
    bad = {**_aligned_only(), "features": ["aligned", "no_such"], "weights": [1.0, 1.0]}
    bad.update(means=[0.0, 0.0], scales=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"unknown aligned same-item features \['no_such'\]"):
        DedupeConfig.model_validate({**_raw(), "aligned_same_item": bad})
    with pytest.raises(ValueError, match="aligned_same_item reads the judge's token vectors"):
        plain = {**_raw(), "judge": None, "aligned_same_item": _aligned_only()}
        plain["same_item"] = {**plain["same_item"], "features": ["cosine"], "weights": [1.0], "means": [0.0]}
        plain["same_item"]["scales"] = [1.0]
        DedupeConfig.model_validate(plain)


def test_a_text_longer_than_the_aligned_decision_was_fitted_on_is_decided_without_it(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """k-des and the item have five tokens each: with ``aligned_max_tokens`` 4
    the aligned decision would extrapolate, so the whole-text one decides."""
    raw = {**_raw(), "aligned_same_item": _aligned_only()}
    fitting = _check(
        tmp_path / "a", DedupeConfig.model_validate({**raw, "aligned_max_tokens": 5}), FakeTokenEncoder(TRANSLATIONS)
    )
    assert fitting["k-des"].same_item
    longer = _check(
        tmp_path / "b", DedupeConfig.model_validate({**raw, "aligned_max_tokens": 4}), FakeTokenEncoder(TRANSLATIONS)
    )
    assert not longer["k-des"].same_item and "aligned" not in longer["k-des"].features


def test_a_process_encodes_a_text_once_and_keeps_a_bounded_number_of_rows() -> None:
    from kbsearch.embed.tokens import RememberedTokens

    inner = FakeTokenEncoder()
    kept = RememberedTokens(inner, max_rows=6)
    first = kept.encode_tokens(["alpha beta gamma", "delta epsilon"])
    again = kept.encode_tokens(["delta epsilon", "alpha beta gamma"])
    assert inner.texts_seen == 2  # both read from memory the second time
    assert np.array_equal(first[0], again[1]) and np.array_equal(first[1], again[0])
    kept.encode_tokens(["zeta eta theta"])  # 3 + 2 + 3 rows > 6: the least recently asked goes
    kept.encode_tokens(["alpha beta gamma", "delta epsilon"])
    assert inner.texts_seen == 4  # "alpha beta gamma" (asked last but one) stayed, "delta epsilon" went


def test_threads_take_turns_at_the_token_model() -> None:
    """A server's threads check at once; the model and the kept vectors see one call at a time."""
    import threading
    import time

    from kbsearch.embed.tokens import RememberedTokens

    class OneAtATime(FakeTokenEncoder):
        inside = 0
        overlapped = False

        def encode_tokens(self, texts):  # type: ignore[no-untyped-def]
            self.inside += 1
            self.overlapped |= self.inside > 1
            time.sleep(0.02)
            self.inside -= 1
            return super().encode_tokens(texts)

    inner = OneAtATime()
    kept = RememberedTokens(inner)
    threads = [threading.Thread(target=kept.encode_tokens, args=([f"text {n}"],)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not inner.overlapped and inner.texts_seen == 6


def test_only_the_candidates_nearest_by_the_judge_are_aligned(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """Encoding every candidate's tokens was most of a check's cost: with
    ``aligned_candidates`` 1 only the candidate nearest by the judge's cosine
    gets token vectors; the other pair is decided by the whole-text decision."""
    raw = {**_raw(), "aligned_same_item": _aligned_only()}
    every = _check(tmp_path / "a", DedupeConfig.model_validate(raw), tokens := FakeTokenEncoder(TRANSLATIONS))
    assert all("aligned" in m.features for m in every.values()) and tokens.texts_seen == 3
    capped = DedupeConfig.model_validate({**raw, "aligned_candidates": 1})
    matches = _check(tmp_path / "b", capped, tokens := FakeTokenEncoder(TRANSLATIONS))
    nearest = max(matches.values(), key=lambda m: m.features["judge_cosine"])
    assert [m.id for m in matches.values() if "aligned" in m.features] == [nearest.id]
    assert tokens.texts_seen == 2  # the item and its nearest candidate


class Meeting:
    """Two encoders' first runs of the item: each says it started and waits to see the
    other start, which only happens when they run at once."""

    def __init__(self, *names: str) -> None:
        import threading

        self.started = {name: threading.Event() for name in names}
        self.seen: dict[str, bool] = {}

    def meet(self, mine: str, other: str, texts: list[str]) -> None:
        if mine not in self.seen and any("甲" in text for text in texts):
            self.started[mine].set()
            self.seen[mine] = self.started[other].wait(timeout=5)

    def encoder(self, mine: str, other: str, *args: object) -> FakeEncoder:
        """A fake sentence encoder that meets ``other`` on its first run of the item."""
        meeting = self

        class Meets(FakeEncoder):
            def encode(self, texts):  # type: ignore[no-untyped-def]
                meeting.meet(mine, other, list(texts))
                return super().encode(texts)

        return Meets(*args)


def test_the_item_s_tokens_are_encoded_beside_its_sentence_vectors(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """A short item's model runs are too small to use both cores each, so the token
    graph runs on a thread while the index's encoder runs here."""
    meeting = Meeting("tokens", "sentences")

    class Tokens(FakeTokenEncoder):
        def encode_tokens(self, texts):  # type: ignore[no-untyped-def]
            meeting.meet("tokens", "sentences", list(texts))
            return super().encode_tokens(texts)

    config = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    matches = _check(tmp_path, config, Tokens(TRANSLATIONS), encoder=meeting.encoder("sentences", "tokens"))
    assert meeting.seen == {"tokens": True, "sentences": True}
    assert matches["k-des"].same_item  # the overlap changes no decision


def test_the_item_s_judge_vector_is_embedded_beside_the_index_encoder(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    """The judge embeds the item on the thread beside while the index's encoder embeds its passages here."""
    meeting = Meeting("judge", "index")
    index, judge = meeting.encoder("index", "judge"), meeting.encoder("judge", "index", "fakejudge", 32)
    config = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    matches = _check(tmp_path, config, FakeTokenEncoder(TRANSLATIONS), encoder=index, judge=judge)
    assert meeting.seen == {"judge": True, "index": True}
    assert matches["k-des"].same_item


def test_a_model_that_runs_concurrently_is_not_made_to_take_turns() -> None:
    """onnxruntime's sessions run from several threads at once: only the kept rows are
    behind the lock, so a check's claims encoded beside do not hold up its candidates."""
    import threading

    from kbsearch.embed.tokens import RememberedTokens

    class Together(FakeTokenEncoder):
        runs_concurrently = True
        both_inside = threading.Barrier(2, timeout=5)

        def encode_tokens(self, texts):  # type: ignore[no-untyped-def]
            self.both_inside.wait()  # broken (an error) unless the two calls are inside at once
            return super().encode_tokens(texts)

    inner = Together()
    kept = RememberedTokens(inner)
    results: dict[int, list[np.ndarray]] = {}
    threads = [
        threading.Thread(target=lambda n=n: results.update({n: kept.encode_tokens([f"text {n}", "shared"])}))
        for n in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not inner.both_inside.broken and len(results) == 2
    assert np.array_equal(results[0][1], results[1][1])  # the shared text, the same rows
    again = kept.encode_tokens(["text 0", "text 1", "shared"])  # all kept now: no model run
    assert inner.texts_seen == 4 and np.array_equal(again[2], results[0][1])


def test_a_pair_s_tokens_are_aligned_once_a_check(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The item's neighbourhood reads each candidate's alignment and the pair's features
    read it again: about 0.1 ms a pair, a tenth of a warm check's CPU on the bench index."""
    import kbsearch.dedupe.rules as rules

    pairs: list[tuple[int, int]] = []

    def counted(a: np.ndarray, b: np.ndarray) -> float:
        pairs.append((id(a), id(b)))
        return token_alignment(a, b)

    monkeypatch.setattr(rules, "token_alignment", counted)
    aligned = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    matches = _check(tmp_path, aligned, FakeTokenEncoder(TRANSLATIONS))
    assert matches["k-des"].same_item and matches["k-des"].features["aligned"] == pytest.approx(1.0, abs=1e-3)
    assert len(pairs) == len(set(pairs)) == 2  # the item with each of the two known records

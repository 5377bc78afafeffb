"""``explain`` of a stored pair (and of a file's item) embeds A once: explain's own reading of
the pair and check's re-run that says whether check decided otherwise read the same embedded
items (they were embedded twice: 0.65 s to 1.8 s warm for a stored pair on the real models)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from support.files import write_jsonl
from test_alignment import ITEM, KNOWN, TRANSLATIONS, _aligned_only, _raw
from test_judge import judged_models  # noqa: F401

from fake_encoder import FakeEncoder, FakeTokenEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model

A_WORD = "甲"  # in A's text only (ITEM), in none of the known records'


class Counting(FakeEncoder):
    """Counts the runs that embed a text of A."""

    def __init__(self, model_id: str = "fake", dim: int = 64) -> None:
        super().__init__(model_id, dim)
        self.runs_with_a = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.runs_with_a += any(A_WORD in text for text in texts)
        return super().encode(texts)


class CountingTokens(FakeTokenEncoder):
    def __init__(self) -> None:
        super().__init__(TRANSLATIONS)
        self.runs_with_a = 0

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.runs_with_a += any(A_WORD in text for text in texts)
        return super().encode_tokens(texts)


def _runs(tmp_path: Path, stored: bool) -> dict[str, int]:
    config = DedupeConfig.model_validate({**_raw(), "aligned_same_item": _aligned_only()})
    encoders = {"encoder": Counting(), "judge": Counting("fakejudge", 32), "tokens": CountingTokens()}
    with KnowledgeBase(tmp_path / "idx", resolve_model("fake"), create=True, **encoders) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item = write_jsonl(tmp_path / "item.jsonl", [ITEM])
        if stored:
            kb.ingest([item])
        for each in encoders.values():
            each.runs_with_a = 0
        explained = kb.explain("i-des", "k-des", config=config) if stored else None
        explained = explained or kb.explain(str(item), "k-des", config=config, file_item=1)
    assert explained.match.same_item and explained.match.form == "aligned"  # read as check reads it
    return {name: each.runs_with_a for name, each in encoders.items()}


def test_explain_of_a_stored_pair_embeds_a_once(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    assert _runs(tmp_path, stored=True) == {"encoder": 1, "judge": 1, "tokens": 1}


def test_explain_of_a_file_item_embeds_the_file_once(judged_models: Path, tmp_path: Path) -> None:  # noqa: F811
    assert _runs(tmp_path, stored=False) == {"encoder": 1, "judge": 1, "tokens": 1}

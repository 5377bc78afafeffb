"""What the rules read of a known record's text is read once in a warm process:
a kept record's copies share it (``record_text.text_property``), and a passage's
stances are kept (``polarity.stances``). Decisions do not change, only cost."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import fake_config
from support.kept_rows import Rows

import kbsearch.dedupe.platforms as platforms
import kbsearch.dedupe.record_text as record_text
import kbsearch.text.polarity as polarity
import kbsearch.text.stages as stages
from fake_encoder import FakeEncoder
from kbsearch.dedupe.kept_records import KeptRecords
from kbsearch.dedupe.rules import Embedded
from kbsearch.records import Kind, Record

RECORD = Record(
    id="k",
    kind=Kind.increment,
    title="SpillKV: paging KV-Cache to disk",
    text="Unlike H2O, SpillKV pages the KV cache with Kestrel-Serve 1.2.",
    claims=["SpillKV cuts memory by 40%"],
)


def _kept_copy() -> tuple[KeptRecords, Embedded]:
    built = Embedded(RECORD, FakeEncoder().encode(RECORD.passages()))
    kept = KeptRecords()
    kept.keep({1: built}, {1: b"row"}, 0)
    return kept, kept.take([1], Rows())[1]


def test_a_kept_record_s_names_are_read_once_across_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    kept, first = _kept_copy()
    config = fake_config()
    named = (first.all_names, first.names, first._only_cited_names, first.named(config, len).written)
    assert "spillkv" in named[0] and "h2o" in named[2]

    def unread(text: str) -> set[str]:
        raise AssertionError(f"read again: {text!r}")

    monkeypatch.setattr(record_text, "latin_names", unread)
    monkeypatch.setattr(record_text, "hyphenated_words", unread)
    again = kept.take([1], Rows())[1]  # the next check's copy
    assert (again.all_names, again.names, again._only_cited_names, again.named(config, len).written) == named


def test_a_copy_with_other_vectors_keeps_the_text_s_names_and_not_the_vectors_() -> None:
    _, first = _kept_copy()
    assert first.all_names and first.whole.shape == (first.vectors.shape[1],)
    full = first.with_passages(np.zeros_like(first.vectors))
    assert full.all_names is first.all_names  # the text's: shared
    assert not full.whole.any() and first.whole.any()  # the vectors': its own


def test_stances_are_kept_and_each_caller_gets_its_own_list() -> None:
    passage = "SpillKV now supports SGLang; it does not support vLLM yet."
    polarity._stances.cache_clear()
    first = polarity.stances(passage)
    again = polarity.stances(passage)
    assert first == again and first is not again and first
    assert polarity._stances.cache_info().hits == 1
    first.clear()
    assert polarity.stances(passage) == again


def test_a_title_s_names_and_a_passage_s_stage_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    title, passage = "Medusa-3 on SpillKV 1.2 for vLLM", "The SpillKV PR was merged into vLLM main."
    names, stage = platforms.title_names(title), stages.stage_said(passage)
    assert "medusa" in names and stage is not None

    def unread(*args: object) -> set[str]:
        raise AssertionError(f"read again: {args!r}")

    monkeypatch.setattr(platforms, "latin_names", unread)
    monkeypatch.setattr(stages, "_read", unread)
    assert platforms.title_names(title) == names and stages.stage_said(passage) == stage

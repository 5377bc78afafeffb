"""The judge's passage vectors of a same-item record are kept across checks
(``kbsearch.dedupe.judged_passages``): a warm process re-embeds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.files import write_jsonl
from test_judge import FAKE_JUDGE_DEDUPE, ITEM, KNOWN, judge_encoder, judged_models  # noqa: F401

from fake_encoder import FakeEncoder
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.judged_passages import JudgedPassages, judged_passages
from kbsearch.dedupe.scorer import Scorer
from kbsearch.embed import TokenEncoder
from kbsearch.kb import KnowledgeBase
from kbsearch.models import resolve_model


def _config(said: Scorer | None = None) -> DedupeConfig:
    """The fake judge's config with its cosine claim decision, and ``said`` as ``claim_said``."""
    raw = json.loads(FAKE_JUDGE_DEDUPE.read_text(encoding="utf-8"))
    return DedupeConfig.model_validate({**raw, "judge_claim_known": raw["claim_known"], "claim_said": said})


def _kb(tmp_path: Path, judge: FakeEncoder, tokens: TokenEncoder | None = None) -> KnowledgeBase:
    """A new index on the fake model with ``judge`` (and ``tokens``) to check with."""
    spec = resolve_model("fake")
    return KnowledgeBase(tmp_path / "idx", spec, create=True, encoder=FakeEncoder(), judge=judge, tokens=tokens)


def test_a_record_s_passages_are_embedded_once_and_give_the_same_vectors() -> None:
    judge = FakeEncoder("fakejudge", 16)
    kept = JudgedPassages(judge, max_rows=5)
    first = kept.vectors(["alpha beta", "gamma delta"])
    again = kept.vectors(["alpha beta", "gamma delta"])
    assert judge.calls == 1 and np.array_equal(first, again)
    kept.vectors(["gamma delta"])  # another record's batch: its own vectors, embedded once
    assert judge.calls == 2


def test_a_new_process_reads_a_record_s_batch_from_disk_exactly_as_it_was_encoded(tmp_path: Path) -> None:
    from kbsearch.embed.token_disk import DiskTokens

    disk = DiskTokens(tmp_path / "passages.sqlite", dtype=np.float32)
    yesterday = FakeEncoder("fakejudge", 16)
    encoded = JudgedPassages(yesterday, disk=disk).vectors(["alpha beta", "gamma delta"])
    today = FakeEncoder("fakejudge", 16)
    read = JudgedPassages(today, disk=disk).vectors(["alpha beta", "gamma delta"])
    assert today.calls == 0 and read.dtype == np.float32 and np.array_equal(read, encoded)
    JudgedPassages(today, disk=disk).vectors(["alpha beta"])  # another batch: the record's is not it
    assert today.calls == 1


def test_the_least_recently_read_record_goes_past_the_bound() -> None:
    judge = FakeEncoder("fakejudge", 16)
    kept = JudgedPassages(judge, max_rows=4)
    kept.vectors(["a1", "a2"])
    kept.vectors(["b1", "b2"])
    kept.vectors(["a1", "a2"])  # read again: b goes first
    kept.vectors(["c1"])  # 5 rows > 4
    calls = judge.calls
    kept.vectors(["a1", "a2"])
    assert judge.calls == calls
    kept.vectors(["b1", "b2"])
    assert judge.calls == calls + 1


def test_each_judge_keeps_its_own() -> None:
    one, other = FakeEncoder("fakejudge", 16), FakeEncoder("fakejudge", 16)
    assert judged_passages(one) is judged_passages(one)
    assert judged_passages(one) is not judged_passages(other)


def test_a_second_check_reads_the_kept_vectors_of_its_same_item_records(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The check path itself keeps them: checking a repeat twice in one process
    embeds the known record's passages with the judge once."""
    config = _config()
    judge = judge_encoder()
    repeat = {**KNOWN[0], "id": "i-repeat", "instance": "tom", "date": "2026-09-18"}
    with _kb(tmp_path, judge) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        item = str(write_jsonl(tmp_path / "item.jsonl", [repeat]))
        embedded = []
        results = []
        for _ in range(2):
            before = judge.texts_seen
            results.append(kb.check(item, config=config).items[0])
            embedded.append(judge.texts_seen - before)
    first, second = results
    assert first.verdict == second.verdict and first.claims == second.claims
    assert any(m.id == "k-tri" and m.same_item for m in first.matches)
    # The item and its claims are embedded again; k-tri's two passages are not.
    assert embedded[0] - embedded[1] == 2


def test_claim_said_weighs_the_same_item_records_else_the_claims_nearest_passage(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a same-item record the form reads its passages alone (another paper's passage it
    took for a claim was a new fact of this one on the dev feeds); without one, each claim's
    single nearest passage (reading every near passage with the judge cost a new item 0.8 s)."""
    from test_claim_said import COVERED, TOKENS

    import kbsearch.dedupe.check as check_module

    config = _config(COVERED)
    weighed: list[tuple[set[str], list[str]]] = []
    real = check_module.judge_said

    def spy(claim, hits, same_ids, *rest):  # type: ignore[no-untyped-def]
        weighed.append((set(same_ids), [h.known.record.id for h in hits]))
        return real(claim, hits, same_ids, *rest)

    monkeypatch.setattr(check_module, "judge_said", spy)
    repeat = {**KNOWN[0], "id": "i-repeat", "instance": "tom", "date": "2026-09-18"}
    # Untitled, as the digests are: a title naming no system the known titles name would set
    # those records apart (``rules.different_names``, read both ways) and leave no passage to weigh.
    fresh = {"id": "i-new", "title": "", "text": "prefix pages are shared across tenants"}
    with _kb(tmp_path, judge_encoder(), TOKENS) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        kb.check(str(write_jsonl(tmp_path / "repeat.jsonl", [repeat])), config=config)
        assert weighed and all(same and set(ids) <= same for same, ids in weighed)
        weighed.clear()
        kb.check(str(write_jsonl(tmp_path / "fresh.jsonl", [fresh])), config=config)
        assert weighed and all(not same and len(ids) == 1 for same, ids in weighed)


def test_a_claim_that_is_the_whole_text_is_not_embedded_again(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """An item without 要点 and of one sentence is its own claim: the judge's vector of
    its whole text serves both the item decision and the claim's (one model run fewer)."""

    class Recording(FakeEncoder):
        def __init__(self) -> None:
            super().__init__("fakejudge", 32)
            self.texts: list[str] = []

        def encode(self, texts):  # type: ignore[no-untyped-def]
            self.texts.extend(texts)
            return super().encode(texts)

    config = _config()
    judge = Recording()
    repeat = {**ITEM, "text": "TriAttention keeps keys in a frequency basis and KV memory falls by 6x"}
    with _kb(tmp_path, judge) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        judge.texts.clear()
        result = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [repeat])), config=config).items[0]
    assert any(m.same_item for m in result.matches) and len(result.claims) == 1
    whole = judge.texts[0]  # the item decision's, first
    assert result.claims[0].text in whole and judge.texts.count(whole) == 1


def test_an_item_s_claims_are_read_token_by_token_beside_its_sentence_vectors(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """With a ``claim_said`` that reads coverage, the claims' token vectors are encoded in
    one run on the thread beside the sentence encoders, not one run per claim after the
    search; the claim decision reads them from there."""
    import threading

    from test_claim_said import COVERED

    from fake_encoder import FakeTokenEncoder

    calls: list[tuple[bool, list[str]]] = []

    class Tokens(FakeTokenEncoder):
        def encode_tokens(self, texts):  # type: ignore[no-untyped-def]
            calls.append((threading.current_thread() is threading.main_thread(), list(texts)))
            return super().encode_tokens(texts)

    config = _config(COVERED)
    points = ["TriAttention keeps the keys in a frequency basis", "KV memory falls by 6x"]
    repeat = {**KNOWN[0], "id": "i-repeat", "instance": "tom", "date": "2026-09-18", "claims": points}
    with _kb(tmp_path, judge_encoder(), Tokens()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        calls.clear()
        result = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [repeat])), config=config).items[0]
    claims = [c.text for c in result.claims]
    assert len(claims) >= 2 and any(m.same_item for m in result.matches)
    beside = [texts for on_main, texts in calls if not on_main]
    assert any(set(claims) <= set(texts) for texts in beside)  # all in one run, off the main thread
    assert not any(set(texts) & set(claims) for on_main, texts in calls if on_main)


def test_a_new_item_s_claims_are_judged_in_one_run_against_kept_record_batches(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """With no same-item record, ``claim_said`` weighs each claim's nearest passage. That
    passage is read in its record's batch, which a process (or the fill after an ingest)
    keeps, and the claims are embedded in one run: a passage alone, and each claim alone,
    were an e5 run each per new item."""
    from test_claim_said import COVERED, TOKENS

    calls: list[list[str]] = []

    class Recording(FakeEncoder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            calls.append(list(texts))
            return super().encode(texts)

    config = _config(COVERED)
    fresh = {  # untitled: see the test above
        "id": "i-new",
        "title": "",
        "text": "Prefix pages are shared. The KV cache hit rate doubles.",
    }
    with _kb(tmp_path, Recording("fakejudge", 32), TOKENS) as kb:
        # Records of several passages (a text and its 要点): a passage alone is not their batch.
        known_records = [{**k, "claims": k["text"].split(" and ")} for k in KNOWN]
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", known_records)])
        for n, known in enumerate(known_records):  # a repeat of each: its record's batch is kept
            repeat = {**known, "id": f"i-repeat-{n}", "instance": "tom", "date": "2026-09-18"}
            kb.check(str(write_jsonl(tmp_path / f"repeat-{n}.jsonl", [repeat])), config=config)
        calls.clear()
        result = kb.check(str(write_jsonl(tmp_path / "fresh.jsonl", [fresh])), config=config).items[0]
    claims = [c.text for c in result.claims]
    assert len(claims) == 2 and not any(m.same_item for m in result.matches)
    assert all(c.best_id in {"k-tri", "k-tgi"} for c in result.claims)  # each weighed a known passage
    assert all(c.evidence for c in result.claims), [c.evidence for c in result.claims]
    assert sorted(map(len, calls)) == [1, 2] and claims in calls  # the item's text, then its claims at once


def test_a_large_check_stops_between_claim_token_runs_once_its_request_is_given_up(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The claims' token vectors are encoded beside, a few claims a run; a request given
    up (over budget, its caller gone) stops at the next run, not after every claim."""
    from test_claim_said import COVERED

    from fake_encoder import FakeTokenEncoder
    from kbsearch.dedupe.claim_inputs import CLAIM_TOKEN_BATCH
    from kbsearch.errors import Stopped
    from kbsearch.runtime.cancel import Cancellation, watching

    cancellation = Cancellation()
    runs: list[list[str]] = []

    class GivesUp(FakeTokenEncoder):
        def encode_tokens(self, texts):  # type: ignore[no-untyped-def]
            runs.append(list(texts))
            if any(text in points for text in texts):  # the first run of the item's claims
                cancellation.cancel("the caller has gone")
            return super().encode_tokens(texts)

    config = _config(COVERED)
    points = [f"point number {n} of a long briefing item" for n in range(3 * CLAIM_TOKEN_BATCH)]
    item = {"id": "i-long", "title": "A long item", "text": "a long item of many points", "claims": points}
    with _kb(tmp_path, judge_encoder(), GivesUp()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        runs.clear()
        with watching(cancellation), pytest.raises(Stopped):
            kb.check(str(write_jsonl(tmp_path / "item.jsonl", [item])), config=config)
    # One run of claims; the candidates' whole texts may be encoded on the
    # caller's thread meanwhile, before it reaches its next checkpoint.
    assert [len(run) for run in runs if any(text in points for text in run)] == [CLAIM_TOKEN_BATCH]


def test_the_claims_are_embedded_while_the_item_is_compared(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the claim decisions read the judge's vectors of the claims and their token
    vectors, so both runs go on beside the search and the comparisons: each waits to see
    the comparisons start, which only happens when the check does not wait for it first.
    Decisions are unchanged."""
    import threading

    from test_claim_said import COVERED

    import kbsearch.dedupe.check as check_module
    from fake_encoder import FakeTokenEncoder

    points = ["TriAttention keeps the keys in a frequency basis", "KV memory falls by 6x"]
    comparing, overlapped = threading.Event(), []
    compare_all = check_module.compare_all

    def compared(*args, **kwargs):  # type: ignore[no-untyped-def]
        comparing.set()
        return compare_all(*args, **kwargs)

    class Tokens(FakeTokenEncoder):
        def encode_tokens(self, texts):  # type: ignore[no-untyped-def]
            if set(points) <= set(texts):
                overlapped.append(("tokens", comparing.wait(timeout=5)))
            return super().encode_tokens(texts)

    class Judge(FakeEncoder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            if list(texts) == points:
                overlapped.append(("judge", comparing.wait(timeout=5)))
            return super().encode(texts)

    config = _config(COVERED)
    repeat = {**KNOWN[0], "id": "i-repeat", "instance": "tom", "date": "2026-09-18", "claims": points}
    with _kb(tmp_path, Judge("fakejudge", 32), FakeTokenEncoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        comparing.set()  # the first check waits for nothing
        before = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [repeat])), config=config).items[0]
    comparing.clear()
    overlapped.clear()
    with _kb(tmp_path / "again", Judge("fakejudge", 32), Tokens()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        monkeypatch.setattr(check_module, "compare_all", compared)
        after = kb.check(str(write_jsonl(tmp_path / "item.jsonl", [repeat])), config=config).items[0]
    assert overlapped == [("judge", True), ("tokens", True)]
    assert [c.model_dump() for c in after.claims] == [c.model_dump() for c in before.claims]
    assert after.verdict == before.verdict and any(m.same_item for m in after.matches)


def test_a_warm_process_reads_its_known_records_once_and_again_where_a_write_changed_them(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The candidates a check builds are kept for the next check of the same index
    (``kept_records``), with the same verdict; a write keeps those whose rows it left
    as they were, and the next check reads again the one whose text it changed."""
    config = _config()
    repeat = {**KNOWN[0], "id": "i-repeat", "instance": "tom", "date": "2026-09-18"}
    with _kb(tmp_path, judge_encoder()) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
        read: list[list[int]] = []
        real = kb.store.by_rowids_digested
        monkeypatch.setattr(kb.store, "by_rowids_digested", lambda rowids: read.append(list(rowids)) or real(rowids))
        item = str(write_jsonl(tmp_path / "item.jsonl", [repeat]))
        first = kb.check(item, config=config).items[0]
        assert read, "the first check reads its candidates"
        candidates = {rowid for rowids in read for rowid in rowids}
        read.clear()
        again = kb.check(item, config=config).items[0]
        assert not read and again.verdict == first.verdict and again.matches == first.matches
        another = {"id": "k-new", "title": "Prefix caching", "text": "Prefix pages are shared across tenants"}
        kb.ingest([write_jsonl(tmp_path / "another.jsonl", [another])])
        kb.check(item, config=config)
        assert not candidates & {rowid for rowids in read for rowid in rowids}, "a write left them as they were"
        changed = {**KNOWN[0], "text": KNOWN[0]["text"] + " on long contexts"}
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", [changed, *KNOWN[1:]])])
        read.clear()
        kb.check(item, config=config)
        rowid = kb.store.rowids_of(["k-tri"])["k-tri"]
        assert rowid in candidates and {rowid for rowids in read for rowid in rowids} == {rowid}, "its text changed"


def test_kept_records_leave_their_token_vectors_to_the_token_encoder_s_keep() -> None:
    """A record's token vectors (100 KB and more) are kept once, by the token encoder;
    a kept record is handed out without them, and the check that built it keeps its own."""
    from support.kept_rows import Rows

    from kbsearch.dedupe.kept_records import KeptRecords
    from kbsearch.dedupe.rules import Embedded
    from kbsearch.records import Kind, Record

    record = Record(id="k", kind=Kind.increment, title="KV cache", text="KV cache paging")
    built = Embedded(record, FakeEncoder().encode(record.passages()), judge_tokens=np.ones((3, 32), np.float32))
    kept = KeptRecords()
    kept.keep({7: built}, {7: b"row"}, 0)
    [(rowid, taken)] = kept.take([7, 8], Rows()).items()
    assert rowid == 7 and taken.judge_tokens is None and built.judge_tokens is not None
    assert taken.record == record and np.array_equal(taken.vectors, built.vectors)

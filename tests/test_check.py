"""check and audit mechanics, with the fake encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FAKE_DEDUPE, fake_config
from hypothesis import given, settings
from hypothesis import strategies as st
from support.briefings import LAYOUT_0826, LAYOUT_0919, Briefing
from support.cli import check_json, ingest_rows
from support.files import write_jsonl

from fake_encoder import FakeEncoder
from kbsearch.cli import main
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.config import with_overrides
from kbsearch.dedupe.results import Verdict
from kbsearch.ingest import ingest_records
from kbsearch.records import Kind, Record
from kbsearch.store import ChangeSet, Store

KNOWN = [
    {
        "id": "jay-c2kv",
        "title": "C²KV compressible composable KV cache reuse",
        "instance": "jay",
        "date": "2026-08-26",
        "arxiv_ids": ["2607.17715"],
        "claims": ["4x compression keeps NDCG@5 at 0.71", "orthogonal to PagedAttention"],
    },
    {
        "id": "jay-internet",
        "title": "An Internet for the KV Cache",
        "instance": "jay",
        "date": "2026-08-26",
        "arxiv_ids": ["2608.01526"],
        "text": "KV cache as an infrastructure layer for agents",
    },
    {
        "id": "spark-tgi",
        "title": "TGI enters maintenance mode",
        "instance": "spark",
        "date": "2026-09-01",
        "text": "Hugging Face TGI accepts only bug fixes now and points users to vLLM or SGLang",
    },
    {
        "id": "late-keda",
        "title": "KEDA autoscaling for vLLM on prefix cache hit ratio",
        "instance": "spark",
        "date": "2026-09-30",
        "text": "scale replicas on queue depth and prefix cache hits",
    },
]


# A labelled stream (see kbsearch.dedupe.replay): each day a writer notes items, and a
# second writer on the same day restates some of them, adds others.
_TOPICS = [
    ("TGI enters maintenance mode", "Hugging Face TGI accepts only bug fixes now"),
    ("KEDA autoscaling on prefix cache hits", "scale vLLM replicas on queue depth and cache hits"),
    ("Zero-copy KV cache offloading", "GPU to host copies removed from the decode path"),
    ("Cached input pricing", "cached prompt tokens cost one tenth of list price"),
    ("MCP design patterns", "tool servers for agents, grouped into six patterns"),
    ("Suffix decoding in SGLang", "speculative decoding from a suffix tree of earlier outputs"),
]
STREAM = (
    [
        {"id": f"a{day}-{n}", "title": t, "text": x, "date": f"2026-10-0{day}", "item": f"{day}-{n}", "role": "known"}
        for day in range(1, 5)
        for n, (t, x) in enumerate(_TOPICS[day - 1 : day + 1])
    ]
    + [
        {
            "id": f"b{day}-{n}",
            "title": t,
            "text": f"{x}, as of today",
            "date": f"2026-10-0{day}",
            "item": f"{day}-{n}",
            "role": "check",
        }
        for day in range(1, 5)
        for n, (t, x) in enumerate(_TOPICS[day - 1 : day + 1])
    ]
    + [
        {
            "id": f"c{day}",
            "title": _TOPICS[5 - day][0],
            "text": "unrelated",
            "date": f"2026-10-0{day}",
            "item": f"x{day}",
            "role": "check",
        }
        for day in range(1, 5)
    ]
)


@pytest.fixture
def index(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return str(ingest_rows(capsys, tmp_path, KNOWN))


def item(**fields: object) -> dict:
    return {"instance": "tom", "date": "2026-09-19", **fields}


def check_rows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, index: str, rows: list[dict], *extra: str
) -> tuple[int, dict]:
    return check_json(capsys, "check", str(write_jsonl(tmp_path / "incoming.jsonl", rows)), "--index", index, *extra)


def run_text(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_identical_text_is_a_duplicate_and_exits_1(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = item(id="mine", title=KNOWN[2]["title"], text=KNOWN[2]["text"])
    code, result = check_rows(capsys, tmp_path, index, [copy])
    assert code == 1
    first = result["items"][0]
    assert first["id"] == "mine" and first["verdict"] == "DUPLICATE"
    assert "identical text" in first["reason"]
    top = first["matches"][0]
    assert top["id"] == "spark-tgi" and top["instance"] == "spark" and top["date"] == "2026-09-01"
    assert top["score"] == pytest.approx(1.0, abs=1e-3)
    assert {"id", "verdict", "matches", "claims", "flags"} <= set(first)


def test_same_paper_with_a_new_number_is_an_update(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    update = item(
        id="u",
        title="C²KV cache reuse, full paper",
        arxiv_ids=["2607.17715"],
        claims=["4x compression keeps NDCG@5 at 0.71", "8x compression drops NDCG@5 to 0.52"],
    )
    code, result = check_rows(capsys, tmp_path, index, [update])
    assert code == 0
    verdict = result["items"][0]
    assert verdict["verdict"] == "UPDATE"
    assert verdict["matches"][0]["shared_ids"] == ["2607.17715"]
    known, new = verdict["claims"]
    assert known["known"] is True and known["best_id"] == "jay-c2kv"
    assert new["known"] is False and set(new["new_numbers"]) >= {"8x", "0.52"}


def test_citing_a_paper_is_not_repeating_it(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    citing = item(
        id="zc",
        title="An Internet for the KV Cache zero-copy offloading",
        text="KV cache as an infrastructure layer for agents",
        cited_ids=["2608.01526"],
    )
    _, result = check_rows(capsys, tmp_path, index, [citing])
    verdict = result["items"][0]
    assert verdict["verdict"] == "NEW"
    internet = next(m for m in verdict["matches"] if m["id"] == "jay-internet")
    assert internet["same_item"] is False and internet["cited_ids"] == ["2608.01526"]


def test_unrelated_item_is_new(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, result = check_rows(capsys, tmp_path, index, [item(id="n", title="量子退火 调度 电网")])
    assert code == 0 and result["items"][0]["verdict"] == "NEW"
    assert result["items"][0]["first_seen"] is None


def test_as_of_hides_later_records(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = item(id="k", title=KNOWN[3]["title"], text=KNOWN[3]["text"], date=None)
    assert check_rows(capsys, tmp_path, index, [copy])[1]["items"][0]["verdict"] == "DUPLICATE"
    _, replay = check_rows(capsys, tmp_path, index, [copy], "--as-of", "2026-09-19")
    assert replay["as_of"] == "2026-09-19"
    assert replay["items"][0]["verdict"] == "NEW"
    assert all(m["id"] != "late-keda" for m in replay["items"][0]["matches"])


def test_a_dated_item_is_compared_with_nothing_written_after_it(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24: a briefing of 09-19 showed "first seen: stephen 2026-09-21". Its own date is the
    default --as-of; the later record is named in a note, never as evidence."""
    copy = item(id="k", title=KNOWN[3]["title"], text=KNOWN[3]["text"])  # dated 2026-09-19; late-keda is 09-30
    verdict = check_rows(capsys, tmp_path, index, [copy])[1]["items"][0]
    assert verdict["verdict"] == "NEW" and verdict["as_of"] == "2026-09-19"
    assert all(m["id"] != "late-keda" for m in verdict["matches"]) and verdict["first_seen"] is None
    assert len(verdict["notes"]) == 1 and verdict["notes"][0].startswith("late-keda (spark, 2026-09-30)")
    code, text = run_text(capsys, "check", str(tmp_path / "incoming.jsonl"), "--index", index)
    assert code == 0 and "note: late-keda (spark, 2026-09-30) would also be the same item" in text
    later = check_rows(capsys, tmp_path, index, [copy], "--as-of", "2026-09-30")[1]["items"][0]
    assert later["verdict"] == "DUPLICATE" and later["notes"] == []


def test_a_dated_item_still_reads_undated_records(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record with no date (a living doc that states none) cannot be shown to be later than
    any day: the default as-of and --as-of both leave it in, so --as-of the item's own date
    gives the default's evidence. --as-of left every such record out."""
    doc = {
        "id": "doc/inference#kv",
        "kind": "doc_section",
        "title": "KEDA autoscaling for vLLM on prefix cache hit ratio",
        "text": KNOWN[3]["text"],
    }
    undated = write_jsonl(tmp_path / "doc.jsonl", [doc])
    assert main(["ingest", str(undated), "--index", index]) == 0
    capsys.readouterr()
    copy = item(id="k", title=KNOWN[3]["title"], text=KNOWN[3]["text"])  # dated 2026-09-19

    def evidence(*as_of: str) -> list[tuple[str, bool, float]]:
        verdict = check_rows(capsys, tmp_path, index, [copy], *as_of)[1]["items"][0]
        return [(m["id"], m["same_item"], m["probability"]) for m in verdict["matches"]]

    default = evidence()
    assert "doc/inference#kv" in {m for m, _, _ in default} and "late-keda" not in {m for m, _, _ in default}
    assert evidence("--as-of", "2026-09-19") == default
    assert "doc/inference#kv" in {m for m, _, _ in evidence("--as-of", "2026-12-31")}


def test_rechecking_an_ingested_file_never_matches_itself(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, result = check_json(capsys, "check", str(tmp_path / "known.jsonl"), "--index", index)
    for number, verdict in enumerate(result["items"]):
        assert verdict["verdict"] == "NEW"
        # Its own stored copy is left out; the earlier items of the input are compared as
        # they were the first time (``same_input``), never as stored records.
        earlier = {r["id"] for r in KNOWN[:number]}
        assert all(m["id"] in earlier for m in verdict["matches"] if m["id"] in {r["id"] for r in KNOWN})


def test_accept_stores_nothing_when_any_item_is_a_duplicate(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24: all or nothing. The writer drops the DUPLICATE and checks again; nothing it
    sent the first time stands in its way."""
    rows = [
        item(id="dup", title=KNOWN[2]["title"], text=KNOWN[2]["text"]),
        item(id="fresh", title="Cached-input pricing at one tenth of list price"),
    ]
    code, result = check_rows(capsys, tmp_path, index, rows, "--accept")
    assert code == 1 and result["accepted"] == []
    assert result["accept_refused"].startswith("nothing accepted: 1 item is a DUPLICATE (dup)")
    _, stats = check_json(capsys, "stats", "--index", index)
    assert stats["records"] == len(KNOWN)
    code, fixed = check_rows(capsys, tmp_path, index, rows[1:], "--accept")
    assert code == 0 and fixed["accepted"] == ["fresh"] and fixed["items"][0]["verdict"] == "NEW"
    _, stats = check_json(capsys, "stats", "--index", index)
    assert stats["records"] == len(KNOWN) + 1
    other = write_jsonl(tmp_path / "other.jsonl", [item(id="other", title=rows[1]["title"])])
    _, again = check_json(capsys, "check", str(other), "--index", index)
    assert again["items"][0]["verdict"] == "DUPLICATE"
    assert again["items"][0]["matches"][0]["id"] == "fresh"


def test_stdin_text_is_one_increment(
    index: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(f"{KNOWN[2]['title']}\n{KNOWN[2]['text']}\n"))
    code, result = check_json(capsys, "check", "-", "--index", index)
    assert code == 1
    assert result["items"][0]["id"].startswith("stdin#")
    assert result["items"][0]["verdict"] == "DUPLICATE"


@pytest.mark.parametrize("briefing", LAYOUT_0919)
def test_table_lists_an_id_as_new_and_as_anchored(
    index: str, briefing: Briefing, capsys: pytest.CaptureFixture[str]
) -> None:
    _, result = check_json(capsys, "check", str(briefing.path), "--index", index)
    assert len(result["items"]) == 5
    flagged = [f for f in result["flags"] if f["arxiv_id"] == "2607.08057"]
    assert flagged and flagged[0]["kind"] == "claimed_new_seen_before"
    assert flagged[0]["anchored_on"] == "9-16"


@pytest.mark.parametrize("briefing", LAYOUT_0826)
def test_first_anchoring_claim_is_flagged_with_first_seen(
    index: str, briefing: Briefing, capsys: pytest.CaptureFixture[str]
) -> None:
    _, result = check_json(capsys, "check", str(briefing.path), "--index", index)
    c2kv = result["items"][0]
    assert c2kv["verdict"] in {"DUPLICATE", "UPDATE"}
    assert c2kv["first_seen"]["id"] == "jay-c2kv"
    flag = c2kv["flags"][0]
    assert flag["kind"] == "claimed_new_seen_before" and flag["first_seen_instance"] == "jay"
    assert flag["first_seen_date"] == "2026-08-26"


def test_audit_clusters_by_subject_id_not_by_citation(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    later = [
        item(id="tom-c2kv", title="C²KV again", arxiv_ids=["2607.17715"], anchor="首次锚入"),
        item(id="tom-zc", title="Zero-copy offload", cited_ids=["2608.01526"], text="GPU to host"),
    ]
    assert main(["ingest", str(write_jsonl(tmp_path / "later.jsonl", later)), "--index", index]) == 0
    capsys.readouterr()
    _, result = check_json(capsys, "audit", "--index", index)
    c2kv = next(c for c in result["clusters"] if c["first_seen"]["id"] == "jay-c2kv")
    assert [m["id"] for m in c2kv["repeats"]] == ["tom-c2kv"]
    assert c2kv["shared_ids"] == ["2607.17715"] and c2kv["instances"] == ["jay", "tom"]
    assert all("tom-zc" not in [c["first_seen"]["id"]] + [m["id"] for m in c["repeats"]] for c in result["clusters"])
    flagged = result["claimed_new_seen_before"]
    assert flagged and flagged[0]["first_seen_id"] == "jay-c2kv"
    _, only_jay = check_json(capsys, "audit", "--instance", "jay", "--index", index)
    assert only_jay["clusters"] and all("jay" in c["instances"] for c in only_jay["clusters"])
    assert c2kv in only_jay["clusters"] and not only_jay["claimed_new_seen_before"]  # the flag is tom's
    _, only_tom = check_json(capsys, "audit", "--instance", "tom", "--index", index)
    assert only_tom["clusters"] == [c2kv] and only_tom["claimed_new_seen_before"] == flagged


def _small_store(tmp_path: Path, encoder: FakeEncoder) -> Store:
    store = Store.open(tmp_path, create=True)
    records = [
        Record(
            id=r["id"],
            kind=Kind.increment,
            title=r["title"],
            text=r.get("text", ""),
            instance=r["instance"],
            claims=r.get("claims", []),
            arxiv_ids=r.get("arxiv_ids", []),
        )
        for r in KNOWN
    ]
    ingest_records(store, ChangeSet(upserts=records), model="fake", load_encoder=lambda: encoder)
    return store


PROBES = [
    Record(id=f"p{i}", kind=Kind.increment, title=t, text=x)
    for i, (t, x) in enumerate(
        [
            ("TGI enters maintenance mode", "only bug fixes now; use vLLM or SGLang"),
            ("KEDA autoscaling", "scale replicas on prefix cache hits"),
            ("C²KV reuse", "4x compression keeps NDCG@5"),
            ("Internet for the KV cache", "infrastructure layer"),
        ]
    )
]


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, FakeEncoder]:
    encoder = FakeEncoder()
    return _small_store(tmp_path_factory.mktemp("kb"), encoder), encoder


def same_items(store: Store, encoder: FakeEncoder, threshold: float) -> int:
    """Probes found to be an item already stored, at ``threshold``."""
    base = fake_config()
    scorer = base.same_item.model_copy(update={"threshold": threshold})
    config = base.model_copy(update={"same_item": scorer})
    result = Checker(store, encoder, config).check(PROBES, file=None, input_name="probe")
    return sum(1 for i in result.items if i.verdict is not Verdict.NEW)


@settings(max_examples=40, deadline=None)
@given(low=st.floats(0.01, 0.98), step=st.floats(0.0, 0.98))
def test_a_higher_threshold_never_flags_more_duplicates(
    small_store: tuple[Store, FakeEncoder], low: float, step: float
) -> None:
    """Monotone, and not because the decision ignores its threshold: at the
    extremes every probe and fewer are flagged (a constant decision fails here)."""
    store, encoder = small_store
    assert same_items(store, encoder, min(0.99, low + step)) <= same_items(store, encoder, low)
    assert same_items(store, encoder, 0.999) < same_items(store, encoder, 0.001) == len(PROBES)


def test_calibrate_fits_both_decisions_and_check_uses_the_file(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "pairs.tsv"
    rows = [
        ("TGI enters maintenance mode", "TGI enters maintenance mode now", 1),
        ("KV cache compression 10x", "KV cache compression ten times", 1),
        ("TGI enters maintenance mode", "量子退火 电网 调度", 0),
        ("zero-copy offloading", "MCP design patterns for agents", 0),
    ]
    pairs.write_text("a\tb\tlabel\tlang\n" + "".join(f"{a}\t{b}\t{y}\ten-en\n" for a, b, y in rows), encoding="utf-8")
    stream = write_jsonl(tmp_path / "stream.jsonl", STREAM)
    out = tmp_path / "dedupe.json"
    _, result = check_json(capsys, "calibrate", str(stream), str(pairs), "--until", "half", "--out", str(out))
    fitted = {f["decision"]: f for f in result["fitted"]}
    assert fitted["claim_known"]["fitted"]["f1"] == 1.0
    assert "4 labelled pairs" in fitted["claim_known"]["scorer"]["fitted_on"]
    assert "earlier half" in fitted["same_item"]["scorer"]["fitted_on"]
    assert fitted["same_item"]["held_out"]["examples"] > 0
    saved = json.loads(out.read_text())
    assert saved["model"] == "fake" and saved["same_item"] == fitted["same_item"]["scorer"]
    strict = json.loads(FAKE_DEDUPE.read_text())
    strict["same_item"]["bias"] = -100.0
    strict["claim_known"]["bias"] = -100.0
    (tmp_path / "strict.json").write_text(json.dumps(strict))
    near = item(id="near", title="TGI enters maintenance mode", text="only bug fixes from now on")
    _, checked = check_rows(capsys, tmp_path, index, [near], "--config", str(tmp_path / "strict.json"))
    assert checked["items"][0]["verdict"] == "NEW"
    _, default = check_rows(capsys, tmp_path, index, [near])
    assert default["items"][0]["verdict"] != "NEW"


def test_bad_pairs_and_bad_config_are_refused(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\tlabel\nx\ty\tmaybe\n", encoding="utf-8")
    assert main(["calibrate", str(bad)]) == 2
    assert "bad.tsv:2" in capsys.readouterr().err
    config = tmp_path / "c.json"
    config.write_text(json.dumps({**json.loads(FAKE_DEDUPE.read_text()), "same_itme": 1}))
    assert main(["check", str(tmp_path / "known.jsonl"), "--config", str(config), "--index", index]) == 2
    assert "same_itme" in capsys.readouterr().err


def test_a_replay_keeps_each_claims_truth_beside_what_check_said(fake_models: Path, tmp_path: Path) -> None:
    """The claim protocol's replays (bench/eval_claims.py): an increment stored with one of its two
    key points, then checked with both (the stored form ingested after the day's checks)."""
    from kbsearch.dedupe.replay import read_stream, replay
    from kbsearch.kb import KnowledgeBase
    from kbsearch.models import resolve_model

    points = ["scale vLLM replicas on queue depth", "p99 stays under 2 s at half the GPUs"]
    base = {"title": "KEDA autoscaling on prefix cache hits", "text": "autoscaling vLLM", "item": "keda"}
    lines = [
        {**base, "id": "k1", "date": "2026-10-01", "claims": points[:1], "role": "after"},
        {**base, "id": "q1", "date": "2026-10-01", "claims": points, "role": "check", "claims_known": [False, False]},
        {
            **base,
            "id": "q2",
            "date": "2026-10-02",
            "claims": points,
            "role": "check",
            "claims_known": [True, False],
            "claims_clear": [True, False],
        },
    ]
    rows = read_stream(write_jsonl(tmp_path / "stream.jsonl", lines))
    with KnowledgeBase(tmp_path / "idx", resolve_model(None), create=True) as kb:
        result = replay(kb, rows, tmp_path / "days", fake_config())
    first, second = result.checked
    assert not first.seen_before and [c.known for c in first.claims] == [False, False]
    assert second.seen_before and second.verdict is Verdict.UPDATE
    assert [(c.known, c.clear, c.said_known) for c in second.claims] == [(True, True, True), (False, False, False)]
    assert second.claims[0].features, "the claim decision's inputs are kept for refits"


def test_a_changed_count_of_the_same_hardware_makes_the_claim_new(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25: accepted "8 H200 GPUs", then the same text with "4 H200 GPUs" was a DUPLICATE
    (new_numbers: []); a lone digit counting GPUs is a fact like any other number."""
    stored = item(id="kimi", title="Serving Kimi K3", claims=["Serving Kimi K3 needs 8 H200 GPUs at 32k context"])
    assert main(["ingest", str(write_jsonl(tmp_path / "kimi.jsonl", [stored])), "--index", index]) == 0
    capsys.readouterr()
    again = {**stored, "id": "kimi-again", "claims": ["Serving Kimi K3 needs 4 H200 GPUs at 32k context"]}
    verdict = check_rows(capsys, tmp_path, index, [again])[1]["items"][0]
    assert verdict["verdict"] == "UPDATE" and verdict["claims"][0]["new_numbers"] == ["4"]
    same = check_rows(capsys, tmp_path, index, [{**stored, "id": "kimi-same"}])[1]["items"][0]
    assert same["verdict"] == "DUPLICATE"


def test_a_claim_moving_a_known_item_to_a_later_stage_makes_an_update(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record said the SGLang port was under discussion; a later item says it was merged.
    The claims read alike word for word, and the merge was dropped as a DUPLICATE."""
    claim = "Suffix decoding for SGLang is under discussion in issue 13165"
    stored = item(id="suffix", title="SGLang suffix decoding", claims=[claim])
    assert main(["ingest", str(write_jsonl(tmp_path / "suffix.jsonl", [stored])), "--index", index]) == 0
    capsys.readouterr()
    merged = {**stored, "id": "suffix-merged", "claims": [claim.replace("is under discussion", "was merged")]}
    verdict = check_rows(capsys, tmp_path, index, [merged])[1]["items"][0]
    assert verdict["verdict"] == "UPDATE" and verdict["claims"][0]["moved_on"] == "planned → merged"
    assert "(moved on: planned → merged)" in verdict["reason"]
    same = check_rows(capsys, tmp_path, index, [{**stored, "id": "suffix-same"}])[1]["items"][0]
    assert same["verdict"] == "DUPLICATE"


POOLED_NOTE = "FlashDecoding v3 splits the KV cache across streaming multiprocessors and merges partial softmax results"


def test_another_writers_repeat_in_the_same_input_is_a_duplicate(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pooled inbox held spark's note and jay's retelling of it: both were NEW, and
    ``--accept`` stored the claim twice."""
    spark = item(id="spark-a", instance="spark", title="FlashDecoding v3", text=POOLED_NOTE)
    jay = item(id="jay-b", instance="jay", title="FlashDecoding v3", text=POOLED_NOTE + ".")
    code, result = check_rows(capsys, tmp_path, index, [spark, jay])
    first, second = result["items"]
    assert first["verdict"] == "NEW" and second["verdict"] == "DUPLICATE" and code == 1
    assert second["first_seen"]["id"] == "spark-a"
    assert any("earlier item of this same input" in note for note in second["notes"])
    code, result = check_rows(capsys, tmp_path, index, [spark, jay], "--accept")
    assert code == 1 and not result["accepted"]


def test_one_writers_items_of_one_day_are_never_compared(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One briefing's increments are distinct by construction, as audit holds too."""
    rows = [item(id=f"tom-{n}", instance="tom", title="FlashDecoding v3", text=POOLED_NOTE) for n in (1, 2)]
    _, result = check_rows(capsys, tmp_path, index, rows)
    assert [i["verdict"] for i in result["items"]] == ["NEW", "NEW"]


def test_a_doc_section_stating_a_claim_is_shown_as_its_evidence_and_never_makes_it_known(tmp_path: Path) -> None:
    """A living-doc section is another item, not one exact evidence rules out: the claim it states
    shows the section's passage ("said by another item"), and stays new."""
    words = "Paged attention kernels landed in FlashInfer for Blackwell GPUs"  # no figure: FP4 is one
    section = Record(id="doc/inference#§1.1", kind=Kind.doc_section, title="§1.1 engines", text=words)
    other = Record(id="jay-x", kind=Kind.increment, title="GPU health checks", text="step time alarms per rank")
    encoder = FakeEncoder()
    store = Store.open(tmp_path / "idx", create=True)
    ingest_records(store, ChangeSet(upserts=[section, other]), model="fake", load_encoder=lambda: encoder)
    probe = Record(id="mine", kind=Kind.increment, title="FlashInfer paging", text="paged kernels", claims=[words])
    [item] = Checker(store, encoder, fake_config()).check([probe], file=None, input_name="probe").items
    [claim] = item.claims
    assert item.verdict is Verdict.NEW
    assert claim.best_id == section.id and not claim.known and claim.said_by_another_item


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Each query vector the store's index is scanned for, in order."""
    seen: list[bytes] = []
    real = Store.search_records

    def counted(self: Store, query, k, flt=None):  # type: ignore[no-untyped-def]
        seen.append(query.tobytes())
        return real(self, query, k, flt)

    monkeypatch.setattr(Store, "search_records", counted)
    return seen


def test_a_claim_that_is_the_whole_text_reuses_the_whole_text_s_search(
    small_store: tuple[Store, FakeEncoder], scans: list[bytes]
) -> None:
    """An item without 要点 is judged as one claim, its whole text: the index is scanned for
    the whole text and for the title, and the claim reads the whole text's list, though the
    title's search came between them (each scan of an exact index reads every vector)."""
    store, encoder = small_store
    probe = PROBES[1]  # one sentence: no claims of its own
    assert not probe.claim_texts() and probe.passages()[0] != probe.embed_text()
    Checker(store, encoder, fake_config()).check([probe], file=None, input_name="probe")
    assert len(scans) == len(set(scans)) == 2


def _kv_store(tmp_path: Path, encoder: FakeEncoder) -> tuple[Store, Record]:
    """A record whose key point an item repeats in other words around it, and five records
    that share the item's headline words, so its whole text finds them first."""
    earlier = Record(
        id="tom-lmcache",
        kind=Kind.increment,
        instance="tom",
        title="LMCache tiers",
        text="cold prefix blocks move to object storage",
        claims=["LMCache offloads KV blocks to S3 with a 12 ms p50 reload"],
    )
    decoys = [
        Record(id=f"spark-{n}", kind=Kind.increment, title=f"serving engine news {n}", text="serving engine news today")
        for n in range(5)
    ]
    store = Store.open(tmp_path / "idx", create=True)
    ingest_records(store, ChangeSet(upserts=[earlier, *decoys]), model="fake", load_encoder=lambda: encoder)
    return store, earlier


def test_a_key_point_finds_the_earlier_record_its_whole_text_does_not(tmp_path: Path) -> None:
    """A repeat reworded around one verbatim key point: the whole text and the title are nearest
    to other records, and only the key point's own search brings the earlier record in."""
    encoder = FakeEncoder()
    store, earlier = _kv_store(tmp_path, encoder)
    probe = Record(
        id="jay-news",
        kind=Kind.increment,
        title="serving engine news",
        text="serving engine news today",
        claims=[earlier.claims[0], "a second tier on local NVMe"],
    )
    config = with_overrides(fake_config(), {"candidates": 2, "matches_shown": 10})
    whole = encoder.encode([probe.embed_text()])[0]
    assert earlier.id not in {store.by_rowids([r])[r].id for r, _, _ in store.search_records(whole, 2, None)}
    [item] = Checker(store, encoder, config).check([probe], file=None, input_name="probe").items
    assert earlier.id in {m.id for m in item.matches}
    assert item.claims[0].best_id == earlier.id
    off = with_overrides(config, {"key_point_candidates": 0})
    [alone] = Checker(store, encoder, off).check([probe], file=None, input_name="probe").items
    assert earlier.id not in {m.id for m in alone.matches}


def test_each_search_of_an_item_with_many_key_points_runs_once(
    small_store: tuple[Store, FakeEncoder], scans: list[bytes]
) -> None:
    """The key points' searches bring candidates in, and their claims' decisions read the same
    lists: the whole text, the title and five key points scan the index seven times, once each."""
    store, encoder = small_store
    points = [f"point {n}: {w} cache reuse" for n, w in enumerate(["prefix", "radix", "paged", "tiered", "shared"])]
    probe = Record(id="many", kind=Kind.increment, title="KV cache reuse roundup", text="five ways", claims=points)
    Checker(store, encoder, fake_config()).check([probe], file=None, input_name="probe")
    assert len(scans) == len(set(scans)) == 7


def test_a_living_doc_dated_on_a_cards_day_was_not_first(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A doc section's date is the doc's last update, not when the section was written: on that
    day the card it took the paper from came first, whatever the ids (doc/… sorted first)."""
    day = {"date": "2026-09-18", "arxiv_ids": ["2609.19969"], "text": "DeepSeek-V4.1-Flash KV compression"}
    doc = {"id": "doc/inference#§1.3", "kind": "doc_section", "title": "§1.3 KV Cache", **day}
    card = {"id": "ex-card-1417", "kind": "paper_card", "title": "DeepSeek-V4.1-Flash", **day}
    for name, row in (("doc", doc), ("card", card)):  # one file's records are never compared
        assert main(["ingest", str(write_jsonl(tmp_path / f"{name}.jsonl", [row])), "--index", index]) == 0
    capsys.readouterr()
    copy = item(
        id="k", title="DeepSeek-V4.1-Flash compresses the KV cache", date="2026-09-20", arxiv_ids=["2609.19969"]
    )
    assert check_rows(capsys, tmp_path, index, [copy])[1]["items"][0]["first_seen"]["id"] == "ex-card-1417"
    # Audit lists a cluster of two items told (the card and the copy), the doc section beside them.
    assert main(["ingest", str(write_jsonl(tmp_path / "copy.jsonl", [copy])), "--index", index]) == 0
    capsys.readouterr()
    _, audited = check_json(capsys, "audit", "--index", index)
    [cluster] = [c for c in audited["clusters"] if c["shared_ids"] == ["2609.19969"]]
    assert cluster["first_seen"]["id"] == "ex-card-1417"
    assert [m["id"] for m in cluster["repeats"]] == ["k", "doc/inference#§1.3"]

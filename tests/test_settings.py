"""Every KBSEARCH_* variable is read and checked in one place (kbsearch.settings)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kbsearch.cli import main
from kbsearch.errors import KbError
from kbsearch.settings import Settings, env_name, settings

PACKAGE = Path(__file__).resolve().parents[1] / "kbsearch"
BAD = {
    "KBSEARCH_LOCK_TIMEOUT": "soon",
    "KBSEARCH_USE_THREADS": "two",
    "KBSEARCH_AUDIT_THREADS": "0",
    "KBSEARCH_TIMINGS": "maybe",
    "KBSEARCH_TRACEBACK": "maybe",
}


def test_every_variable_the_code_names_is_a_settings_field() -> None:
    named = {m for path in PACKAGE.rglob("*.py") for m in re.findall(r"KBSEARCH_[A-Z_]+", path.read_text("utf-8"))}
    fields = {env_name(field) for field in Settings.model_fields}
    assert named - {"KBSEARCH_"} <= fields
    assert len(fields) == 17


def test_only_the_settings_module_reads_the_environment_for_them() -> None:
    readers = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if re.search(r"environ(\.get)?\(?\[?\s*['\"]KBSEARCH_|getenv\(\s*['\"]KBSEARCH_", path.read_text("utf-8"))
    ]
    assert readers == []


def environment(monkeypatch: pytest.MonkeyPatch, **given: str) -> None:
    """Exactly ``given`` among the KBSEARCH_* variables."""
    for name in [name for name in os.environ if name.startswith("KBSEARCH_")]:
        monkeypatch.delenv(name)
    for name, value in given.items():
        monkeypatch.setenv(name, value)


def test_values_are_parsed_and_empty_means_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    environment(monkeypatch, KBSEARCH_LOCK_TIMEOUT="2.5", KBSEARCH_USE_THREADS="3", KBSEARCH_SERVER="", X="y")
    given = settings()
    assert (given.lock_timeout, given.use_threads, given.server, given.audit_threads) == (2.5, 3, None, None)
    environment(monkeypatch, KBSEARCH_TIMINGS="1", KBSEARCH_CACHE="~/m")
    assert settings().timings is True and settings().cache == Path("~/m").expanduser()


def test_a_variable_without_the_prefix_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    environment(monkeypatch, INDEX="/elsewhere", LOCK_TIMEOUT="soon")
    assert settings().index is None and settings().lock_timeout == 600.0


@pytest.mark.parametrize(("name", "value"), sorted(BAD.items()))
def test_a_bad_value_is_one_error_naming_the_variable_and_what_it_takes(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    environment(monkeypatch, **{name: value})
    with pytest.raises(KbError) as caught:
        settings()
    assert caught.value.message.startswith(f"{name}={value!r} is not valid: it takes ")
    assert name in (caught.value.hint or "")


@pytest.mark.parametrize("name", sorted(BAD))
def test_any_command_refuses_a_bad_variable_with_exit_2(
    name: str, fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(name, BAD[name])
    code = main(["stats", "--index", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"{name}=" in err


@pytest.mark.parametrize("name", ["KBSEARCH_INDEX", "KBSEARCH_MODELS", "KBSEARCH_CACHE", "KBSEARCH_TOKEN_CACHE"])
def test_an_empty_folder_or_file_variable_is_refused_not_replaced_by_the_default(
    name: str, fake_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``KBSEARCH_INDEX=$UNSET kbsearch …`` would otherwise read, or create, ./index (probe 10)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(name, "")
    code = main(["check", "-", "--accept"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"{name}='' is set but empty" in err and f"unset {name}" in err
    assert not (tmp_path / "index").exists()

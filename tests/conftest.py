from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.briefings import SEEDS, SEEDS_ABSENT

from fake_encoder import FakeEncoder

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
pytest_plugins = ["support.serve_fixtures"]

ENV_PREFIX = "KBSEARCH_"
CACHE_ENV = "KBSEARCH_CACHE"
NO_FILL = {"KBSEARCH_TOKEN_FILL": "0"}
"""An ingest with a judge would start a background token fill: a process
outliving its test and loading e5 beside the next ones. tests/test_token_fill.py
turns it on where it tests it."""


def _clear_kbsearch_variables(patch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith(ENV_PREFIX)]:
        patch.delenv(name)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One model cache per session: the real models are built into it once,
    never into the developer's own cache, and it goes when the session ends."""
    folder = tmp_path_factory.mktemp("model-cache")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)  # a built e5 is about 600 MB


@pytest.fixture(scope="session", autouse=True)
def _session_environment(model_cache: Path) -> Iterator[None]:
    # Session-scoped too, so module-scoped fixtures that load a model already
    # see the clean environment (they are set up before function fixtures).
    with pytest.MonkeyPatch.context() as patch:
        _clear_kbsearch_variables(patch)
        patch.setenv(CACHE_ENV, str(model_cache))
        for name, value in NO_FILL.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(autouse=True)
def _test_environment(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with no KBSEARCH_* variable but the model cache,
    whatever the shell or an earlier test set."""
    _clear_kbsearch_variables(monkeypatch)
    monkeypatch.setenv(CACHE_ENV, str(model_cache))
    for name, value in NO_FILL.items():
        monkeypatch.setenv(name, value)


FAKE_DEDUPE = ROOT / "tests" / "data" / "fake-dedupe.json"
FAKE_CONFIG_NOTE = (
    "decided with the dedupe config fake-dedupe.json, which models.txt names for model 'fake' (dedupe=fake-dedupe.json)"
)
"""The note of a check by the fake model, whose models.txt line names FAKE_DEDUPE (dedupe=FILE)."""


@pytest.fixture
def seeds_dir() -> Path:
    """The real briefings beside the project; tests using them skip without them."""
    if not SEEDS.is_dir():
        pytest.skip(SEEDS_ABSENT)
    return SEEDS


@pytest.fixture
def fake_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models.txt with two fake models, the first the default, for CLI runs."""
    path = tmp_path / "models.txt"
    path.write_text(
        f"fake   python:fake_encoder:make dim=64 dedupe={FAKE_DEDUPE}\n"
        f"fake2  python:fake_encoder:make dim=32 dedupe={FAKE_DEDUPE}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(path))
    return path


# The example corpus for command-line tests: ``index`` is examples/ ingested once per
# module with the fake encoder (``models``), ``cli`` runs a command in-process. A module
# needing another index defines its own ``index``, which takes precedence.
@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("models") / "models.txt"
    path.write_text(f"fake   python:fake_encoder:make dim=64 dedupe={FAKE_DEDUPE}\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def index(models: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    from kbsearch.cli import main

    folder = str(tmp_path_factory.mktemp("kb") / "idx")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KBSEARCH_MODELS", str(models))
        assert main(["ingest", str(EXAMPLES), "--index", folder]) == 0
    return folder


@pytest.fixture
def cli(models: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """``cli(*argv)`` → (exit code, stdout, stderr) of one command with ``models``."""
    from kbsearch.cli import main

    monkeypatch.setenv("KBSEARCH_MODELS", str(models))
    for name in ("KBSEARCH_MODEL", "KBSEARCH_TRACEBACK", "KBSEARCH_SERVER"):
        monkeypatch.delenv(name, raising=False)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def encoder() -> FakeEncoder:
    return FakeEncoder()


def fake_config():  # type: ignore[no-untyped-def]
    """The dedupe config the fake encoder's tests run with (see its ``fitted_on``)."""
    from kbsearch.dedupe.config_files import load_config

    return load_config(FAKE_DEDUPE, "fake")

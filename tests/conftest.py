from __future__ import annotations

from pathlib import Path

import pytest

from fake_encoder import FakeEncoder

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
EXAMPLES = ROOT / "examples"


@pytest.fixture
def seeds_dir() -> Path:
    assert SEEDS.is_dir(), f"the seed briefings are missing: {SEEDS}"
    return SEEDS


@pytest.fixture
def fake_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models.txt with two fake models, the first the default, for CLI runs."""
    path = tmp_path / "models.txt"
    path.write_text(
        "fake   python:fake_encoder:make dim=64\nfake2  python:fake_encoder:make dim=32\n", encoding="utf-8"
    )
    monkeypatch.setenv("KBSEARCH_MODELS", str(path))
    monkeypatch.delenv("KBSEARCH_MODEL", raising=False)
    monkeypatch.delenv("KBSEARCH_INDEX", raising=False)
    return path


@pytest.fixture
def encoder() -> FakeEncoder:
    return FakeEncoder()

"""Per-model dedupe settings: the thresholds are on USE's cosine scale, and a
models.txt line maps its model's cosine onto that scale."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbsearch.dedupe.config import DedupeConfig, load_config
from kbsearch.errors import KbError
from kbsearch.models import load_models


def write_models(tmp_path: Path, line: str) -> Path:
    path = tmp_path / "models.txt"
    path.write_text(line + "\n", encoding="utf-8")
    return path


def test_a_models_txt_line_carries_its_cosine_map_and_thresholds(tmp_path: Path) -> None:
    path = write_models(tmp_path, "m  python:x:y dim=8 cosine_shift=-3.9 cosine_scale=4.9 same_item=1.1")
    spec = load_models(path)[0]
    assert spec.dedupe == {"cosine_shift": -3.9, "cosine_scale": 4.9, "same_item": 1.1}
    config = load_config(None, spec.dedupe)
    assert config.same_item == 1.1
    assert config.calibrated(0.95, cross_lingual=False) == pytest.approx(-3.9 + 4.9 * 0.95)
    assert config.calibrated(0.95, cross_lingual=True) == pytest.approx(0.95)  # no cross map given


def test_a_bad_dedupe_value_names_the_line(tmp_path: Path) -> None:
    path = write_models(tmp_path, "m  python:x:y cosine_scale=steep")
    with pytest.raises(KbError) as caught:
        load_models(path)
    assert caught.value.line == 1 and "bad option value" in caught.value.message


def test_a_config_file_overrides_only_the_fields_it_sets(tmp_path: Path) -> None:
    file = tmp_path / "cfg.json"
    file.write_text('{"same_item": 0.93}', encoding="utf-8")
    config = load_config(str(file), {"cosine_shift": -4.0, "cosine_scale": 5.0, "same_item": 1.2})
    assert (config.same_item, config.cosine_shift, config.cosine_scale) == (0.93, -4.0, 5.0)


def test_calibrated_scores_stay_in_range_and_invert() -> None:
    config = DedupeConfig(cosine_shift=-3.943, cosine_scale=4.957)
    assert config.calibrated(1.0, False) == 1.0  # clipped: 1.014 would read as "more than identical"
    assert config.calibrated(0.2, False) == -1.0
    assert config.raw_cosine(config.calibrated(0.9, False), False) == pytest.approx(0.9)
    assert DedupeConfig().calibrated(0.42, True) == 0.42  # USE's own scale: the identity


def test_compare_judges_the_calibrated_cosine_not_the_raw_one() -> None:
    import numpy as np

    from kbsearch.dedupe.rules import Embedded, compare
    from kbsearch.records import Kind, Record

    def embedded(rid: str, text: str, vector: list[float]) -> Embedded:
        record = Record(id=rid, kind=Kind.increment, title="", text=text)
        unit = np.array(vector, dtype=np.float32) / np.linalg.norm(vector)
        return Embedded(record, np.stack([unit] * len(record.passages())))

    a = embedded("a", "batch scheduling for long prompts", [1.0, 0.25])
    b = embedded("b", "memory pools on the accelerator", [1.0, 0.0])  # raw cosine 0.970
    never_rare = lambda name: False  # noqa: E731
    assert not compare(a, b, DedupeConfig(), never_rare).same_item
    compressed = DedupeConfig(cosine_shift=-3.943, cosine_scale=4.957)  # 0.970 → 0.865
    match = compare(a, b, compressed, never_rare)
    assert match.score == pytest.approx(-3.943 + 4.957 * 0.9701, abs=1e-3)
    assert not match.same_item  # 0.865 + no word overlap < 1.0
    generous = DedupeConfig(cosine_shift=0.2)
    assert compare(a, b, generous, never_rare).same_item  # 1.0 (clipped) ≥ 1.0

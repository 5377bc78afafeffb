"""One item checked against a few stored records with the fake encoder, under a claim form
set by hand to trust one feature: the doc-section and finer-passage tests each wrote these."""

from __future__ import annotations

from pathlib import Path

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.check import Checker
from kbsearch.dedupe.config import SAID_FEATURES, DedupeConfig
from kbsearch.dedupe.results import ItemResult
from kbsearch.dedupe.scorer import Scorer
from kbsearch.ingest import ingest_records
from kbsearch.records import Record
from kbsearch.store import ChangeSet, Store


def said_by(feature: str) -> DedupeConfig:
    """The fake config with a claim_said form that says a passage states a claim when
    ``feature`` reaches 0.6 and reads nothing else."""
    names = list(SAID_FEATURES)
    form = Scorer(
        features=names, weights=[20.0 if n == feature else 0.0 for n in names], means=[0.0] * len(names),
        scales=[1.0] * len(names), bias=-12.0, threshold=0.5, fitted_on="hand-set for a test", score="none",
    )  # fmt: skip
    return fake_config().model_copy(update={"claim_said": form})


def check_one(tmp_path: Path, stored: list[Record], item: Record, config: DedupeConfig) -> ItemResult:
    """``item`` checked against ``stored``, ingested into a new index under ``tmp_path``."""
    encoder = FakeEncoder()
    store = Store.open(tmp_path / "idx", create=True)
    ingest_records(store, ChangeSet(upserts=stored), model="fake", load_encoder=lambda: encoder)
    [result] = Checker(store, encoder, config).check([item], file=None, input_name="probe").items
    return result

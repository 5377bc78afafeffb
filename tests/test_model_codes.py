"""Titles naming different model codes (RX-4 against RX-5, Tern T2 against a Pelican chip) are two
items (``dedupe.model_codes``), however alike their spec lines read; a retelling, a refresh with no
new code, and a record naming the other's code stay for the learned decision.

Probe 33: one vendor's accelerator launch was taken for another vendor's launch with near-identical
spec lines, and a vendor's next generation for its current chip. The fixtures are written here."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import judged as compared
from support.embedded import titled

from fake_encoder import FakeEncoder
from kbsearch.dedupe.model_codes import model_codes, models_differ
from kbsearch.dedupe.results import Rule
from kbsearch.records import Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
SPECS = "Memory: 128 GB HBM3E at 3.0 TB/s. Board power 650 W, air and liquid cooled. Volume shipping in Q2 2027."


def record(rid: str, title: str, text: str = SPECS) -> Record:
    return titled(rid, title, text, "2026-10-03")


def judged(a: Record, b: Record) -> tuple[Rule, bool, str]:
    # As the index counts them: a name under three characters (T2, RX) cannot be looked up, so it is common.
    return compared(a, b, lambda name: 1 if len(name) >= 3 else 1000)


PELICAN = record("lena-1", "Ardent RX-4 Pelican 加速器发布", "Ardent 发布 RX-4 Pelican。" + SPECS)


def test_another_vendors_chip_with_the_same_spec_lines_is_another_item() -> None:
    tern = record("mo-1", "Bexley Tern T2 accelerator unveiled")
    rule, same, reason = judged(tern, PELICAN)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "t2 / rx4" in reason


def test_a_vendors_next_generation_is_another_product() -> None:
    rx5 = record("mo-2", "Ardent teases RX-5 for 2029", "RX-5 is Ardent's next accelerator after Pelican. " + SPECS)
    rule, same, reason = judged(rx5, PELICAN)
    assert (rule, same) == (Rule.different_names, False), reason
    assert "rx5 / rx4" in reason


def test_a_coded_launch_against_an_uncoded_title_of_another_vendor_is_another_item() -> None:
    tern = record("mo-3", "Bexley Tern T2 accelerator unveiled")
    restated = record("lena-2", "Ardent Pelican 规格汇总", "显存 128 GB HBM3E，带宽每秒 3.0 TB，整卡 0.65 kW。")
    rule, same, reason = judged(tern, restated)
    assert (rule, same) == (Rule.different_names, False), reason


def test_a_retelling_a_refresh_and_a_record_naming_the_code_have_no_say_here() -> None:
    def lowered(title: str, text: str = SPECS) -> tuple[str, str]:
        return title, f"{title} {text}".lower()

    ours = lowered("Ardent RX-4 Pelican 加速器发布")
    assert models_differ(lowered("Ardent Pelican specs restated in GB/s"), ours) is None  # no code of its own
    assert models_differ(lowered("Ardent Pelican-X refresh lifts memory to 192 GB"), ours) is None  # a refresh
    assert models_differ(lowered("Ardent RX-5 previewed", "Up from the RX-4's 128 GB."), ours) is None
    assert models_differ(lowered("Ardent RX4 Pelican launch recap"), ours) is None  # one code, written apart


def test_dates_standards_gpus_and_versions_are_no_model_codes() -> None:
    assert model_codes("Ardent Pelican slips to Q3") == frozenset()
    assert model_codes("Bexley Q3 2026 revenue up 40%") == frozenset()
    assert model_codes("FP8 training on HBM4 with TP8 over CXL 3") == frozenset()
    assert model_codes("Nimbus cuts H200 price; DeepSeek-V3 served on nc-t9") == frozenset()
    assert model_codes("Bexley Tern T2 and Ardent RX-10 on the roadmap") == frozenset({"T2", "RX10"})

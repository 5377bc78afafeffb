"""A trial's phase, a stage or an ordinal is no name to the name readers (``text.ordinals``).

Probe 50: a Chinese retelling titled with "IIa 期" was set apart from its English first
report titled "Phase 2a": the names rule read IIa and the title's capitalised Phase as
two names each record never mentions."""

from __future__ import annotations

import pytest
from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.features import Neighbourhood, latin_names
from kbsearch.dedupe.named_systems import title_words
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import compare, different_names
from kbsearch.dedupe.sourced_names import coined_head
from kbsearch.dedupe.subjects import title_subject
from kbsearch.dedupe.title_leads import title_lead
from kbsearch.text.plain_names import title_plain_names
from kbsearch.text.textsim import name_tokens

CONFIG = fake_config()


def young_index(name: str) -> int:
    """How many records hold a name in a young index: every name rare but the ones too
    short to look up, which count as common (``names.NameHolders.count``)."""
    return 50 if len(name) < 3 else 1


EN = embedded(
    "ava/1",
    "Corvane VX-310 Phase 2b readout — lesion volume down 41% in relapsing MS",
    "Readout: the Phase 2b study met its primary endpoint in 212 patients; lesion volume fell 41% "
    "against placebo over 24 weeks. Background: Phase 1 in 36 healthy volunteers raised no safety signal.",
)
ZH = embedded(
    "bo/1",
    "VX-310 IIb 期顶线之后：启动长期随访",
    "IIb 期顶线：212 名复发型 MS 患者给药 24 周，病灶体积比安慰剂少 41%；公司已启动 96 周长期随访。",
)


def test_a_retelling_writing_the_phase_in_the_other_language_is_not_set_apart_by_names() -> None:
    for item, known in ((ZH, EN), (EN, ZH)):
        assert different_names(item, known, CONFIG, young_index) is None
        assert compare(item, known, CONFIG, Neighbourhood(), young_index).rule is not Rule.different_names


def test_two_drugs_in_the_same_phase_are_still_two_items() -> None:
    other = embedded(
        "bo/2", "QTR-88 IIb 期顶线：哮喘急性发作减少 33%", "QTR-88 的 IIb 期纳入 480 名患者，急性发作减少 33%。"
    )
    found = different_names(other, ZH, CONFIG, young_index)
    assert found is not None and not found[1], found
    assert "iib" not in found[2]


@pytest.mark.parametrize(
    ("text", "ordinal"),
    [
        ("ISO 的 IIa 期顶线", "iia"),
        ("Phase IIIB results", "iiib"),
        ("进入 IIB 期", "iib"),
        ("Ph2 data", "ph2"),
        ("the FIH study", "fih"),
        ("Stage IIIB lung cancer", "iiib"),
        ("XXI Simpósio Brasileiro", "xxi"),
        ("a class III certificate", "iii"),
        ("Type II and Type I", "ii"),
    ],
)
def test_a_phase_or_ordinal_is_no_coined_name(text: str, ordinal: str) -> None:
    assert ordinal not in latin_names(text)


def test_acronyms_shaped_like_numerals_stay_names() -> None:
    """IV (instrumental variables), VI (value iteration), VC (voice cloning), IB (information bottleneck)."""
    text = "IV analysis, an interval VI method, zero-shot VC, the IB principle, MIMIC and KV-Router"
    assert {"iv", "vi", "vc", "ib", "mimic", "kv-router"} <= latin_names(text)


def test_titles_lead_with_no_phase() -> None:
    assert title_words("VX-310 Phase 2b readout from Corvane in relapsing MS", frozenset()) == {"corvane"}
    assert title_words("Lumio clears a Class II filing for Fernwick", frozenset()) == {"fernwick"}
    assert title_plain_names("VX-310 进入 Phase 3 临床") == frozenset()
    for title in ("IIb 期顶线：病灶体积减少 41%", "Phase III succeeds for VX-310", "Ph2 readout: VX-310 misses"):
        assert title_subject(title) is None
        assert title_lead(title) is None
        assert coined_head(title) is None
        assert not name_tokens(title) - {"vx"}

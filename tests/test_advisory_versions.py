"""Issue 25, probe 46: a version an advisory gives as affected or fixed is a figure of that fact.
A claim widening the affected range, or naming another fixed release, than its records give is
new; the same range in another language or spelling is known; a version mentioned beside other
news ("Kiln 2.4.1 adds streaming") is a label, as before."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.checking import check_one
from test_dedupe_rules import embedded
from test_doc_section_verdicts import always_said

from kbsearch.dedupe.claim_versions import versioned
from kbsearch.dedupe.results import ClaimStatus
from kbsearch.records import Kind, Record
from kbsearch.text.advisory_versions import advisory_versions, new_versions

RECORD = "Kiln Serve 反序列化漏洞：受影响版本 1.4.0 至 1.6.2，1.6.3 已修复"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Affected versions: 1.4.0 through 1.6.2; fixed in v1.6.3", {"1.4", "1.6.2", "1.6.3"}),
        ("受影响版本 1.4.0 至 1.6.2", {"1.4", "1.6.2"}),
        ("Patched in v2.1 for all users", {"2.1"}),
        # A version beside other news is a label; a two-part decimal is a figure; a year first is a date
        ("Kiln Serve 2.4.1 adds streaming output", set()),
        ("The flaw scores CVSS 9.8 and is fixed upstream", set()),
        ("The fix shipped on 2026.11.03", set()),
        # Only the clause that tells what is affected: the next sentence's version is a label
        ("The bug affects the loader. Kiln 2.4.1 adds streaming output", set()),
    ],
)
def test_an_advisory_gives_its_versions_as_facts(text: str, found: set[str]) -> None:
    assert set(advisory_versions(text)) == found


@pytest.mark.parametrize(
    ("claim", "new"),
    [
        ("Affected range widened to 1.3.0 through 1.6.2 (was 1.4.0 through 1.6.2)", ["1.3.0"]),
        ("The fix moved to 1.6.4 after a bypass", ["1.6.4"]),
        ("Affected: 1.4 through 1.6.2, fixed in v1.6.3", []),  # the record's range, spelled otherwise
        ("Kiln Serve 1.7.0 adds streaming output", []),  # a label
    ],
)
def test_an_advisory_version_the_records_never_write_is_new(claim: str, new: list[str]) -> None:
    assert new_versions(claim, [RECORD]) == new


def _known(claim: str) -> ClaimStatus:
    return ClaimStatus(text=claim, known=True, score=0.82, threshold=0.08, extra_numbers=["2"])


def test_a_known_claim_widening_the_affected_range_is_new() -> None:
    record = embedded("kai/d1#1", "Kiln Serve 反序列化漏洞", RECORD, kind=Kind.increment)
    claim = "Affected range widened to 1.3.0 through 1.6.2 (was 1.4.0 through 1.6.2)"
    status = versioned(_known(claim), claim, [record])
    assert not status.known and status.new_numbers == ["1.3.0"] and status.extra_numbers == []
    kept = "Versions 1.4.0 through 1.6.2 are affected"
    assert versioned(_known(kept), kept, [record]).known
    assert versioned(_known(claim), claim, []).known  # no record to read against


ADVISORY = "Kiln Serve deserialization flaw CVE-2026-71234 lets a crafted model file run code on load."


def test_check_reads_a_widened_affected_range_as_new(tmp_path: Path) -> None:
    """Through ``Checker``: the claim is said by the stored advisory's key point (the form calls
    every passage a saying), yet its range starts at a version the advisory never writes."""
    stored = Record(
        id="kai/2026-12-01#1", kind=Kind.increment, instance="kai", date=dt.date(2026, 12, 1),
        title="Kiln Serve deserialization flaw", text=ADVISORY, claims=["Affected versions 1.4.0 through 1.6.2"],
    )  # fmt: skip
    item = stored.model_copy(
        update={
            "id": "lee/2026-12-03#1", "instance": "lee", "date": dt.date(2026, 12, 3),
            "claims": ["Affected range widened to 1.3.0 through 1.6.2 (was 1.4.0 through 1.6.2)"],
        }
    )  # fmt: skip
    result = check_one(tmp_path, [stored], item, always_said())
    assert any(m.same_item and m.id == stored.id for m in result.matches)
    claim = result.claims[0]
    assert not claim.known and "1.3.0" in claim.new_numbers

"""Advisory ids (CVE, GHSA, RUSTSEC, PYSEC) set two records apart as arXiv ids do: a second
vulnerability of one tool is news, though its advisory reads like the first (probe 40)."""

from __future__ import annotations

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare, ruled_out
from kbsearch.records import Kind, Record
from kbsearch.text.advisory_ids import IdKind, advisories_apart, advisory_ids

ENCODER = FakeEncoder()
CONFIG = fake_config()
BODY = "Heap overflow in Lanternfish's plugin loader lets a crafted plugin run code; CVSS 8.1, fixed in 3.2.0."


def embedded(record_id: str, title: str, text: str = BODY, sources: list[str] | None = None) -> Embedded:
    record = Record(id=record_id, kind=Kind.increment, title=title, text=text, sources=sources or [])
    return Embedded(record, ENCODER.encode(record.passages()))


def judge(item: Embedded, known: Embedded) -> tuple[Rule, bool]:
    match = compare(item, known, CONFIG, Neighbourhood(0.0), lambda _: 50)
    return match.rule, match.same_item


def test_ids_are_read_in_each_registrys_spelling_and_nowhere_else() -> None:
    text = "修复CVE-2025-31337（见 ghsa-4C5F-9m2r-xx7q）; RUSTSEC-2025-0042, PYSEC-2024-17; CVE-20-1, RFC 9000, CWE-22"
    assert advisory_ids(text) == {
        (IdKind.cve, "CVE-2025-31337"),
        (IdKind.ghsa, "GHSA-4c5f-9m2r-xx7q"),
        (IdKind.rustsec, "RUSTSEC-2025-0042"),
        (IdKind.pysec, "PYSEC-2024-17"),
    }
    assert advisory_ids("XCVE-2025-31337 and CVE-2025-313370000x") == frozenset()


def test_ids_of_one_kind_set_apart_ids_of_two_kinds_or_one_shared_do_not() -> None:
    first = advisory_ids("CVE-2025-31337, GHSA-4c5f-9m2r-xx7q")
    assert advisories_apart(first, advisory_ids("CVE-2025-40001")) == (
        "about different advisory ids (CVE-2025-31337 / CVE-2025-40001)"
    )
    assert advisories_apart(first, advisory_ids("GHSA-8h8h-2r2r-3q3q")) is not None
    # One vulnerability, its CVE on one side and its GHSA id on the other: nothing to tell.
    assert advisories_apart(advisory_ids("CVE-2025-31337"), advisory_ids("GHSA-4c5f-9m2r-xx7q")) is None
    # An advisory listing two CVEs shares one with each.
    both = advisory_ids("fixes CVE-2025-31337 and CVE-2025-40001")
    assert advisories_apart(both, advisory_ids("CVE-2025-40001")) is None
    assert advisories_apart(first, frozenset()) is None


def test_a_second_vulnerability_of_one_tool_is_another_item_its_fix_is_not() -> None:
    first = embedded("a", "CVE-2025-31337: Lanternfish plugin loader overflow", sources=["GHSA-4c5f-9m2r-xx7q"])
    second = embedded(
        "b", "Lanternfish: another plugin loader flaw", sources=["NVD CVE-2025-40001", "GHSA-8h8h-2r2r-3q3q"]
    )
    fix = embedded("c", "Lanternfish 3.2.0 patches CVE-2025-31337", "The plugin loader overflow is fixed in 3.2.0.")
    assert judge(second, first) == (Rule.different_ids, False)
    assert ruled_out(second, first, CONFIG)  # its claims are never known from the other advisory
    assert judge(fix, first)[0] is not Rule.different_ids
    roundup = embedded("d", "Two Lanternfish advisories", "CVE-2025-31337 and CVE-2025-40001 in the loader.")
    assert judge(roundup, first)[0] is not Rule.different_ids
    assert judge(roundup, second)[0] is not Rule.different_ids

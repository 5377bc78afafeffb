"""Two cuts of a warm check's names rule that must decide as before (issue 26): a name's slips
are looked up rather than compared with every name of the other record (``misspelled.slips_of``),
and a record's names are read once per config and name count (``RecordText.named``)."""

from __future__ import annotations

import random

import pytest
from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe import disowned
from kbsearch.dedupe.disowned import disowns
from kbsearch.text import misspelled
from kbsearch.text.misspelled import one_name, spelled_as

CONFIG = fake_config()
TEXT = "新版本把预填充与解码分到不同节点，首字延迟下降 35%，吞吐提升两成。"


def spelled_as_every_pair(names: list[str], other: list[str]) -> frozenset[str]:
    """What ``spelled_as`` gave before: each name against every name of ``other``, in its order."""
    theirs = frozenset(other)
    return frozenset(
        n if n in theirs else next((o for o in theirs if -1 <= len(o) - len(n) <= 1 and one_name(n, o)), n)
        for n in names
    )


def _slip(rng: random.Random, name: str) -> str:
    kind = rng.randrange(4)
    if kind == 0 and len(name) > 1:
        i = rng.randrange(len(name) - 1)
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    if kind == 1:
        return name + "s"
    if kind == 2 and name.endswith("s"):
        return name[:-1]
    return name[: rng.randrange(len(name) + 1)] + rng.choice("abs1") + name[rng.randrange(len(name) + 1) :]


def test_a_slip_looked_up_is_the_slip_every_pair_finds() -> None:
    """Names of 4 to 9 letters from a small alphabet (many swaps, plurals, near misses,
    doubled letters and names of two slips at once), each set read against the other."""
    rng = random.Random(7)
    for _ in range(3000):
        base = ["".join(rng.choice("aabss1") for _ in range(rng.randint(4, 9))) for _ in range(4)]
        ours = base + [_slip(rng, rng.choice(base)) for _ in range(3)]
        theirs = [_slip(rng, rng.choice(base)) for _ in range(5)] + base[:1]
        assert spelled_as(ours, theirs) == spelled_as_every_pair(ours, theirs)
        assert spelled_as(theirs, ours) == spelled_as_every_pair(theirs, ours)


def test_a_slip_is_looked_up_not_compared_with_every_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm check asked this of 35 candidates' names, each compared with every name of the
    other record of about its length: a twentieth of the check."""
    calls: list[int] = []
    monkeypatch.setattr(misspelled, "one_name", lambda a, b: calls.append(1) or a == b)
    other = [f"system{c}{d}" for c in "abcdefgh" for d in "abcdefgh"] + ["hicache"]
    assert spelled_as(["hicahce", "flashmla"], other) == {"hicache", "flashmla"}
    assert calls == []


def test_a_name_s_slips_are_made_once_for_every_pair_it_is_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """An item's names are respelled against each of its 35 candidates, a kept candidate's at each check."""
    made: list[str] = []
    real = misspelled.slips_of
    monkeypatch.setattr(misspelled, "slips_of", lambda name: made.append(name) or real(name))
    misspelled._slips.cache_clear()
    spelled = {"hicache": {"hicache", "kvflow"}, "flashmla": {"hicahce", "kvflow"}, "kvflows": {"hicahce", "kvflows"}}
    for other, expected in spelled.items():
        assert spelled_as(["hicahce", "kvflow"], [other]) == expected
    assert sorted(made) == ["hicahce", "kvflow"]


def test_a_records_names_are_read_once_per_count() -> None:
    """The item is read against every candidate, each candidate both ways round."""
    counted: list[str] = []

    def count(name: str) -> int:
        counted.append(name)
        return 1 if name == "kvflow" else 50

    item = embedded("a", "KvFlow 把 KV Cache 搬到 CPU", TEXT + "KvFlow 开源。")
    first = item.named(CONFIG, count)
    read = len(counted)
    assert item.named(CONFIG, count) is first
    assert read and len(counted) == read


def test_names_read_with_another_count_are_read_again() -> None:
    """A count is one state of the index (``names.NameHolders``): after a write a rare name may
    be common, and the names read with the count before must not be read."""
    item = embedded("a", "KvFlow 把 KV Cache 搬到 CPU", TEXT + "KvFlow 开源。")
    assert item.named(CONFIG, lambda name: 1 if name == "kvflow" else 50).title == {"kvflow"}
    assert item.named(CONFIG, lambda name: 50).title == frozenset()
    wider = CONFIG.model_copy(update={"rare_name_records": 100})
    assert item.named(wider, lambda name: 50).title == {"kvflow", "kv"}


def test_a_record_disowning_nothing_reads_no_title_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule asks it of every titled pair both ways round; most records disown nothing."""
    calls: list[str] = []
    monkeypatch.setattr(disowned, "words_mentioned", lambda text: calls.append(text) or frozenset())
    assert disowns("Kestrel adds streaming to its MCP client.", "Kestrel 0.4", "Kestrel server 2.0") is None
    assert calls == []


def test_a_texts_denials_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The item's text is read against each candidate: its denials once (``disowned_names``)."""
    read: list[str] = []
    pattern = disowned._DISOWNS

    class Counted:
        def finditer(self, text: str):  # type: ignore[no-untyped-def]
            read.append(text)
            return pattern.finditer(text)

    monkeypatch.setattr(disowned, "_DISOWNS", Counted())
    disowned.disowned_names.cache_clear()
    text = "Kestrel, a client library (not related to Pellucid's Kestrel server)."
    first = disowned.disowned_names(text)
    assert disowned.disowned_names(text) == first == {"pellucid", "kestrel"}
    assert len(read) == 1
    reason = disowns(text, "Kestrel client 0.4", "Pellucid Kestrel server 2.0")
    assert reason is not None and "(pellucid)" in reason

"""The names rule reads a pair both ways round and respells it once
(``named_systems.respelled``): what it decides is ``names_differ`` either way."""

from __future__ import annotations

import pytest
from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe import named_systems
from kbsearch.dedupe.named_systems import Named, names_differ
from kbsearch.dedupe.rules import different_names

respell = named_systems._respelled

CONFIG = fake_config()
TEXT = "新版本把预填充与解码分到不同节点，首字延迟下降 35%，吞吐提升两成。"


def rare(name: str) -> int:
    return 1 if name in {"nixl", "kvflow", "kvflwo", "hicache"} else 50


# Pairs the rule reads both ways (the first reading finds nothing), one with a slip
# (KvFlwo for KvFlow) and one naming different systems.
PAIRS = [
    (("a", "vLLM v0.30 默认开启 PD 分离，经 NIXL", TEXT), ("b", "vLLM v0.30 默认开启 PD 分离", TEXT)),
    (("c", "KvFlwo 把 KV Cache 搬到 CPU", TEXT + "KvFlwo 开源。"), ("d", "KvFlow 发布", TEXT + "KvFlow 开源。")),
    (("f", "vLLM v0.30 默认开启 PD 分离", TEXT), ("e", "HiCache 进入 SGLang 主线", TEXT)),
]


@pytest.mark.parametrize(("ours", "theirs"), PAIRS)
def test_the_names_rule_respells_a_pair_once_and_decides_as_both_readings(
    ours: tuple[str, str, str], theirs: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm check spent a tenth of its time in the names rule, respelling every pair
    twice when it read the pair both ways; the second respelling was the first's."""
    item, known = embedded(*ours), embedded(*theirs)
    a, b = item.named(CONFIG, rare), known.named(CONFIG, rare)
    first = names_differ(a, b)
    expected = first if first is not None else names_differ(b, a)
    calls: list[int] = []

    def counted(named: Named, other: frozenset[str]) -> Named:
        calls.append(1)
        return respell(named, other)

    monkeypatch.setattr(named_systems, "_respelled", counted)
    found = different_names(item, known, CONFIG, rare)
    assert first is None  # so the rule reads the pair the other way round too
    assert len(calls) == 2  # each side respelled once for both readings
    if expected is not None:
        assert found is not None and found[2] == expected

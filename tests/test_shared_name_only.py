"""Two titles sharing only a system's name, each naming what the other record never
mentions, are two items (``named_systems.shared_name_only``)."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import embedded

from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import compare

CONFIG = fake_config()


def common(name: str) -> int:
    """The system is rare; vLLM, SGLang, Valkey are names many records carry."""
    return 1 if name in {"lmcache", "quillserve"} else 50


STORE = embedded(
    "jay",
    "LMCache ships a Valkey Cluster store for KV chunks",
    "KV chunks are spread over a Valkey Cluster by consistent hashing; TTFT falls 1.3x against local disk.",
)


def test_two_items_on_one_system_sharing_only_its_name_are_two_items() -> None:
    """Probe 26: "LMCache 与 vLLM 的 PD 分离联调踩坑" was UPDATE of "LMCache adds a Redis
    Cluster backend" (same item 0.95): the titles share only LMCache, the first names vLLM
    and PD, never in the other record, and the other names Redis, never in the first."""
    tuning = embedded(
        "mira",
        "LMCache 接入 SGLang 的 PD 分离调参记录",
        "decode 节点读取 KV 时 chunk 大小不一致，命中率为零；统一为 256 token 后 TTFT 降 30%。",
    )
    for one, other in ((tuning, STORE), (STORE, tuning)):
        match = compare(one, other, CONFIG, Neighbourhood(), common)
        assert not match.same_item and match.rule is Rule.different_names, match.reasons
        assert "share only lmcache;" in " ".join(match.reasons)
    # A common shared name is a platform (``platforms``): not this rule's to weigh.
    assert "share only" not in " ".join(compare(tuning, STORE, CONFIG, Neighbourhood(), lambda n: 50).reasons)


def test_a_retelling_in_the_other_language_stays_one_item() -> None:
    """A Chinese retelling keeps the names it retells (Valkey) and drops the English words
    (ships, store): it names nothing the English record never mentions, so the rule is silent."""
    retold = embedded(
        "mira",
        "LMCache 新增 Valkey 集群存储后端",
        "KV chunk 按一致性哈希分布到 Valkey Cluster，比本地磁盘 TTFT 快 1.3 倍。",
    )
    for one, other in ((retold, STORE), (STORE, retold)):
        assert compare(one, other, CONFIG, Neighbourhood(), common).rule is not Rule.different_names


def test_a_repeat_adding_a_detail_stays_one_item() -> None:
    """A later record naming SGLang beside the store still mentions Valkey: one item."""
    detail = embedded(
        "tom",
        "LMCache Valkey store now works with SGLang",
        "The Valkey Cluster store of LMCache now serves SGLang as well as its first engine.",
    )
    for one, other in ((detail, STORE), (STORE, detail)):
        assert compare(one, other, CONFIG, Neighbourhood(), common).rule is not Rule.different_names


def test_a_version_and_a_two_letter_term_are_not_what_a_title_names() -> None:
    """Probe 26: "SGLang v0.6 ships a unified prefill-decode router" retold as "SGLang 0.6 加入
    PD 分离的统一路由器" was set apart by v0 (of "v0.6") against PD (of "prefill-decode")."""
    english = embedded("jay", "QuillServe v0.6 ships a unified prefill-decode router", "One router for both stages.")
    chinese = embedded("tom", "QuillServe 0.6 加入 PD 分离的统一路由器", "一个路由器同时调度 prefill 与 decode。")
    for one, other in ((english, chinese), (chinese, english)):
        assert compare(one, other, CONFIG, Neighbourhood(), common).rule is not Rule.different_names

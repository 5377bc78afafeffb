"""The judge's token alignment, end to end through ``KnowledgeBase.check`` with the real models.

Short notes in English are known; the same notes retold in Chinese, and Chinese notes on a
neighbouring method, are checked. The whole-text decision alone takes three of the
neighbours for the note beside them (prefill/decode disaggregation for a KV pool shared by
agents, a compressed host-memory tier for NVMe offload, 2-bit values for rotated 4-bit
keys); reading how the two texts' tokens align keeps them apart. With the token encoder
disabled, this test fails. Marked slow; runs in CI. ``test_shipped_forms.py`` holds the
features these pairs were measured at.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.kb import KnowledgeBase
from kbsearch.models import load_models

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]

# (id, title, text): what jay wrote on 2026-09-10.
KNOWN = [
    (
        "k1",
        "Bit-plane KV layout",
        "KV values are stored as bit planes; decode reads the high planes first and fetches low planes"
        " only where attention needs them.",
    ),
    (
        "k2",
        "Test-time budgets in tokens",
        "Comparisons of test-time scaling should count generated tokens per problem, not the number of samples.",
    ),
    (
        "k3",
        "Draft tree pruning for speculative decoding",
        "Pruning the draft tree on the fly keeps the acceptance rate and cuts verification cost"
        " by about thirty percent.",
    ),
    (
        "k4",
        "Early exit per token",
        "A small router on hidden states lets each token leave the decoder early when it is easy, saving compute.",
    ),
    (
        "k5",
        "Shared KV pool for agents",
        "Several agents read one pool of KV cache rather than each holding its own copy of the shared context.",
    ),
    (
        "k6",
        "Rotated 4-bit keys",
        "A Hadamard rotation before quantising keys to four bits spreads outliers; perplexity stays close to fp16.",
    ),
    (
        "k7",
        "Autoscaling on cache hits",
        "Replicas scale on prefix-cache hit rate and queue length rather than GPU utilisation.",
    ),
    (
        "k8",
        "Cheap cached input",
        "API vendors now bill cached prompt prefixes at about a tenth of the normal input price.",
    ),
    (
        "k9",
        "Chunked prefill with priority",
        "Long prompts are split into chunks and interleaved with decode steps, with short requests served first.",
    ),
    (
        "k10",
        "NVMe offload of KV",
        "Cold KV blocks move to NVMe and are prefetched before the request that needs them is scheduled.",
    ),
]
# tom's retellings on 2026-09-25: z<n> says what k<n> says, in Chinese.
RETOLD = [
    ("z1", "按比特平面存 KV", "KV 按位平面存储，解码先读高位平面，只有注意力需要的地方才取低位平面。"),
    ("z2", "测试时预算按 token 计", "比较测试时扩展时应统计每道题实际生成的 token 数，而不是采样次数。"),
    ("z3", "推测解码草稿树剪枝", "在运行中剪枝草稿树，接受率不变，验证开销减少约三成。"),
    ("z4", "逐 token 提前退出", "隐藏状态上的小路由器让简单的 token 提前离开解码器，节省计算。"),
    ("z5", "多智能体共享 KV 池", "多个智能体读同一个 KV 缓存池，而不是各自保存一份公共上下文。"),
    ("z6", "旋转后的 4 比特 Key", "量化 Key 到 4 比特之前先做 Hadamard 旋转以分散离群值，困惑度接近 fp16。"),
    ("z7", "按缓存命中率扩缩容", "副本数按前缀缓存命中率和队列长度伸缩，而不是按 GPU 利用率。"),
    ("z8", "缓存输入降价", "各家 API 对命中缓存的提示前缀只收正常输入价格的十分之一左右。"),
    ("z9", "带优先级的分块预填充", "长提示被切成块与解码步交错执行，短请求优先。"),
    ("z10", "KV 卸载到 NVMe", "冷的 KV 块移到 NVMe，并在需要它的请求被调度前预取回来。"),
]
# Each names a method beside k6, k5 and k10, not the same one.
NEIGHBOURS = [
    ("d6", "Value 的 2 比特量化", "Value 按 token 量化到 2 比特，Key 保持 8 比特。"),
    ("d9", "预填充与解码分离部署", "预填充和解码放在不同的 GPU 池，中间通过网络传 KV。"),
    ("d10", "KV 压缩到主机内存", "把 KV 压缩后放在主机内存，命中时解压回显存。"),
]


def rows(notes: list[tuple[str, str, str]], instance: str, day: str) -> str:
    return "".join(
        json.dumps({"id": i, "instance": instance, "date": day, "title": t, "text": x}, ensure_ascii=False) + "\n"
        for i, t, x in notes
    )


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ItemResult]:
    folder = tmp_path_factory.mktemp("aligned")
    (folder / "known.jsonl").write_text(rows(KNOWN, "jay", "2026-09-10"), encoding="utf-8")
    (folder / "later.jsonl").write_text(rows(RETOLD + NEIGHBOURS, "tom", "2026-09-25"), encoding="utf-8")
    kb = KnowledgeBase(folder / "idx", load_models(ROOT / "models.txt")[0], create=True)
    kb.ingest([folder / "known.jsonl"])
    return {item.id: item for item in kb.check(str(folder / "later.jsonl")).items}


def test_a_note_retold_in_the_other_language_is_seen(checked: dict[str, ItemResult]) -> None:
    for number in range(1, 11):
        item = checked[f"z{number}"]
        assert item.verdict is not Verdict.NEW, (item.id, item.reason)
        assert item.first_seen is not None and item.first_seen.id == f"k{number}", (item.id, item.first_seen)


@pytest.mark.parametrize(("neighbour", "beside"), [("d9", "k5"), ("d10", "k10"), ("d6", "k6")])
def test_a_neighbouring_method_is_new_because_the_tokens_do_not_align(
    checked: dict[str, ItemResult], neighbour: str, beside: str
) -> None:
    item = checked[neighbour]
    assert item.verdict is Verdict.NEW, (item.id, item.reason)
    match = next(m for m in item.matches if m.id == beside)
    assert "aligned" in match.features, "the pair was decided without the token alignment"
    assert not match.same_item, (match.probability, match.threshold)

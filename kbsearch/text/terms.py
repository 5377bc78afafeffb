"""The field's standard terms in each of their forms: one thing, several spellings.

Records write a term as its abbreviation (``KV cache``, ``MoE``), its English
long form (``key-value cache``, ``Mixture of Experts``) or its Chinese term
(``键值缓存``, ``混合专家``), often mixed (``KV 缓存``). A query in one form
must find the records written in another: ``键值缓存 量化`` the card that says
``KV 缓存量化``. ``TERMS`` lists each term's forms, written here by hand (the
common spellings of LLM-systems papers); ``forms_in`` finds which of them a
query holds, and ``Form.pattern`` finds any of a term's forms in a text.

Forms are folded (``kbsearch.text.folding``). A space in a form also matches
a hyphen or nothing (``kv cache``, ``kv-cache``, ``kvcache``); a form that
begins or ends with a Latin letter or digit matches only where a word does
(``rag`` is not in ``storage``, ``llm`` not in ``vllm``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from kbsearch.text.folding import fold

TERMS: tuple[tuple[str, ...], ...] = (
    # Each row: the forms of one term (abbreviation, English long form, Chinese term), any order.
    ("kv cache", "key-value cache", "key value cache", "kv 缓存", "键值缓存", "键值对缓存"),
    ("moe", "mixture of experts", "mixture-of-experts", "混合专家", "专家混合"),
    ("llm", "llms", "large language model", "large language models", "大语言模型", "大型语言模型", "大模型"),
    ("rag", "retrieval-augmented generation", "retrieval augmented generation", "检索增强生成", "检索增强"),
    ("speculative decoding", "投机解码", "推测解码", "投机采样", "speculative sampling"),
    ("quantization", "quantized", "quantize", "量化"),
    ("prefill", "prefilling", "预填充"),
    ("decode stage", "decoding stage", "解码阶段"),
    ("ttft", "time to first token", "time-to-first-token", "首 token 延迟", "首token延迟", "首字延迟"),
    ("tpot", "time per output token", "每 token 延迟", "单 token 延迟"),
    ("fine-tuning", "fine tuning", "finetuning", "微调"),
    ("distillation", "knowledge distillation", "蒸馏", "知识蒸馏"),
    ("pruning", "剪枝"),
    ("agent", "agents", "智能体"),
    ("sparse attention", "稀疏注意力"),
    ("attention", "注意力"),
    ("long context", "long-context", "长上下文"),
    ("throughput", "吞吐", "吞吐量"),
    ("latency", "延迟", "时延"),
    ("inference", "推理"),
    ("expert parallelism", "专家并行"),
    ("expert", "experts", "专家"),
    ("tensor parallelism", "张量并行"),
    ("pipeline parallelism", "流水线并行"),
    ("load balancing", "负载均衡"),
    ("continuous batching", "连续批处理"),
    ("prefix caching", "prefix cache", "前缀缓存"),
    ("reinforcement learning", "rl", "强化学习"),
    ("rlhf", "reinforcement learning from human feedback", "人类反馈强化学习"),
    ("lora", "low-rank adaptation", "低秩适配"),
    ("vision-language model", "vlm", "视觉语言模型"),
    ("chain of thought", "chain-of-thought", "cot", "思维链"),
)


@dataclass(frozen=True)
class Form:
    """One term's form as a query writes it, and the term's every form."""

    written: str
    """The form found in the query, folded."""
    forms: tuple[str, ...]
    """All the forms of its term, folded."""

    @property
    def pattern(self) -> re.Pattern[str]:
        """Any of the term's forms, in a folded text."""
        return _pattern(self.forms)

    def others(self) -> list[str]:
        """The term's forms other than the written one, each as the lexical index holds it."""
        return [f for f in self.forms if f != self.written]


def forms_in(query: str) -> list[Form]:
    """The standard terms ``query`` writes, in any form, in the order written: at
    one place the longest form is taken, and a form inside it (``attention`` in
    ``sparse attention``) is no term of its own."""
    found: list[Form] = []
    for match in _ANY_FORM.finditer(fold(query)):
        forms = _BY_LENGTH[(match.lastindex or 1) - 1][1]
        if all(f.forms != forms for f in found):
            found.append(Form(match.group(0), forms))
    return found


@cache
def _pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(_one(form) for form in sorted(forms, key=len, reverse=True)))


def _one(form: str) -> str:
    pieces = [re.escape(p) for p in re.split(r"[ \-]", form)]
    body = r"[ \-]?".join(pieces)
    head = r"(?<![a-z0-9])" if form[0].isascii() and form[0].isalnum() else ""
    tail = r"(?![a-z0-9])" if form[-1].isascii() and form[-1].isalnum() else ""
    return f"{head}{body}{tail}"


_BY_LENGTH: list[tuple[str, tuple[str, ...]]] = sorted(
    ((fold(form), tuple(fold(f) for f in forms)) for forms in TERMS for form in forms),
    key=lambda pair: -len(pair[0]),
)
_ANY_FORM = re.compile("|".join(f"({_one(form)})" for form, _ in _BY_LENGTH))

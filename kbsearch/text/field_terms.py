"""Terms of the field written like coined names: LoRA, RAG, MoE, GRPO.

A name's rarity is read from how many records of the index hold it: a name few records
hold is a system's own (TriAttention, Vireo), and two records sharing it are likely one
item. A technique or a kind of model written as an acronym or in camel case looks like
such a name, and a young index (tens to a few hundred records) holds it in few records
too: probe 26 joined "Kubernetes Gateway API inference extension … routes by LoRA
adapter" to "Vireo 1.0 开源：面向多 LoRA 的推理引擎" as one item through "LoRA", held by
two records. A term names a field many items belong to however few records hold it yet,
so it never counts as a rare name (``dedupe.names.NameHolders.count``). Written by hand:
each is a technique, a training method or a kind of model of LLM systems, never one
system; two-letter ones (KV, PD, TP) are never looked up at all (too short).
"""

from __future__ import annotations

FIELD_TERMS = frozenset(
    # adapters and fine-tuning
    {"lora", "qlora", "dora", "peft", "sft"}
    # retrieval, prompting and learning in context
    | {"rag", "cot", "icl"}
    # preference and reinforcement learning
    | {"rlhf", "dpo", "grpo", "ppo"}
    # architectures: experts, attention variants, state-space models, model kinds
    | {"moe", "mla", "gqa", "mqa", "mha", "ssm", "vlm", "mllm"}
)


def is_field_term(name: str) -> bool:
    """Whether ``name`` (lower-cased, as ``features.latin_names`` gives it) is a term of the field."""
    return name in FIELD_TERMS

"""Coined names a claim gives that its item's records never mention."""

from __future__ import annotations

from kbsearch.dedupe.rules import Embedded
from kbsearch.text.textsim import name_tokens


def unnamed_by(claim: str, same_items: list[Embedded]) -> set[str]:
    """The claim's coined names (Qwen3, vLLM) when none of them is in any same-item record.

    A retelling in the other language keeps such names, so a claim whose every one
    is missing tells something its records do not ("新增：支持 Qwen3 系列模型" against
    a title about FlashSparse's KV sparsity, which the judge's cosine across languages
    put at 0.85). A name some record holds leaves the decision to the cosine."""
    names = name_tokens(claim)
    texts = [f"{k.record.title}\n{k.text_and_claims}".lower() for k in same_items]
    return names if names and not any(name in text for name in names for text in texts) else set()

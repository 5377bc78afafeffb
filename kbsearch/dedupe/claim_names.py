"""Coined names a claim gives that its item's records never mention."""

from __future__ import annotations

import re

from kbsearch.dedupe.rules import Embedded
from kbsearch.text.textsim import name_tokens

_JOINERS = re.compile(r"[\s\-_]+")


def unnamed_by(claim: str, same_items: list[Embedded]) -> set[str]:
    """The claim's coined names (Qwen3, vLLM, Sen1Floods11) that no same-item record mentions.

    A retelling in the other language keeps such names, so a claim naming one its records
    never mention tells something they do not ("新增：支持 Qwen3 系列模型" against a title
    about FlashSparse's KV sparsity, which the judge's cosine across languages put at 0.85).
    That holds when the claim also names its item: "TriPSS … new benchmarks on TVSum20 and
    SumMe" against a record saying TriPSS "性能优于现有方法" names the benchmarks the record
    never gave (judge's cosine 0.87, so the cosine decision called it known and a new result
    was dropped). A name is matched however it is joined (ResNet-110 holds resnet110)."""
    names = name_tokens(claim)
    if not names:
        return set()
    texts = [f"{k.record.title}\n{k.text_and_claims}".lower() for k in same_items]
    texts += [_JOINERS.sub("", text) for text in texts]
    return {name for name in names if not any(name in text for text in texts)}

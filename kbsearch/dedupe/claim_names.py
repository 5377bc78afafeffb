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
    texts = [f"{k.record.title}\n{k.text_and_claims}".lower() for k in same_items]
    variants = variant_names(claim, texts)
    if not names:
        return variants
    texts += [_JOINERS.sub("", text) for text in texts]
    return {name for name in names if not any(name in text for text in texts)} | variants


_COMPOUND = re.compile(r"(?<![\w.+-])[a-z0-9][a-z0-9.+]*(?:-[a-z0-9.+]+)+(?<!\.)")


_ADJECTIVE = re.compile(r"-(?:\w+ed|based|like|style|level|scale|sized?|wise|aware|free|only|specific)$")
"""A last part making the name an adjective ("GPT-4-based", "GPT-4o-generated"): no variant."""


def variant_names(claim: str, texts: list[str]) -> set[str]:
    """The claim's hyphenated names whose stem (the name but its last part) the records
    (``texts``, lower-cased) write while they never write the whole name: a variant of the
    item's model ("Halden-8B-r", a retrain promised for January, of a record's "Halden-8B";
    "-r" is no coined word to ``name_tokens``, so the cosine decision took the promise for
    the record's model card: probe 34, 0.76 ≥ 0.50). A name with a digit only, as a model's is."""
    written = {w for text in texts for w in _COMPOUND.findall(text)}
    found = set()
    for name in _COMPOUND.findall(claim.lower()):
        stem = name.rsplit("-", 1)[0]
        if any(c.isdigit() for c in name) and stem in written and name not in written and not _ADJECTIVE.search(name):
            found.add(name)
    return found

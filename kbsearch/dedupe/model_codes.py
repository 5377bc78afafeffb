"""Two titles naming different model codes of products are about two items.

Hardware news names its products by model codes: capitals and a number (KV-9, GPT-5, R1),
often beside a plain word ("Brisa B7", "Quarry Q3"). The named-systems rule reads none of
them: a code is two letters or fewer (the index cannot look it up, so it counts as common)
or its number is cut off (KV of KV-9), and the vendor's and product's plain words are read
only in a sentence-case English title. Two vendors' launches then read alike on every spec
line ("141 GB HBM3E, 700 W, Q4 shipments"), as do a vendor's chip and its next generation,
and the learned decision took them for one item. A model code is to a product what a
version is to a release (``subjects.releases_differ``): KV-10 after KV-9 is another product.

A retelling, in either language, names the code its news is on, or names no code at all
("Talon 规格汇总", a refresh written "Talon-X"): those stay for the learned decision. So
each title must name a code, the titles share none, and neither record names the other
title's code anywhere (title, text, key points): a record comparing the two, or giving its
predecessor ("up from the KV-9"), is not set apart by this rule.

An open-weight model is named by its family and its size (Quell-7B, Corvid-Math-7B,
Mixtral-8x22B): another size, or another family at one size, is another checkpoint, with its
own data and scores. Probe 34: a 3B student distilled from a 27B teacher, another lab's
fine-tune of a 7B base and a 4B distilled sibling were each taken for the model they came from.
Each title must name such a model, the titles share none, and neither record names the
other's but in a role (``mention_roles``: the base, the teacher, a rival, a namesake it is not);
a title naming a model only as its base ("基于 Quell-7B 的数学微调") names the other model as
its own. A retelling written without the size ("Quell 基座") names no sized model: the learned
decision weighs it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kbsearch.dedupe.mention_roles import unroled
from kbsearch.dedupe.subjects import mentions, named_by_neither, not_a_subject
from kbsearch.dedupe.variants import variants_differ
from kbsearch.text.hardware import accelerators
from kbsearch.text.plain_names import GENERIC

# Capitals, an optional hyphen, a number and an optional letter (KV-10, GPT-4o, Q3, B7), as a
# word of its own: not a part of a hyphenated name (DeepSeek-V3 is that name's version, nc-t9
# an instance type) nor a decimal (Qwen2.5).
_CODE = re.compile(r"(?<![\w\-.])([A-Z]{1,4})-?(\d{1,4})([A-Za-z]?)(?![\w\-]|\.\d)")
# A single capital is a code only right after a capitalised word (Brisa B7, Kimi K2): "slips
# to Q3" is a quarter, "Figure 3" a figure.
_AFTER_NAME = re.compile(r"(?<![\w\-])[A-Z][A-Za-z]{2,} $")
# Quarters and halves of a year (Q3 2026, 2026 H2, Q3'26, FY26 Q3) are dates, not products.
_DATED_AFTER = re.compile(r"\s*(?:['’]\d{2}\b|\d{4}\b|FY\s?\d{2})")
_DATED_BEFORE = re.compile(r"(?:\d{4}|FY\s?\d{2})\s*$")
# The trade's standards and units written as codes: number formats (FP8, INT4), memories and
# links (HBM4, DDR5, CXL 3), packaging (SXM5, OAM), rack sizes (NVL72), kinds of chip (GPU),
# parallelism degrees (TP8) and units (TB).
_STANDARDS = frozenset(
    {"FP", "BF", "TF", "INT", "UINT", "MX", "NF", "HBM", "DDR", "CXL", "SXM", "OAM", "NVL", "USB", "PCI", "UCIE"}
    | {"GEN", "CPU", "GPU", "TPU", "NPU", "LPU", "DPU", "IPU", "XPU", "PUE", "TDP", "TB", "GB", "MB", "KB", "PB"}
    | {"SM", "TP", "PP", "EP", "DP", "CP", "TOP", "TOPS", "FY", "ISO", "LTE", "IP", "ID", "AI", "AGI"}
)


# What a product carries, written in capitals like a name (HBM, DDR, CXL, SXM, NVL): no name of it.
# Probe 49: a regulation's title on HBM was "mentioned" by every record of a card carrying HBM3E.
_CARRIED = frozenset({"HBM", "DDR", "GDDR", "LPDDR", "CXL", "SXM", "OAM", "NVL", "PCI", "PCIE", "UCIE", "USB"})


@lru_cache(maxsize=4096)  # a title's, asked again for every pair it is in
def model_codes(title: str) -> frozenset[str]:
    """The model codes a title names, in capitals without hyphens (KV10, Q3, B7); GPUs are
    ``hardware_differs``'s, and dates and standards are none."""
    gpus = accelerators(title)
    found = set()
    for match in _CODE.finditer(title):
        letters, number, suffix = match.groups()
        code = f"{letters}{number}{suffix}".upper()
        before = title[: match.start()]
        if code in gpus or letters in _STANDARDS:
            continue
        if len(letters) == 1 and not _AFTER_NAME.search(before):
            continue
        if letters in ("Q", "H") and (_DATED_AFTER.match(title, match.end()) or _DATED_BEFORE.search(before)):
            continue
        found.add(code)
    return frozenset(found)


def _named_in(code: str, lowered: str) -> bool:
    """Whether lower-cased ``lowered`` names ``code``, with or without a hyphen or space (kv-9, kv 9, kv9)."""
    letters, rest = re.match(r"([A-Z]+)(.*)", code).groups()  # type: ignore[union-attr]
    pattern = rf"(?<![a-z0-9]){letters.lower()}[-\s]?{re.escape(rest.lower())}(?![a-z0-9])"
    return re.search(pattern, lowered) is not None


# A capitalised word of a title naming a model code: its vendor or product (Miraleth, Quarry).
_CAPITALISED = re.compile(r"(?<![\w\-])[A-Z][A-Za-z]{2,}(?![\w\-])")


# A family name, hyphenated parts allowed (Corvid-Math, Marrow-2, Qwen2.5), a hyphen, then a size
# in parameters (7B, 1.5B, 350M, 8x22B); what follows (-Instruct, -A3B) is the same checkpoint's.
_SIZED = re.compile(r"(?<![\w\-.])([A-Z][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*?-(?:\d+x)?\d+(?:\.\d+)?[BMT])(?![\w.])")


@lru_cache(maxsize=4096)  # a title's, asked again for every pair it is in (a fifth of the names rule)
def sized_models(title: str) -> frozenset[str]:
    """The models a title names by family and size, lower-cased (quell-7b): those it names
    outside a role (``mention_roles``), or, when it names none so, all of them."""
    named = frozenset(m.lower() for m in _SIZED.findall(title))
    own = unroled(title)
    return frozenset(m for m in named if mentions(own, m)) or named


def _sizes_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records whose titles name different sized models are two items, or None."""
    (our_title, our_text), (their_title, their_text) = item, known
    ours, theirs = sized_models(our_title), sized_models(their_title)
    if not ours or not theirs or ours & theirs:
        return None
    if any(mentions(their_text, m) for m in ours) or any(mentions(our_text, m) for m in theirs):
        return None
    listed = f"{', '.join(sorted(ours))} / {', '.join(sorted(theirs))}"
    return f"the titles name different models ({listed}), neither named by the other record but in a role"


def _names(title: str, codes: frozenset[str]) -> frozenset[str]:
    """A product title's names, lower-cased: its codes and capitalised words, but the trade's
    terms (``plain_names.GENERIC``), the memories and links a product carries (HBM, CXL:
    ``_CARRIED``) and words that open a title (The, New)."""
    words = {w.lower() for w in _CAPITALISED.findall(title) if w.upper() not in _CARRIED}
    return frozenset(c.lower() for c in codes) | frozenset(w for w in words - GENERIC if not not_a_subject(w))


def _mentioned(name: str, lowered: str) -> bool:
    return _named_in(name.upper(), lowered) if re.search(r"\d", name) else mentions(lowered, name)


def models_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records with these (title, lower-cased title, text and key points without what
    they name only in a role: ``mention_roles.unroled``) are two items by the model codes,
    sized models or variants of one model (``variants``) their titles name, or None (see the module)."""
    return _codes_differ(item, known) or variants_differ(item, known)


def _codes_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records are two items by the model codes or sized models their titles name."""
    (our_title, our_text), (their_title, their_text) = item, known
    ours, theirs = model_codes(our_title), model_codes(their_title)
    if (not ours and not theirs) or ours & theirs:
        return _sizes_differ(item, known)
    if not ours or not theirs:
        # One title names no code ("Korvane Talon 规格汇总"): two items only when no name of
        # either title, vendor, product or code, is mentioned by the other record.
        mine, yours = _names(our_title, ours), _names(their_title, theirs)
    else:
        mine, yours = frozenset(c.lower() for c in ours), frozenset(c.lower() for c in theirs)
    if not mine or not yours:
        return None
    listed = named_by_neither((mine, yours), (our_text, their_text), _mentioned)
    if listed is None:
        return None
    return f"the titles name different products ({listed}), neither named by the other record"

"""Two titles led by different coined names are about two items.

A briefing's title leads with what it reports on, then a dash or a colon: "Gyre-Embed — a new
open text embedding model", "Quillon-Embed-M — Tarnwell AI 开放的通用文本嵌入模型", "BitSift:
binary quantization". The named-systems rule (``named_systems``) reads coined names by their
shape (inner capitals, digits, an acronym in a compound), so a name of plain capitalised words
joined by hyphens (Gyre-Embed) is not one there; what both records did name was the benchmark
they are scored on (MTEB-Lite), and the learned decision then joined two labs' embedding models
on parallel wording and shared figures (1024 dims, 8192 tokens: probe 43, 1.00). A benchmark or
dataset named in both is what two items are measured on, not what they are.

So two titles each led by a name, the names different, are two items unless a record names the
other's lead as its own: a retelling keeps the name it retells, a rename gives the old one
("formerly ..."), a record of one release written otherwise still writes the name (run together,
apart: ``subjects.mentions``). A mention in a role is another item (``mention_roles``: "1.8x
faster than Quillon-Embed-M", "基于 X 微调", "超过 X"). A lead is a name only by its shape: a
coined word (BitSift, When2Think) or a hyphenated one whose first part is no ordinary word
(Gyre-Embed, Strata-RAG); a single plain word ("Update:", "Correction —", "Spindle") may be
ordinary English and is left to the other rules, as is a lead of several words, but for a maker's
name and its product word written apart ("Sonorus Edge — …"), whose product the record's text may
give instead ("Sonorus 发布…", "产品：Sonorus Realtime"): two products of one maker are two items
(``maker_products``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from kbsearch.dedupe.maker_products import MakerProducts, products_differ
from kbsearch.dedupe.subjects import mentions, not_a_subject
from kbsearch.text.misspelled import one_name
from kbsearch.text.ordinals import is_ordinal, ordinal_words
from kbsearch.text.plain_names import ordinary
from kbsearch.text.textsim import is_coined

# The lead: a word, hyphenated parts allowed, an optional version (Gyre-Embed v2, BitSift 1.1),
# then a dash or colon, Chinese text, or an English headline's verb (as ``subjects._SUBJECT``).
_LEAD = re.compile(
    r"\s*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?:\s+v?\d+(?:\.\d+)*)?"
    r"(?=\s*(?:[—–:：|｜]|-{1,2}\s)|\s*[\u3400-\u4dbf\u4e00-\u9fff]|\s+[a-z]{2,}(?:s|ed)\b)"
)
# Parts that describe rather than name (LLM-Based, Open-Source, Multi-Agent): no lead of a name.
_DESCRIBING = frozenset({"based", "driven", "aware", "free", "style", "wise", "like", "only", "level", "native"})


@lru_cache(maxsize=4096)  # a title's, asked again for every pair it is in
def title_lead(title: str) -> str | None:
    """The coined name a title leads with, lower-cased ("Gyre-Embed — …" → ``gyre-embed``), or None."""
    match = _LEAD.match(title)
    if match is None:
        return None
    name = match.group(1)
    parts = name.split("-")
    if not_a_subject(parts[0]) or any(p.lower() in _DESCRIBING for p in parts) or _phase(name, title):
        return None
    coined = any(is_coined(p) for p in parts)
    first = parts[0]
    plain_name = len(parts) > 1 and first[0].isupper() and len(first) >= 3 and not ordinary(first.lower())
    return name.lower() if coined or plain_name else None


def _phase(name: str, title: str) -> bool:
    """Whether the title leads with a phase or ordinal ("IIa 期顶线…", "Ph2 readout: …"), not a name (``ordinals``)."""
    return is_ordinal(name) or name.lower() in ordinal_words(title)


Lead = tuple[str, str, MakerProducts | None]
"""A record's title; its title, text and key points lower-cased without what they name only in a
role (``mention_roles.unroled``); and the maker its title leads with, with the record's product
words (``maker_products.maker_products``)."""


def leads_differ(item: Lead, known: Lead) -> str | None:
    """Why two records are two items by the names their titles lead with, or None (see the module)."""
    (our_title, our_text, our_products), (their_title, their_text, their_products) = item, known
    ours, theirs = title_lead(our_title), title_lead(their_title)
    if ours is None or theirs is None or one_name(ours.replace("-", ""), theirs.replace("-", "")):
        return products_differ((our_products, our_text), (their_products, their_text))
    if mentions(their_text, ours) or mentions(our_text, theirs):
        return None
    return f"the titles lead with different names ({ours} / {theirs}), neither named by the other record but in a role"

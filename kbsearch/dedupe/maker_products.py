"""Two products of one maker, each record's title led by the maker's name, are two items.

A vendor names its products by its own name and a product word written apart: "Sonorus Edge"
(an on-device SDK), "Sonorus Realtime" (a cloud API). The title-lead rule (``title_leads``)
reads a hyphenated lead (Gyre-Embed) as a name; a lead of two words it leaves to the other
rules, and neither the named-systems rule (a plain word is no coined name) nor the subjects
rule (both titles report on Sonorus) sets the two apart. Probe 48: an SDK's English record was
the UPDATE of the Chinese record of the vendor's API ("Sonorus 发布实时语音 API", its key point
"产品：Sonorus Realtime"), 0.81 by the aligned form, though against the API's English record
the same item scored 0.02.

So each record's product is read: the capitalised Latin word after the maker that its title
leads with ("Sonorus Edge — …"), or, when the title gives the maker alone ("Sonorus 发布实时语音
API"), the words its text writes after the maker outside a role ("产品：Sonorus Realtime").
Two records whose titles lead with one maker, each writing a product word, are two items when
neither record writes the other's product word anywhere (in any case, apart or joined, outside
a comparison, derivation or denial). A retelling keeps the product word or drops it: "Sonorus
实时 API" writes none (no Latin word after the maker) and "Sonorus's new realtime API" writes
it in lower case, so neither is set apart. A word a maker puts after its name that names no
product ("Sonorus API", "Sonorus Model", "Sonorus Update", "Sonorus v2", a place, a verb of a
headline: "Sonorus Launches …") is no product word, nor is a word of a longer run of capitalised
words ("Sonorus Developer Day").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbsearch.dedupe.subjects import not_a_subject
from kbsearch.text.function_words import FUNCTION_WORDS
from kbsearch.text.places import countries
from kbsearch.text.plain_names import GENERIC, ordinary
from kbsearch.text.textsim import has_cjk

_MAKER = r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*"
_PRODUCT = r"[A-Z][a-z]{2,}"
# Where a name ends: a dash, colon, bracket or stop; Chinese; a lower-case word or a number;
# an acronym of the kind of thing it is (API, SDK); the end. Not another capitalised word:
# a Title Case headline ("Sonorus Launches Edge SDK") or name ("Sonorus Developer Day").
_ENDS = (
    r"(?=\s*(?:[—–:：,，、;；.。!?|｜(（)）]|-{1,2}\s|$)"
    r"|\s*[\u3400-\u4dbf\u4e00-\u9fff]|\s+(?:[a-z0-9]|[A-Z]{2,6}(?![A-Za-z])))"
)
_TITLE_LEAD = re.compile(rf"^\s*[\"“「《]?({_MAKER})(?:['’]s?)?(?:\s+({_PRODUCT}))?{_ENDS}")

# Words a maker writes after its name that name no product of it: what it is or has (its API,
# team, lab, blog), what it does (a headline's verb: Launches, Unveiled, -s/-ed/-ing below).
_NOT_PRODUCTS = (
    GENERIC
    | FUNCTION_WORDS
    | {"inc", "corp", "ltd", "llc", "group", "team", "research", "lab", "company", "foundation", "official"}
    | {"platform", "service", "product", "family", "series", "version", "beta", "preview", "launch", "pricing"}
    | {"price", "blog", "docs", "developer", "announcement", "today", "now", "also", "just", "will", "may", "can"}
    | {"has", "had", "said", "says", "ships", "shipped", "cut", "cuts", "opens", "adds", "drops", "unveils"}
)
_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}")
_VERB_OR_PLURAL = re.compile(r"(?:ed|ing|(?<![su])s)$")


@dataclass(frozen=True)
class MakerProducts:
    """The maker a record's title leads with, and the product words the record gives it (lower-cased)."""

    maker: str
    products: frozenset[str]


def _title_case(title: str) -> bool:
    """Whether an English title capitalises most of its words after the first: a paper's title
    ("Practical Online KV Cache Compaction …"), whose first two words are no maker and product."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9'’]*", title)[1:]
    return not has_cjk(title) and 2 * sum(bool(_CAPITALISED.fullmatch(w)) for w in words) > len(words)


def _is_maker(word: str) -> bool:
    low = word.lower()
    return len(low) >= 3 and not ordinary(low) and not not_a_subject(low) and low not in FUNCTION_WORDS


def _is_product(word: str, maker: str) -> bool:
    low = word.lower()
    if low == maker.lower() or low in _NOT_PRODUCTS or _VERB_OR_PLURAL.search(low):
        return False
    return not countries(word)  # "Sonorus Japan": where, not what


def maker_products(title: str, text: str, unroled: str) -> MakerProducts | None:
    """The maker ``title`` leads with and its product words, or None (see the module).

    ``text``: the record's title, text and key points as written; ``unroled``: the same lower-cased
    with the names it only compares with, derives from or disowns blanked out, at the same offsets
    (``mention_roles.unroled``), so a product written only in a role is not the record's own."""
    lead = _TITLE_LEAD.match(title)
    if lead is None or not _is_maker(lead[1]) or _title_case(title):
        return None
    maker = lead[1]
    if lead[2] and _is_product(lead[2], maker):
        return MakerProducts(maker.lower(), frozenset({lead[2].lower()}))
    after = re.compile(rf"(?<![A-Za-z0-9\-_.])(?i:{re.escape(maker)})(?:['’]s?)?\s+({_PRODUCT}){_ENDS}")
    aligned = len(unroled) == len(text)  # lower() kept every offset (it does for all but a few letters)
    found = {
        m[1].lower()
        for m in after.finditer(text)
        if _is_product(m[1], maker) and aligned and unroled[m.start() : m.end(1)] == m.group().lower()
    }
    return MakerProducts(maker.lower(), frozenset(found)) if found else None


def writes(unroled: str, word: str, maker: str) -> bool:
    """Whether lower-cased ``unroled`` writes ``word`` at a word's start, its letters run together or
    written apart ("realtime" in "real-time", "real time"), but after the maker's name blanked as
    a role's ("unlike Sonorus Realtime": ``mention_roles`` blanks the one word of a name it reads)."""
    pattern = r"[-\s]?".join(map(re.escape, word))
    return re.search(rf"(?<![a-z0-9])(?<!{' ' * len(maker)}\s){pattern}", unroled) is not None


def products_differ(item: tuple[MakerProducts | None, str], known: tuple[MakerProducts | None, str]) -> str | None:
    """Why two records with these (maker products, unroled text) are two products of one maker, or None."""
    (ours, our_text), (theirs, their_text) = item, known
    if ours is None or theirs is None or ours.maker != theirs.maker:
        return None
    maker = ours.maker
    if any(writes(their_text, p, maker) for p in ours.products) or any(
        writes(our_text, p, maker) for p in theirs.products
    ):
        return None
    named = [", ".join(f"{side.maker} {p}" for p in sorted(side.products)) for side in (ours, theirs)]
    return (
        f"the titles lead with {ours.maker} for different products ({' / '.join(named)}), "
        "neither written by the other record but in a role"
    )

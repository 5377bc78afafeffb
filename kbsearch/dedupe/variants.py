"""A model's variant is a release of its own: Vesper-3 Mini is not Vesper-3.

Probe 41: "Halcyon releases Vesper-3 Mini with its own system card" was taken for "Halcyon AI
发布 Vesper-3 系统卡" (learned 1.00): two system cards of one maker read alike on every line
(jailbreak rate, HarmGauntlet, bio-risk tier), the named-systems rule saw one name (Vesper-3),
and a variant word (Mini, Nano, Lite, Pro, Max, Flash, Turbo, Plus, Ultra), a size written
apart ("Llama 3 70B") or a Chinese variant word (轻量版) was no name of its own.

So a title's model is read with its variant: the family (a name with a version: Vesper-3,
GPT-4o, Qwen2.5, Llama 3.1) and the variant words right after it ("" when bare). When both
titles name one family, share no variant of it, and neither record names the other title's
variant of it anywhere (title, text, key points; a bare mention is the bare model's), they are
two items. A family launch naming both ("Vesper-3 and Vesper-3 Mini"), a record giving the
other's variant ("cheaper than Vesper-3 Mini"), and a retelling keeping the variant stay joinable.
A size is read apart from the variant words: a title naming the model by its size only beside a
bare title whose record never names a size of it is one checkpoint written both ways
(``_size_of_bare``); two sizes (7B, 70B) stay two.

Instruct, Chat and Base are no variants here: a model's release puts out its base and its
tuned checkpoint together, and a record on "Qwen2.5-7B-Instruct" is most often the news of
"Qwen2.5-7B". Nor is 大 (大模型 is "large model", the field's word) or 小 alone; a Chinese
variant word (轻量版, 精简版, 迷你版) may stand for any English one, so it only tells a variant
from the bare model. Lower-case pro, max and plus read in a text may be plain words ("Vesper-3
plus a filter"), so such a mention counts as bare too.
"""

from __future__ import annotations

import re
from functools import lru_cache

# A family: a name and its version, joined by a hyphen (Vesper-3, GPT-4o), run together
# (Qwen2.5, o1) or, after a capitalised word, by a space (Llama 3.1, Gemini 2.5). A size
# (7B) is no version: it is read as a variant.
_FAMILY = re.compile(r"(?<![\w.\-])((?:[A-Za-z]+-)*(?:[A-Za-z]+-?|[A-Z][A-Za-z]+\s)\d+(?:\.\d+)*[a-z]?)(?!\w|\.\d)")
_WORDS = r"mini|nano|lite|flash|turbo|ultra|pro|max|plus"
# Variant words as a title writes them: pro, max and plus only capitalised (a plain word
# otherwise); a size in parameters (8B, 1.5B, 8x22B); a Chinese variant word.
_TITLE_VARIANT = r"(?:(?i:mini|nano|lite|flash|turbo|ultra)|Pro|PRO|Max|MAX|Plus|PLUS|(?:\d+x)?\d+(?:\.\d+)?[BM])"
_CHINESE = r"(?:轻量|精简|迷你)版?"
_AFTER = r"(?![A-Za-z0-9])"
_CHAIN = re.compile(rf"(?:[-\s]+{_TITLE_VARIANT}{_AFTER})+|\s*{_CHINESE}")
_TEXT_CHAIN = re.compile(rf"(?:[-\s]+(?:{_WORDS}|(?:\d+x)?\d+(?:\.\d+)?[bm]){_AFTER})+|\s*{_CHINESE}")
# A list of variants of one family: "Llama 3 8B and 70B", "Vesper-3 Mini / Nano".
_MORE = re.compile(r"\s*(?:,|/|&|、|和|与|及|\band\b|\bor\b)\s*")
_ONE = re.compile(rf"(?:{_TITLE_VARIANT}{_AFTER})(?:[-\s]+{_TITLE_VARIANT}{_AFTER})*|{_CHINESE}")
_CHINESE_VARIANT = "*"  # any variant, but not the bare model


def _key(family: str) -> str:
    """A family as compared: lower-cased, the version joined to the name (vesper3, llama3.1)."""
    return re.sub(r"[-\s](?=\d)", "", family.lower())


def _variant(chain: str) -> str:
    """A chain of variant words as compared ("mini", "flash-lite", "70b"), or the Chinese mark."""
    words = chain.strip(" -")
    if re.fullmatch(_CHINESE, words):
        return _CHINESE_VARIANT
    return "-".join(w.lower() for w in re.split(r"[-\s]+", words))


@lru_cache(maxsize=4096)  # a title's, asked again for every pair it is in
def title_variants(title: str) -> dict[str, frozenset[str]]:
    """Each model family a title names (``_key``) with the variants it names it by ("" bare)."""
    found: dict[str, set[str]] = {}
    for match in _FAMILY.finditer(title):
        if re.fullmatch(r"[vV][\d.]+", match.group(1)):
            continue  # a release's version (vLLM v0.31.0): ``subjects.releases``
        variants = found.setdefault(_key(match.group(1)), set())
        chain = _CHAIN.match(title, match.end())
        if chain is None:
            variants.add("")
            continue
        variants.add(_variant(chain.group(0)))
        end = chain.end()
        while (joiner := _MORE.match(title, end)) and (more := _ONE.match(title, joiner.end())):
            variants.add(_variant(more.group(0)))
            end = more.end()
    return {key: frozenset(variants) for key, variants in found.items()}


def _mentioned(key: str, lowered: str) -> frozenset[str]:
    """The variants of family ``key`` that lower-cased ``lowered`` names ("" for a bare mention)."""
    head, tail = re.match(r"(.*?)(\d.*)", key).groups()  # type: ignore[union-attr]
    name = re.escape(head).replace(r"\-", r"[-\s]?")
    found = set()
    for match in re.finditer(rf"(?<![a-z0-9.\-]){name}[-\s]?{re.escape(tail)}(?![a-z0-9]|\.\d)", lowered):
        chain = _TEXT_CHAIN.match(lowered, match.end())
        if chain is None:
            found.add("")
            continue
        variant = _variant(chain.group(0))
        found.add(variant)
        if variant.split("-")[0] in ("pro", "max", "plus"):
            found.add("")  # "vesper-3 plus a filter": perhaps a plain word
    return frozenset(found)


def _share(ours: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether two sets of variants of one family have one in common (a Chinese variant word
    standing for any English one)."""
    if ours & theirs:
        return True
    return any(_CHINESE_VARIANT in side and other - {""} for side, other in ((ours, theirs), (theirs, ours)))


def variants_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records with these (title, lower-cased title, text and key points) are two items by
    the variants of one model their titles name, or None (see the module)."""
    (our_title, our_text), (their_title, their_text) = item, known
    ours, theirs = title_variants(our_title), title_variants(their_title)
    for key in sorted(ours.keys() & theirs.keys()):
        mine, yours = ours[key], theirs[key]
        if _share(mine, yours) or _share(mine, _mentioned(key, their_text)):
            continue
        if _share(yours, _mentioned(key, our_text)):
            continue
        if _size_of_bare(mine, yours, _mentioned(key, their_text)) or _size_of_bare(
            yours, mine, _mentioned(key, our_text)
        ):
            continue
        listed = f"{_listed(mine)} / {_listed(yours)}"
        family = _written(our_title, key)
        return f"the titles name different variants of {family} ({listed}), neither named by the other record"
    return None


_SIZE = re.compile(r"(?:\d+x)?\d+(?:\.\d+)?[bm]")


def _size_of_bare(sized: frozenset[str], bare: frozenset[str], bare_mentions: frozenset[str]) -> bool:
    """Whether a title naming the model by its size only ("Halcyon-3 70B") and a title naming it
    bare ("Halcyon-3") may name one checkpoint: the bare record names no size of the model
    anywhere. A lab's report on its one released size writes the size in one title and drops it
    in the next (probe 46: a red-team figure and its correction, 12% then 14%); a size is not a
    variant word (Mini is another release, the bare model another card). A bare record naming
    another size ("the 7B trails") tells its own, so 7B beside 70B stay two items."""
    if bare != {""} or not all(_SIZE.fullmatch(v) for v in sized):
        return False
    return not any(_SIZE.fullmatch(v) for v in bare_mentions - sized)


def shared_families(our_title: str, their_title: str) -> list[str]:
    """The model families both titles name, as the first writes them (Tarsier-4)."""
    keys = title_variants(our_title).keys() & title_variants(their_title).keys()
    return [_written(our_title, key) for key in sorted(keys)]


def _written(title: str, key: str) -> str:
    return next(m.group(1) for m in _FAMILY.finditer(title) if _key(m.group(1)) == key)


def _listed(variants: frozenset[str]) -> str:
    """Variants as a reason lists them: the bare model as "bare", a Chinese word as "a Chinese variant"."""
    shown = {"": "bare", _CHINESE_VARIANT: "a Chinese variant"}
    return ", ".join(sorted(shown.get(v, v) for v in variants))

"""Two records reporting on different companies, or on different releases of one product, are two items.

A news title names its subject first: "Groq raises $900M", "Mistral 完成 17 亿欧元 D 轮
融资". A company's name is a plain capitalised word (Groq, Mistral, Cohere), not a coined
one, so the named-systems rule (``named_systems``) does not read it; and two funding
rounds read alike on every other word (raises, Series, valuation, led by), so the
learned decision took one for the other. When each title's subject is a name the other
record never mentions, and the titles share no coined name, they are two items. The
same event told in the other language names the same subject; a retelling from the other
side ("Relay 被 Databricks 收购" against "Databricks buys Relay") mentions the other's.

A release is one item per version: "vLLM 0.31.1 patch release" is not "vLLM v0.31.0 发布",
however alike their notes read. When both titles version one product and share no version
of it, they are two items; a later record about 0.31.0 still meets 0.31.0's. Nor is a
release the news of what it supports: "vLLM v0.40.0 发布" against "DeepSeek-V5 权重放出"
(each text naming the other: the engine's day-one support, the release's new model) are
two items when the other title names something else and its record never gives the version.

A company's sites are one item per place, as a product's releases are per version: "Groq
opens Helsinki data centre" is not "Groq 在沙特新建推理数据中心" (``text.places``) when the
titles are set in different countries and neither record names the other's.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kbsearch.text.hardware import other_hardware, title_hardware
from kbsearch.text.legal import legal_ranks
from kbsearch.text.number_labels import names_a_version
from kbsearch.text.ordinals import is_ordinal, ordinal_words
from kbsearch.text.places import countries
from kbsearch.text.textsim import name_tokens

# A name as a title's subject: a word with a capital (Groq, xAI, NVIDIA), possessive or
# not, then up to two more capitalised words of the name (Thinking Machines, Mistral AI).
# A hyphenated name is read whole (Kestrel-Coder).
_WORD = r"[A-Za-z][A-Za-z0-9&]{2,}(?:-[A-Za-z][A-Za-z0-9]*)*"
_HEAD = rf"((?=[A-Za-z0-9&]*[A-Z]){_WORD})(?:['’]s)?(?:\s+[A-Z][A-Za-z0-9&.-]*){{0,2}}"
# An English headline's verb follows it (raises, acquires, files, opened); a Chinese title
# runs on in Chinese (Mistral 完成…, Databricks 以…).
# A name with its maker in brackets ("Marlin (Kite Research) scores…", "Heron Dev (Stonefly) at…")
# is the subject whatever follows; so is a hyphenated name (Kestrel-Coder reaches…).
_SUBJECT = re.compile(
    rf"\s*{_HEAD}\s*(?:\s[a-z]{{2,}}(?:s|ed)\b|[\u3400-\u4dbf\u4e00-\u9fff]|[（(][A-Z][A-Za-z0-9&. ]{{1,40}}[）)])"
)
# Words that open a title without being what it reports on; a gerund opens a paper's
# title (Scaling laws for…, Rethinking…), not a company's news.
_NOT_SUBJECTS = frozenset(
    {"the", "new", "how", "why", "what", "when", "where", "who", "which", "this", "that", "these", "those"}
    | {"our", "its", "their", "report", "reports", "exclusive", "breaking", "update", "correction", "study"}
    | {"paper", "researchers", "scientists", "inside", "here", "there", "after", "before", "with", "from"}
    | {"for", "and", "but", "all", "one", "two", "top", "first", "more", "most", "less", "llm", "llms", "gpu"}
    | {"agent", "agents", "model", "models", "benchmark", "survey", "towards", "toward", "beyond", "via"}
    | {"does", "do", "should", "can", "will", "are", "is"}
)


def title_subject(title: str) -> str | None:
    """The name a news title reports on, lower-cased: its first word, when a verb or Chinese
    text follows the name ("Groq raises…" → ``groq``); None for other titles."""
    match = _SUBJECT.match(title)
    if match is None:
        return None
    head = match.group(1).lower()
    # A phase or stage leading the title ("IIa 期顶线…", "Phase III succeeds…") is where its item is (``ordinals``).
    return None if not_a_subject(head) or is_ordinal(match.group(1)) or head in ordinal_words(title) else head


def not_a_subject(word: str) -> bool:
    """Whether a title's first word opens it without being what it reports on (The, New, Scaling)."""
    head = word.lower()
    return head in _NOT_SUBJECTS or head.endswith("ing")


def mentions(folded: str, name: str) -> bool:
    """Whether lower-cased ``folded`` text holds a word starting with ``name`` (Transformers
    mentions Transformer, Mistral's mentions Mistral); a hyphenated name also written apart
    or run together (mcp-bench in "mcp bench", "mcpbench")."""
    pattern = r"[-\s]?".join(map(re.escape, name.split("-")))
    return re.search(rf"(?<![a-z0-9]){pattern}", folded) is not None


def named_by_neither(
    names: tuple[frozenset[str], frozenset[str]],
    texts: tuple[str, str],
    mentioned: Callable[[str, str], bool] | None = None,
) -> str | None:
    """Each title's names listed ("a, b / c") when neither record's text (lower-cased) mentions a
    name of the other's title, else None: what two titles naming different things must show
    before they are two items (``model_codes``, ``counterparts``). ``mentioned(name, text)``:
    how a name is found, ``mentions`` by default."""
    (mine, yours), (our_text, their_text) = names, texts
    found = mentioned or (lambda name, text: mentions(text, name))
    if any(found(n, their_text) for n in mine) or any(found(n, our_text) for n in yours):
        return None
    return f"{', '.join(sorted(mine))} / {', '.join(sorted(yours))}"


def subjects_differ(item: tuple[str | None, str], known: tuple[str | None, str]) -> str | None:
    """Why two records with these (title subject, lower-cased text) are two items, or None.
    The caller has checked that their titles share no coined name."""
    (ours, our_text), (theirs, their_text) = item, known
    if ours is None or theirs is None or ours == theirs:
        return None
    if mentions(their_text, ours) or mentions(our_text, theirs):
        return None
    return f"the titles report on different names ({ours} / {theirs}), neither mentioned by the other record"


# A product's version: a name, then a decimal with one to three dots (vLLM v0.31.0, Dynamo 2.0).
_RELEASE = re.compile(
    r"(?<![A-Za-z0-9_.+-])([A-Za-z][A-Za-z0-9.+-]*[A-Za-z0-9+])\s+(v?)(\d+(?:\.\d+){1,3})(?![A-Za-z0-9_%]|\.\d)"
)


# A release in Chinese: a version before 版 or 版本 ("发布 0.4 版", "v0.4 版本"), of the
# last Latin name before it with only Chinese between ("QuillServe 开源推理引擎发布 0.4 版").
_RELEASE_ZH = re.compile(r"(?<![A-Za-z0-9_.+-])v?(\d+(?:\.\d+){1,3})\s*版")
_NAME_THEN_CHINESE = re.compile(r"(?<![A-Za-z0-9_.+-])(?!v\d)([A-Za-z][A-Za-z0-9.+-]*[A-Za-z0-9+])[\s\u4e00-\u9fff]*$")


def releases(title: str) -> frozenset[tuple[str, str]]:
    """(product, version) of each release a title names, the product lower-cased."""
    found = set()
    for match in _RELEASE.finditer(title):
        name, v, version = match.groups()
        if v or names_a_version(name + " "):
            found.add((name.lower(), version))
    for match in _RELEASE_ZH.finditer(title):
        if named := _NAME_THEN_CHINESE.search(title, 0, match.start()):
            found.add((named.group(1).lower(), match.group(1)))
    return frozenset(found)


def releases_differ(item: frozenset[tuple[str, str]], known: frozenset[tuple[str, str]]) -> str | None:
    """Why two titles naming these releases are about two items, or None: both version one
    product and share no version of it (0.31.0 is 0.31: a trailing ``.0`` past the minor
    version says nothing)."""
    for product in sorted({p for p, _ in item} & {p for p, _ in known}):
        ours, theirs = ({v for p, v in side if p == product} for side in (item, known))
        if not {_release(v) for v in ours} & {_release(v) for v in theirs}:
            listed = f"{', '.join(sorted(ours))} / {', '.join(sorted(theirs))}"
            return f"the titles name different releases of {product} ({listed})"
    return None


def same_release(ours: frozenset[tuple[str, str]], theirs: frozenset[tuple[str, str]]) -> str | None:
    """A release (``"product version"``) both titles name, 2.5 being 2.5.0, or None."""
    shared = {(p, _release(v)) for p, v in ours} & {(p, _release(v)) for p, v in theirs}
    return " ".join(min(shared)) if shared else None


def new_release(
    item: tuple[frozenset[tuple[str, str]], str], known: tuple[frozenset[tuple[str, str]], str]
) -> str | None:
    """Why two records with these (title releases, lower-cased text) are one item, a later release
    of a product and the earlier one its record gives, or None. Both titles version the product,
    no version in common, and not as a patch of it (0.31.1 after 0.31.0, 0.6.1 after 0.6: the same
    major and minor version stay two items, as do releases the records never tie together)."""
    (ours, our_text), (theirs, their_text) = item, known
    for product in sorted({p for p, _ in ours} & {p for p, _ in theirs}):
        mine, other = ({v for p, v in side if p == product} for side in (ours, theirs))
        if {_minor(v) for v in mine} & {_minor(v) for v in other}:
            return None  # the same release, or a patch of it
        for (later, text), earlier in (((mine, our_text), other), ((other, their_text), mine)):
            newest = max(_order(v) for v in later)
            given = sorted(v for v in earlier if _order(v) < newest and _gives_release(text, product, v))
            if given:
                return (
                    f"a new release of {product}: {', '.join(sorted(later))} after {', '.join(given)}, "
                    "which its record gives"
                )
    return None


def _order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in _release(version).split("."))


def _minor(version: str) -> tuple[int, ...]:
    return _order(version)[:2]


def _gives_release(folded: str, product: str, version: str) -> bool:
    """Whether ``folded`` gives ``version`` as a release: after the product's name, a ``v`` or
    "version", or before 版 or "release" ("1.0 版是 3.1 倍", "vs. v1.0"), not as a bare figure."""
    number = re.escape(_release(version)) + r"(?:\.0)*(?!\d|\.\d)"
    before = rf"(?:(?<![a-z0-9]){re.escape(product)}\s*|(?<![a-z0-9])v|version\s*|版本\s*)"
    return re.search(rf"{before}{number}|(?<![\d.]){number}\s*(?:版|release|version)", folded) is not None


def _release(version: str) -> str:
    parts = version.split(".")
    while len(parts) > 2 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def release_not_theirs(ours: frozenset[tuple[str, str]], their_title: str, their_text: str) -> str | None:
    """Why a title naming the releases ``ours`` and a record with this title and lower-cased
    text are two items, or None: the other title names a coined name of its own, not the
    product, and the record never gives the version (a model's news naming the engines that
    support it is not the engine's release). The caller has checked that the titles share
    no coined name."""
    title = their_title.lower()
    for product, version in sorted(ours):
        names = sorted(name_tokens(their_title) - {product})
        if not names or mentions(title, product) or _gives(their_text, version):
            continue
        return f"the title reports on {product} {version}, which the other record, on {', '.join(names)}, never gives"
    return None


def _gives(folded: str, version: str) -> bool:
    """Whether ``folded`` gives ``version`` (0.40.0 as 0.40 or 0.40.0, not 0.40.1)."""
    release = re.escape(_release(version))
    return re.search(rf"(?<![\d.]){release}(?:\.0)*(?!\d|\.\d)", folded) is not None


def places_differ(item: tuple[str, str], known: tuple[str, str]) -> str | None:
    """Why two records with these (title, text) are two items by where they are set, or
    None: each title names a country (or a city of it), none in common, and neither
    record names a country of the other's title."""
    (our_title, our_text), (their_title, their_text) = item, known
    ours, theirs = countries(our_title), countries(their_title)
    if not ours or not theirs or ours & theirs or ours & countries(their_text) or theirs & countries(our_text):
        return None
    listed = f"{', '.join(sorted(ours))} / {', '.join(sorted(theirs))}"
    return f"the titles are set in different places ({listed}), neither named by the other record"


def hardware_differs(our_title: str, their_title: str) -> str | None:
    """Why two titles are about two items by the hardware they name, or None: each names hardware
    (a GPU model, a chip's generation, a memory generation: ``text.hardware.title_hardware``), none
    in common. Probe 29: "Nimbus cuts H200 price" was taken for Nimbus's H100 cut, GridMarket's H200
    spot price for its H100 one, Cumulus's B200 launch for its H100 cut: news of one company on
    other hardware reads alike on every other word. Probe 49: a cloud's TPU v7 price cut was taken
    for the TPU v8p launch it names as what customers wait for, and a memory maker's HBM4E for a
    GPU carrying HBM4. A retelling, in either language, names the hardware its news is on; a record
    about both generations names both in its title."""
    theirs = other_hardware(our_title, their_title)
    if theirs is None:
        return None
    ours = title_hardware(our_title)
    return f"the titles name different hardware ({', '.join(sorted(ours))} / {', '.join(sorted(theirs))})"


# What a news title reports of its company, by the words it uses. Probe 30: "Beacon 发布首款产品
# Beacon Agent" was taken for Beacon's B round, "Cascade launches the C3 inference chip" for
# Cascade's C2 going into mass production and for Northwind's acquisition of Cascade, "Northwind
# 与 Halcyon 签署…GPU 租赁协议" for Halcyon's data centre opening: news of one company reads alike.
# "Raises" is funding only with money or a round after it ("raises $40M", "raised a Series B",
# "raises fresh capital") or a sum before the noun ("a $40M raise"): a chip's refresh that
# "raises memory to 192 GB" or a vendor that "raises the limit" reports no funding (probe 33).
_RAISE = (
    r"\brais(?:es?|ed|ing)\s+(?:(?:a|an|its|their|the|another|new|fresh|more than|over|up to|about|nearly|almost"
    r"|roughly|additional|extra|further)\s+)*(?:[$€£¥]|(?:US|USD|EUR|RMB)\s*\d|\d[\d.,]*\s*(?:[mb]n?|million|billion)\b"
    r"|(?:pre-?)?seed\b|series\b|rounds?\b|(?:[\w-]+\s+)?round\b|funds?\b|funding\b|capital\b|money\b|cash\b)"
    r"|[$€£¥][\d.,]+\s*(?:[mb]n?|million|billion)?\s+raise\b"
)
# A product opened to its users is its launch (probe 38: "Orinth opens its environment platform
# to customers" is "Orinth launches Orinth Gym"), as is one made generally available, 上线 or 开放
# to users; a site's opening ("opens a data centre") stays an opening.
_OPENED_TO = (
    r"\bopen(?:s|ed|ing)?\b[^,.;:]{0,40}?\bto\s+(?:(?:all|its|their|paying|enterprise|more|every|the)\s+)*"
    r"(?:customers|users|developers|public|everyone|businesses|enterprises)\b|\bopens? up\b[^,.;:]{0,30}\baccess\b"
    r"|向[^，。；]{0,12}开放|全面开放|开放(?:给|申请|注册|使用|下载|公测)"
)
# A company's new site is built before it opens (probe 37: "Quorra to build a 1.2 GW data-centre
# campus" is not Quorra's GPU contract): a build names what is built, since "builds" alone is also
# a product's making ("builds an agent"), and a cluster is what a compute contract delivers
# (a figure's point, "1.2 GW", is no sentence's end).
_SITE = r"(?:data[- ]?cent(?:re|er)s?|campus(?:es)?|sites?|plants?|fabs?|facilit(?:y|ies)|factor(?:y|ies))"
_BUILD = (
    rf"\b(?:build(?:s|ing)?|construct(?:s|ing|ion)?|breaks? ground)\b(?:[^,.;:]|\.(?=\d)){{0,40}}?\b{_SITE}\b"
    r"|(?:新建|兴建|建设|建造|动工|开工|扩建)[^，。；]{0,12}?(?:数据中心|园区|工厂|算力中心|智算中心|基地)"
    r"|(?:数据中心|园区|算力中心|智算中心)[^，。；]{0,6}?(?:动工|开工)"
)
_EVENT_KINDS = {
    "funding": rf"融资|(?<![A-Za-z])[A-F]\+?\s*轮|{_RAISE}|\bseries [a-f]\b|\bfunding\b",
    "acquisition": r"收购|并购|\bacquir(?:es?|ed|ing)\b|\bacquisition\b|\bmerger\b|\bbuys\b|\btakeover\b|\bdeal\b",
    "launch": rf"发布|推出|上线|{_OPENED_TO}|\blaunch(?:es|ed)?\b|\breleas(?:es?|ed)\b|\bunveil(?:s|ed)?\b|\bdebuts?\b"
    r"|\bgenerally available\b|(?-i:\bGA\b)",
    "price": r"降价|涨价|价格|定价|\bprices?\b|\bpricing\b",
    "production": r"量产|出货|\bmass production\b|\bship(?:s|ped|ping)\b",
    "opening": r"投入运营|开业|\bopen(?:s|ed)\b(?![^,.;:]*\b(?:review|probe|investigation))|\bgoes live\b",
    "construction": _BUILD,
    "deal": r"租赁|协议|合同|\bsign(?:s|ed)?\b|\bdeal\b|\blease\b|\bcontract\b",
    "regulation": r"罚款|处罚|审查|调查|\bfine[sd]?\b|\bprobe\b|\breview\b|\binvestigation\b",
}
# "deal" is an acquisition's word too ("Relay joins Databricks in a $1.3B deal").
_EVENT_FINDERS = {kind: re.compile(pattern, re.IGNORECASE) for kind, pattern in _EVENT_KINDS.items()}
# A regulator's review, probe or approval of a deal is a later stage of it, one item (probe 30:
# "EU opens in-depth review of Northwind's Cascade deal" updates its acquisition), as is a
# deal of a site's news once the titles set both at one place (``places_differ``); a site's
# opening is the later stage of its build.
_STAGES_OF = {"regulation": frozenset({"acquisition", "deal"}), "opening": frozenset({"construction"})}
# A product's name (Orbit-3, Quill-Vision, C2): two titles naming one report on that product,
# its launch and its later price cut one item (probe 30's Orbit-3), whatever their kinds.
_PRODUCT = re.compile(r"(?<![\w-])(?:[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+|[A-Za-z]+\d[\w.]*)")


def event_kinds(title: str) -> frozenset[str]:
    """The kinds of event a title reports (funding, acquisition, launch, price, production,
    opening, construction, deal, regulation), by its words; none for a title that names no known kind."""
    return frozenset(kind for kind, finder in _EVENT_FINDERS.items() if finder.search(title))


def events_differ(item: tuple[str | None, str], known: tuple[str | None, str]) -> str | None:
    """Why two records with these (title subject, title) are two items by what their titles
    report, or None: the titles name one company (one's subject is named in the other title),
    each reports a known kind of event, neither names a kind of the other's, and neither is a
    regulator's step in the other's deal; nor are they set at one place or name one product, nor
    does each tell a stage on one legal track (``legal``): probe 35's "ODSA opens consultation on
    … guidelines" and "ODSA 发布…指南定稿" are a rule's consultation and its final text, one item."""
    (ours, our_title), (theirs, their_title) = item, known
    lowered = our_title.lower(), their_title.lower()
    company = next((s for s in (ours, theirs) if s and all(mentions(t, s) for t in lowered)), None)
    if company is None or countries(our_title) & countries(their_title):
        return None
    if {p.lower() for p in _PRODUCT.findall(our_title)} & {p.lower() for p in _PRODUCT.findall(their_title)}:
        return None
    mine, other = event_kinds(our_title), event_kinds(their_title)
    if not mine or not other or mine & other:
        return None
    for one, two in ((mine, other), (other, mine)):
        if any(_STAGES_OF.get(kind, frozenset()) & two for kind in one):
            return None
    if legal_ranks(our_title).keys() & legal_ranks(their_title).keys():
        return None
    listed = f"{', '.join(sorted(mine))} / {', '.join(sorted(other))}"
    return f"the titles report different events of {company} ({listed})"

"""Cheap lexical signals for mixed Chinese/English text.

Dense vectors see meaning; these see surface: shared Chinese character
bigrams and English words, names such as TriAttention or C²KV, and numbers
such as 10.7x. Chinese has no spaces, so character bigrams stand in for words
(no segmenter needed); English character bigrams would match almost any two
English texts, so English counts by whole words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from decimal import Decimal

from kbsearch.text.dates import CHINESE_DATE
from kbsearch.text.digit_shares import fractions_read
from kbsearch.text.money import discounts_read, priced_digits, trimmed
from kbsearch.text.number_labels import is_label
from kbsearch.text.ordinals import is_ordinal, ordinals_among
from kbsearch.text.quoted_figures import elided_unit
from kbsearch.text.ranges import shares_magnitude
from kbsearch.text.shares import as_share
from kbsearch.text.spelled import spelled_out
from kbsearch.text.units import bit_rate, measured, unit_after, widths

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9²³\-+.]*[A-Za-z0-9²³+]|[A-Za-z]")
# Bounded by ASCII word characters only: Chinese runs straight into numbers
# (提升10.7倍, 收集了41份), and a digit after "Name-" belongs to the name (GPT-4.1).
# A digit after @ # § is part of a metric, issue or section name (NDCG@10,
# #13165, §3.3), not a result.
# A unit glued to its number that is none of these (23dB, 60GHz) leaves the number
# standing alone, as "23 dB" does: one writer glues, another spaces. A Chinese unit
# needs no boundary after it (800万Q&A对), and 3000多万 is still 3000万. A T glued to a count is a
# trillion as a B is a billion (15T tokens, 15 万亿): not 50 t/s, a rate of tokens.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.@#§²³])(?<![A-Za-z]-)(\d+(?:,\d{3}(?!\d))*(?:\.\d+)*)"
    r"(?:\s*[多余]?(倍|千万|百万|万亿|千|万|亿)"
    r"|\s*(%|x|×|ms|s|gb|tb|thousand|million|billion|trillion|k|m|b|(?<=\d)t(?!/))(?![A-Za-z0-9_])"
    r"|(?=[A-Za-z])|(?![A-Za-z0-9_]))",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
"""What every pattern ``numbers`` reads needs (a Unicode digit, as theirs)."""
# Magnitudes are written as words, letters or Chinese units: 10k, 10,000 and 1万 are one number.
_MAGNITUDES = {
    "k": 3, "thousand": 3, "千": 3, "万": 4, "m": 6, "million": 6, "亿": 8, "b": 9, "billion": 9,
    "t": 12, "trillion": 12, "万亿": 12, "百万": 6, "千万": 7,
}  # fmt: skip
_SHOWN_AS = ((12, "t"), (9, "b"), (6, "m"), (3, "k"))
MAGNITUDE_SUFFIXES = {suffix: power for power, suffix in _SHOWN_AS}
"""The suffixes of ``numbers``' canonical spelling (``63k``, ``1.5b``) and their powers of ten."""
# A fraction of itself (2048/2048 passed) says "all", not a quantity.
_SELF_FRACTION = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*/\s*\1(?![\d.])")
# Year spans (2022-2023, 2022–24, 2019至2021年) go whole: no half of one is a result;
# so do the writers' days (9-16锚定, jay 9-17 已记, 9月17日, "（10-05 为 38%）", "（9-16 时为 55%）"):
# a month and a day with a zero before either (10-05, 09-16) is no range, nobody pads one;
# nor is one before a time of day or a Chinese word that counts or measures nothing
# (9-30 升级到, 9-30 晚, 10-3 evening), unlike a range's unit or what it counts
# (3-5 倍, 2-4 次采样, 6-12 个百分点, 4-16 岁, 3-5 为 99%, 8-16 下).
# A date in Chinese, spaced or not, and a month alone (2026 年 11 月, 11 月 3 日, 12月初) is the one
# ``dates`` reads (``dates.CHINESE_DATE``), so a date is never read two ways.
_NOT_AFTER_DAY = (
    "个倍比次位秒分时小毫微纳万亿千百兆张台块颗片名人天日号周月年岁级阶层步轮卡核路节份条篇项种家"
    "成折点度元美字行句题页章段帧组类批期代维头和与及或至到为之以左范区内的上下"
)
# A day after words that date (the week of 10-26, week-of-10-26, as of 11/3) or with its
# month's name (Oct 26, October 26th, 26 Oct) is no figure either.
_DAY_AFTER = r"(?i:\b(?:(?:week|wk)s?[\s-]+(?:of|ending|starting)|as\s+of|since|until|dated)[\s-]+)"
_MONTH = (
    r"\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b"
)
_DATE = re.compile(
    r"(?<![\d.])(?:19|20)\d\d\s*[-–~至到]\s*(?:(?:19|20)\d\d|\d\d)(?![\d./-])"
    r"|(?<![\d.])(?:19|20)\d\d(?:[-/]\d{1,2}(?:[-/]\d{1,2})?|\.(?:0?[1-9]|1[0-2])\.\d{1,2})"
    r"|\d{1,2}[-/]\d{1,2}(?=\s*(?:锚|棒|晚|早|已|记|首|报|$))|(?<=[(（])\d{1,2}[-/]\d{1,2}(?=\s*(?:为|时))"
    r"|(?<![\d.,/-])(?:0[1-9]-(?:0[1-9]|[12]\d|3[01])|(?:[1-9]|1[0-2])-0[1-9])(?![\d.,/%-])"
    rf"|{CHINESE_DATE}"
    r"|(?<![\d.,/-])(?:[1-9]|1[0-2])-(?:[1-9]|[12]\d|3[01])(?![\d.,/%-])"
    rf"(?=\s*(?:(?![{_NOT_AFTER_DAY}])[{_CJK}]|\d{{1,2}}:\d\d|(?i:am|pm|morning|afternoon|evening|night)\b))"
    rf"|{_DAY_AFTER}(?:[1-9]|1[0-2])[-/](?:[1-9]|[12]\d|3[01])(?![\d/%]|[.,]\d)|{_MONTH}\.?\s*\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}"
)
# A lone digit before what it counts: GPUs and accelerators (H200, B200, A100), nodes,
# cards, replicas, layers, experts, heads, bits; 张/台/块/卡/个/节点/层/位; what a system
# runs side by side (8 agents, an 8-agent debate, 4 workers, 5 个 Agent, 3 名用户, 2 个实例);
# and a gain in points (6 AUC points, 3 pp, 5 个百分点), a result however small. Not a
# step, a dataset or a model: "Gemma 2 模型", "Argoverse 2 数据集", "Stage 1 processes"
# name a version or a stage, and "3 steps" lists a method's parts.
_COUNTED = re.compile(
    r"(?<![A-Za-z0-9_.@#§²³-])(\d)[\s-]*(?:[x×*]\s*|[个张台块名]\s*)?(?=(?:[A-Z]\d{2,3}\b|gpus?\b|nodes?\b|cards?\b|servers?\b|"
    r"machines?\b|replicas?\b|layers?\b|experts?\b|heads?\b|bits?\b|卡|节点|层|位|比特|显卡|服务器|"
    r"(?:agent|worker|instance|thread|request|user|client|shard|device)s?\b|智能体|实例|进程|线程|用户|请求|副本|设备|"
    r"(?:(?-i:[A-Z][A-Za-z0-9@-]*)\s+)?points?\b|pp\b|个?百分点|个点))",
    re.IGNORECASE,
)
_ARXIV_LIKE = re.compile(r"\d{4}\.\d{4,5}(?:v\d+)?")
_SENTENCE_END = re.compile(r"(?<=[。！？；;!?])|(?<=\.)\s+|\n+")
_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        """
    a an and are as at be by for from has have in into is it its of on or that the this to was
    were with via vs not no new than then over under per
""",
    )
)
# Words too generic in this domain to name a particular paper or system.
_GENERIC_NAMES = frozenset(
    re.findall(
        r"\w+",
        """
    llm llms kv cache ai gpu gpus cpu api the a an paper arxiv github blog inference model models
    agent agents rag benchmark survey new update
""",
    )
)


def lexical_tokens(text: str) -> set[str]:
    """Chinese character bigrams plus lower-cased English words."""
    tokens: set[str] = set()
    for run in _CJK_RUN.findall(text):
        tokens.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    tokens.update(w.lower() for w in _WORD.findall(text) if w.lower() not in _STOPWORDS)
    return tokens


def has_cjk(text: str) -> bool:
    """Whether the text holds a Chinese character (CJK ideographs, extension A and compatibility)."""
    return _CJK_RUN.search(text) is not None


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def language(text: str) -> str:
    """``zh`` when Chinese carries a quarter or more of the letters, else ``en``."""
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    latin = sum(len(w) for w in _WORD.findall(text))
    if cjk == 0 and latin == 0:
        return "en"
    # A Chinese character carries about as much as a three-letter English word.
    return "zh" if 3 * cjk >= 0.5 * latin else "en"


def name_tokens(title: str) -> set[str]:
    """Coined words that name a system, paper or product: inner capitals
    (TriAttention, vLLM), letters mixed with digits (When2Think, C²KV).

    Hyphenated compounds are split first, so Vision-Language is not a name;
    plain acronyms (LLM, CLIP, TGI) are too common across papers to count.
    A phase or ordinal written so (IIa, Ph2) names nothing (``ordinals``, probe 50).
    """
    names = set()
    for word in _WORD.findall(title):
        for part in re.split(r"[-.+]", word):
            if len(part) >= 3 and part.lower() not in _GENERIC_NAMES and is_coined(part) and not is_ordinal(part):
                names.add(part.lower())
    return names - ordinals_among(names, title)


_TITLE_HEAD = re.compile(r"\s+[—–-]+\s+|—|[:：｜|（(【]")


def head_names(title: str) -> set[str]:
    """Names in the first word of a title ("TriAttention — KV cache…",
    "When2Think: Learning…"): a title leads with its subject, while a name
    further on ("… at SemEval-2025", "… LoRA Interference") is often context."""
    head = _TITLE_HEAD.split(title.strip(), maxsplit=1)[0].strip(" \"'“”「」《》")
    words = head.split()
    return name_tokens(words[0]) if words else set()


def is_coined(part: str) -> bool:
    """A made-up word: letters with digits (When2Think, GPT-4o) or inner capitals
    (TriAttention, vLLM); not a plural acronym (MLLMs) or an all-capital one."""
    if part.endswith("s") and part[:-1].isupper():
        return False  # a plural acronym: MLLMs, VLMs
    has_letter = any(ch.isalpha() for ch in part)
    has_digit = any(ch.isdigit() or ch in "²³" for ch in part)
    camel = any(ch.isupper() for ch in part[1:]) and any(ch.islower() for ch in part)
    return has_letter and (has_digit or camel)


def numbers(text: str) -> set[str]:
    """Quantities in normalized form: 10.7x, 2.5×, 10.7 倍 → ``10.7x``; 1,618 → ``1618``.

    Labels are skipped: sections (§3.3), issues (#13165), figures and tables
    (Figure 10, 表2), versions (v0.26.0, Apache 2.0, BSL 1.1, 2.x, "introduced in 0.9", CrewForge
    从 3.0 起, 0.4 版) and fractions of themselves (2048/2048).
    A figure in words reads as in digits (三倍, tenfold → ``3x``, ``10x``; ``spelled``), a time in
    Chinese units as in English (41 毫秒 → ``41ms``), a quantisation width as bits
    (INT4, W4A16, 4-bit → ``4bit``) and a duration, power, energy or size in one unit
    whatever it is written in (48 hours, 2 天 → ``2d``; 0.132 MW → ``132kw``; ``units``).
    Dates are skipped too (2026-11-03, 10月26日, 2026 年 11 月, 11 月, week of 10-26, Oct 26).
    A decimal's trailing zeros go ($5.00, 2.50 → ``5``, ``2.5``), a share's fraction is its
    percentage (a rate of 0.73 → ``73%``; ``shares``) and a discount reads as what it takes off (打六折 → ``40%``;
    ``money``)."""
    text = discounts_read(spelled_out(fractions_read(text)))
    if _DIGIT.search(text) is None:  # most titles and many summaries: nothing below can match
        return set()
    text, found = widths(_DATE.sub(" ", _ARXIV_LIKE.sub(" ", _SELF_FRACTION.sub(" ", text))))
    matches, earlier = list(_NUMBER.finditer(text)), None
    for match, after in zip(matches, [*matches[1:], None], strict=False):
        value, unit = match.group(1), _unit(match) or unit_after(text, match.end())
        if not unit and after is not None and _RANGE_GAP.fullmatch(text, match.end(), after.start()):
            unit = _unit(after) or unit_after(text, after.end())  # 26-30% is 26% to 30%: one unit
            if unit in _MAGNITUDES and not shares_magnitude(value, after.group(1)):
                unit = ""  # 600 to 8k is no 600k (``ranges``)
        if is_label(text, match.start(), value, unit):
            continue
        written = unit  # what a figure set against this one may leave out
        if not unit and (share := as_share(text, match.start(1), match.end(1))):
            value, unit = share, "%"  # a success rate of 0.73 is 73% (``shares``)
        unit = unit or elided_unit(text, match.start(1), match.end(1), earlier)  # the vendor's 38 (minutes)
        unit = "x" if unit in {"×", "倍"} else unit
        if unit == "x" and _HARDWARE_AFTER.match(text, match.end()):
            unit = written = ""  # 4x H200, 8×H200: a count of accelerators, not a speed-up
        earlier = match.end(), written
        found.add(_measure(value.replace(",", ""), unit, text, match.end()))
    return found


def _measure(value: str, unit: str, text: str, end: int) -> str:
    """The number in ``numbers``' spelling; a duration, power, energy or size in its one
    spelling whatever unit or prefix it is written with (``units.measured``: 48 hours → ``2d``),
    a magnitude's too (1万小时, 10k hours)."""
    amount = Decimal(value)
    unit = (unit in ("gb", "tb") and bit_rate(text, end)) or unit
    if unit in _MAGNITUDES and (after := unit_after(text, end)):
        amount, unit = amount.scaleb(_MAGNITUDES[unit]), after
    spelled = measured(amount, unit)
    # Trimmed here, not in ``_canonical``: ``written_numbers``' spellings are stored in the lexical index.
    return _canonical(trimmed(value), unit) if spelled is None else spelled


def _unit(match: re.Match[str]) -> str:
    return (match.group(2) or match.group(3) or "").lower()


def written_numbers(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Where each number of ``text`` is written, with its unit: (start, end,
    its spelling in ``numbers``' form, whether a unit or a thousands' comma
    was written). ``10.7 倍`` is ``10.7x``, ``6.3万`` and ``63,000`` are ``63k``.
    What it stands for is not read (a label, a date, a count of GPUs): only
    how it is spelled, for matching it in any of its spellings."""
    for match in _NUMBER.finditer(text):
        value, unit = match.group(1), _unit(match)
        if value.count(".") < 2:  # a version (0.26.0) has no other spelling
            spelling = _canonical(value.replace(",", ""), "x" if unit in {"×", "倍"} else unit)
            yield match.start(), match.end(), spelling, bool(unit) or "," in value


_HARDWARE_AFTER = re.compile(r"\s*(?:[A-Z]\d{2,3}\b|GPUs?\b|cards?\b|nodes?\b|卡|张)", re.IGNORECASE)
# Between the ends of a range written with one unit (19–33%, 2~3 倍, 7-8B, 3 to 5x).
_RANGE_GAP = re.compile(r"\s*(?:[-–—~～]|to|至|到)\s*", re.IGNORECASE)


def _canonical(value: str, unit: str) -> str:
    """One spelling per quantity: 63,000, 63k and 6.3万 → ``63k``; 1.5B and 15亿 → ``1.5b``.
    A number that is not a round count of thousands keeps its digits (1618, 2026)."""
    if unit not in _MAGNITUDES and not (unit == "" and "." not in value and len(value) > 3):
        return value + unit
    amount = Decimal(value).scaleb(_MAGNITUDES.get(unit, 0))
    for power, suffix in _SHOWN_AS:
        shown = amount.scaleb(-power)
        if shown >= 1 and shown == shown.quantize(Decimal("0.1")):
            return f"{shown.normalize():f}{suffix}"
    return f"{amount.normalize():f}"


def substantive_numbers(text: str) -> set[str]:
    """Numbers that state a result: not years, dates, list markers or section numbers.
    A lone digit counts when it counts hardware, model parts or what runs side by side
    (8 H200 GPUs, 4 张卡, 5 个 Agent): the same deployment on 4 GPUs instead of 8 is news; so does
    a price ($3, 4元, 3 USD; ``money``) and one written with a decimal's zeros (1.0, $5.00)."""
    counted = {m.group(1) for m in _COUNTED.finditer(text)} | priced_digits(text)
    counted |= {m.group(1) for m in _ZEROS.finditer(text) if not is_label(text, m.start(), m.group(0), "")}
    return {n for n in numbers(text) if not _is_incidental(n) or n in counted}


_ZEROS = re.compile(r"(?<![A-Za-z0-9_.@#§²³])(?<![A-Za-z]-)(\d)\.0+(?!\d|\.\d)")


def _is_incidental(token: str) -> bool:
    digits = token.rstrip("%xmsgbtk")
    # A year, a decade or a citation's year (2024, the 2020s, 2025b); 2000x and 2024% are results.
    if re.fullmatch(r"(19|20)\d\d", digits) and token[-1] not in "x%":
        return True
    return re.fullmatch(r"\d", digits) is not None and token == digits


def sentences(text: str, min_chars: int = 8) -> list[str]:
    """Split prose into sentences, dropping fragments too short to be a claim
    and markdown headings ("## Method"), which label a part and claim nothing."""
    parts = (p.strip(" -•·\t") for p in _SENTENCE_END.split(text))
    return [p for p in parts if len(p) >= min_chars and not _HEADING.match(p)]


_HEADING = re.compile(r"#{1,6}\s")


def normalized(text: str) -> str:
    """Text with case and all white space folded: equal means identical."""
    return re.sub(r"\s+", "", text).lower()


def union(sets: Iterable[set[str]]) -> set[str]:
    out: set[str] = set()
    for item in sets:
        out |= item
    return out

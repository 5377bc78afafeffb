"""Whether a record already states a claim's numbers: the same figure written rounder
counts as stated, and a figure that changes what the record measures never does.

Numbers arrive in ``textsim.numbers``'s canonical spelling (``428k``, ``2.3x``,
``40%``). Two writers of one paper round differently: 63万 and 631,200 are one
count, 1.5x and 1.52x one speed-up. A number matches when the more precise of
the two, rounded to the other's significant digits, equals it, and the rounder
one keeps at least two significant digits (2x and 2.4x are different results).
A count in K or M is also its binary value, exactly (``_binary``): 32K is 32,768.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache

from kbsearch.text.dates import CHINESE_DATE
from kbsearch.text.decimal_scores import other_scale, score_decimals
from kbsearch.text.quoted_figures import SET_AGAINST
from kbsearch.text.score_points import score_points
from kbsearch.text.textsim import MAGNITUDE_SUFFIXES, numbers
from kbsearch.text.units import SCALED

_CANONICAL = re.compile(r"^(\d+(?:\.\d+)?)([a-z%]*)$")
_MIN_ROUNDED_DIGITS = 2
_CHANGED_WITHIN = 10


@lru_cache(maxsize=65536)  # a record's numbers are read against every claim
def _parse(number: str) -> tuple[Decimal, str, int] | None:
    """(value, unit, significant digits) of a canonical number; k/m/b/t are plain counts, and
    a duration, power, energy or size is in its ladder's first unit (``units.SCALED``)."""
    match = _CANONICAL.match(number)
    if match is None:
        return None
    mantissa, unit = match.groups()
    try:
        value = Decimal(mantissa)
    except InvalidOperation:
        return None
    if unit in MAGNITUDE_SUFFIXES:
        value, unit = value.scaleb(MAGNITUDE_SUFFIXES[unit]), ""
    elif unit in SCALED:  # 45min, 2d, 132kw: in their ladder's first unit, so 1h is 60min
        size, unit = SCALED[unit]
        value *= size
    return value, unit, _significant_digits(mantissa)


# Computing counts in binary thousands: a context of 32K tokens is 32,768 of them, 128K is 131,072,
# 1M is 1,048,576 (a vocabulary, a page or a cache of 64K entries likewise), and a model card
# writes either. Exactly so, with no tolerance: 128K is no 131,000, which is 128K in no reading.
_BINARY = {"k": Decimal(1024), "m": Decimal(1024) ** 2}


def _binary(number: str) -> Decimal | None:
    """The binary value of a count in K or M (``32k`` is 32,768), or None."""
    match = _CANONICAL.match(number)
    if match is None or match.group(2) not in _BINARY:
        return None
    return Decimal(match.group(1)) * _BINARY[match.group(2)]


def figure_value(number: str) -> tuple[Decimal, str] | None:
    """(value, unit) of a number in ``numbers``' spelling: ``1.2k`` is 1200 with no unit."""
    parsed = _parse(number)
    return None if parsed is None else parsed[:2]


def _significant_digits(mantissa: str) -> int:
    # Trailing zeros of a whole number are not precision: 420k is 42 rounded.
    digits = mantissa.replace(".", "").lstrip("0")
    if "." not in mantissa:
        digits = digits.rstrip("0")
    return max(1, len(digits))


def _rounded(value: Decimal, digits: int) -> Decimal:
    if value == 0:
        return value
    exponent = value.adjusted() - digits + 1
    return value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP)


def same_figure(a: str, b: str, approximate: bool = False) -> bool:
    """One figure in two spellings: equal, one the other rounded (see the module), or a count
    in K or M and its binary value (``_binary``). ``approximate``: written as a rough figure
    (约 10 倍, roughly tenfold), so one significant digit is rounding enough (10x for 10.7x,
    still within 10%: ``_near``)."""
    if a == b:
        return True
    left, right = _parse(a), _parse(b)
    if left is None or right is None or left[1] != right[1]:
        return False
    if left[1] == "" and (_binary(a) == right[0] or _binary(b) == left[0]):
        return True
    (precise, _, _), (rounder, _, digits) = sorted((left, right), key=lambda part: -part[2])
    return digits >= (1 if approximate else _MIN_ROUNDED_DIGITS) and _rounded(precise, digits) == rounder


def unstated(claimed: Iterable[str], stated: Iterable[str], approximate: Iterable[str] = ()) -> set[str]:
    """The claimed numbers that no stated number is the same figure as; ``approximate``:
    those the claim writes as rough figures, and its falls marked (``figure_readings``)."""
    said, rough = set(stated), set(approximate)
    missing = {n for n in claimed if n not in said}
    if not missing:
        return missing
    return {
        n
        for n in missing
        if not any(
            same_figure(form, m, n in rough)
            for form in (
                *one_figure_as(n, rise=f"{FALL}{n}" not in rough),
                *_as_percentage(n, rough),
                *_scaled(n, rough),
            )
            for m in _near(form, said)
        )
    }


def _as_percentage(number: str, readings: set[str]) -> tuple[str, ...]:
    """``number`` as a percentage when the claim writes it as a score in points (``POINTS``): 74 is 74%."""
    return (f"{number}%",) if f"{POINTS}{number}" in readings else ()


def _scaled(number: str, readings: set[str]) -> tuple[str, ...]:
    """``number`` on a score's other scale (``decimal_scores``): a percentage as a decimal (94% is
    0.94), a decimal the claim may give for a score (``SCORE``) as a percentage (0.768 is 76.8%)."""
    scaled = other_scale(number)
    return (scaled,) if scaled is not None and (number.endswith("%") or f"{SCORE}{number}" in readings) else ()


_WHOLE = Decimal(100)


@lru_cache(maxsize=65536)
def one_figure_as(number: str, rise: bool = True) -> tuple[str, ...]:
    """The number and the other spellings of one multiple: 1.22x is a 22% rise and 122% of
    the base, 1.5x a 50% rise; a percentage the other way. 100% (and 2x as a 100% rise)
    is left alone: "100% recall" is no doubling. A percentage written as a fall (not
    ``rise``: "TTFT 降 30%") is no 1.3x gain (probe 26)."""
    parsed = _parse(number)
    if parsed is None or parsed[1] not in ("x", "%"):
        return (number,)
    value, unit, _ = parsed
    if unit == "x":
        others = [(value - 1) * _WHOLE, value * _WHOLE]
        spelled = [f"{_plain(v)}%" for v in others if v > 0 and v != _WHOLE]
    else:
        others = [1 + value / _WHOLE, value / _WHOLE] if value != _WHOLE else []
        others = others if rise else others[1:]
        spelled = [f"{_plain(v)}x" for v in others if v > 0]
    return (number, *spelled)


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# Words that make the figure after them a rough one: 约 10 倍, roughly a tenfold, ~10x.
_APPROXIMATELY = re.compile(
    r"(?:大约|大概|约莫|约为|约|将近|接近|近)\s*|\b(?:roughly|about|around|nearly|approximately|almost)\s+|[~～≈]\s*",
    re.IGNORECASE,
)
_APPROXIMATE_WITHIN = 12


def approximate_figures(text: str) -> set[str]:
    """The figures a text writes as rough ones (see ``_APPROXIMATELY``), in ``numbers``' spelling."""
    return _figures_after(_APPROXIMATELY, text, _APPROXIMATE_WITHIN, stop="，,。；;")


def figure_readings(text: str) -> set[str]:
    """How a claim writes its figures, as ``unstated`` reads them (its ``approximate``): the rough
    ones (``approximate_figures``), each percentage it writes as a fall (``falling_figures``),
    marked by ``FALL`` before it, and each score in points out of 100 (``score_points``: "约 74 分"
    is a record's 74.0%), marked by ``POINTS``, and each bare decimal it may give for a score
    (``decimal_scores.score_decimals``: "scores 0.768" is a record's 76.8%), marked by ``SCORE``."""
    falls = {f"{FALL}{n}" for n in falling_figures(text)}
    scores = {f"{SCORE}{n}" for n in score_decimals(text)}
    return approximate_figures(text) | falls | {f"{POINTS}{n}" for n in score_points(text)} | scores


FALL = "-"
"""Marks a percentage the claim writes as a fall among its figures' readings."""
POINTS = "="
"""Marks a figure the claim writes as a score in points (分) among its figures' readings."""
SCORE = "^"
"""Marks a bare decimal the claim may give for a score among its figures' readings (``decimal_scores``)."""
_FALLS_BY = re.compile(
    r"(?:下降|降低|降|减少|缩短|削减|压缩|减)|\b(?:cut|cuts|reduc\w*|lower\w*|drop\w*|fall\w*|decreas\w*|shrink\w*)\b",
    re.IGNORECASE,
)
_FALL_WITHIN = 16
_FALLING_BEFORE = re.compile(
    r"(\d+(?:\.\d+)?\s*%)\s*(?:lower|less|fewer|smaller|shorter|cheaper|reduction|drop|decrease|cut)\b", re.IGNORECASE
)


def falling_figures(text: str) -> set[str]:
    """The percentages a text writes as a fall: after a word of falling ("TTFT 降 30%", "cuts
    TTFT by 30%") or before one ("30% lower latency"). A 30% cut is no 1.3x gain."""
    found = _figures_after(_FALLS_BY, text, _FALL_WITHIN, stop="，,。；;")
    found |= {n for m in _FALLING_BEFORE.finditer(text) for n in numbers(m.group(1))}
    return {n for n in found if n.endswith("%")}


def _near(number: str, stated: set[str]) -> list[str]:
    """The stated numbers of the same unit within 10% of ``number``: only they can be it rounded."""
    parsed = _parse(number)
    if parsed is None:
        return []
    value, unit, _ = parsed
    near = []
    for other in stated:
        theirs = _parse(other)
        if theirs is not None and theirs[1] == unit and abs(theirs[0] - value) <= abs(value) / 10:
            near.append(other)
    return near


def could_be_changed(new: str, old: str) -> bool:
    """Whether ``new`` can be ``old`` changed: one unit, within a factor of ten
    (a baseline's F1 of 0.28 is no change of a 1,200-item count)."""
    left, right = _parse(new), _parse(old)
    if left is None or right is None or left[1] != right[1]:
        return False
    low, high = sorted((abs(left[0]), abs(right[0])))
    return low > 0 and high <= low * _CHANGED_WITHIN


# Words by which a claim gives a figure as the one it replaces: 降低 24%（昨天报的是 31%）,
# （stephen 报的是 31%）, "now 24% (down from the 31% reported yesterday)", "24% (was 31%)",
# "24% rather than 31%", "24%, not 31% as first reported", "not the 31% first published", "(originally
# announced as 31%)", "revised to 24% from 31%", "now 47% (v1 said 41%)",
# "41%（10-05 为 38%）", "47%, was 41%", "41%（较 10-05 的 38%）", a release's "4.2 倍（1.0 版是 3.1 倍）";
# an earlier day in Chinese is any ``dates.CHINESE_DATE`` ("41%（10 月 5 日为 38%）", 较 9 月的).
_EARLIER = (
    rf"(?:{CHINESE_DATE}"
    r"|\d{1,2}[-/]\d{1,2}[日号]?|v\d+(?:\.\d+)*|\d+(?:\.\d+)+(?=\s*版)|[上前昨]\S{0,2}?(?:天|日|周|次|版|期|篇)|初版|首版|旧版|第一版"
    r"|earlier|before|first|originally|initially|yesterday|last\s+(?:week|time|version|release|report))"
)
# How a figure is told, for "not the 12,000 first published", "originally announced as 12,000".
_TOLD = r"(?:reported|published|announced|stated|claimed|quoted|given|listed|advertised|cited)"
_REPLACED_BEFORE = re.compile(
    r"(?:昨天|昨日|此前|之前|先前|原先|原来|上次|早先|曾经?)\s*(?:报告|报|给出|公布|说)?的?\s*(?:是|为)?"
    r"|(?:报告|报|给出|写|说)的是|原(?:本)?(?:为|是)|原(?:本)?报(?:告)?的?(?:为|是)?|而(?:不是|非)|不是此前"
    r"|down from|up from|revised from|corrected from|previously|rather than|instead of|[(（]\s*was\b"
    rf"|\bnot\s+(?:the\s+)?(?=\S+\s+(?:as\s+)?(?:(?:first|originally|initially|earlier|previously)\s+)?{_TOLD})"
    rf"|\b(?:first|originally|initially|earlier|previously)\s+{_TOLD}\s+(?:as|at)\b"
    r"|\b(?:revised|corrected|adjusted|updated|restated|amended)\s+(?:(?:down|up)(?:wards?)?\s+)?to\s+(?:[^,;，；()]|,(?=\d)){1,20}?\s+from\b"
    rf"|[(（]\s*{_EARLIER}\s*(?:时|的|版本?)?\s*(?:为|是|报|给出|写|说|[:：]|said|reported|had|was|gave|stated|claimed)"
    r"|[(（][^()（）\d%]{0,20}?\b(?:said|reported|claimed|stated|gave|had)\b|[,;，；]\s*was\s+(?=[~≈]?\d)"
    rf"|较\s*{_EARLIER}\s*的",
    re.IGNORECASE,
)
_REPLACED_WITHIN = 24
"""Characters after such words in which the replaced figure is read."""
# 从 31% 修正为 24%: the figure a correction starts from (not 从 26% 提升到 90%, a result).
_CORRECTED_FROM = re.compile(r"[从由]\s*([^，,。；;]{1,12}?)\s*(?:修正|更正|改|调整|下调|上调)(?:为|到|至|成)")


def replaced_figures(text: str) -> set[str]:
    """The figures a claim says it replaces (see ``_REPLACED_BEFORE``), in ``numbers``' spelling."""
    found = _figures_after(_REPLACED_BEFORE, text, _REPLACED_WITHIN)
    for corrected in _CORRECTED_FROM.finditer(text):
        found |= numbers(corrected.group(1))
    return found


_SET_AGAINST = re.compile(SET_AGAINST, re.IGNORECASE)


def set_against(text: str) -> set[str]:
    """The figures a text sets against another (``quoted_figures.SET_AGAINST``), in ``numbers``'
    spelling: a bound ("below 10%") or another source's figure that the text's own one differs from
    ("28% TTFT drop, below the 35% in the release note", "只下降 28%，低于官方所说的 35%", "厂商口径为 38 分钟").
    Each is read alone and after its sentence's words before it, whose unit it may leave out ("22
    minutes a day, against the vendor's 38" is ``38min``: ``quoted_figures.elided_unit``)."""
    found: set[str] = set()
    for match in _SET_AGAINST.finditer(text):
        window = re.split("[，,。；;]", text[match.end() : match.end() + _REPLACED_WITHIN])[0]
        if _DIGIT.search(window):
            head = _SENTENCE_END.split(text[: match.end()])[-1]
            found |= numbers(window) | (numbers(head + window) - numbers(head))
    return found


_SENTENCE_END = re.compile(r"[。！？!?；;\n]")
_DIGIT = re.compile(r"\d")


def _figures_after(marker: re.Pattern[str], text: str, within: int, stop: str = "") -> set[str]:
    """The numbers in the ``within`` characters after each match of ``marker``, cut at
    the first of ``stop``'s characters."""
    found: set[str] = set()
    for match in marker.finditer(text):
        window = text[match.end() : match.end() + within]
        found |= numbers(re.split(f"[{stop}]", window)[0] if stop else window)
    return found


def new_figures(
    claimed: set[str], stated: Iterable[str], replaced: Iterable[str] = (), approximate: Iterable[str] = ()
) -> list[str]:
    """The claimed numbers that make a claim new against a record stating ``stated``.

    Every number the record lacks, unless the record states some of the claim's
    numbers and none it lacks can be a changed figure (a number the record states
    and the claim does not, of the same unit and size: 8 H200 → 4 H200). Then the
    claim restates a known result with more detail of it, as another writer of
    the same paper does. A stated figure the claim itself gives as the one it
    replaces (``replaced_figures``: 24%, "down from the 31%") counts as not restated.
    A quantisation width (``units.widths``: int4, FP8 and 4-bit are ``4bit``) is weighed
    only against a record stating a width (INT4 against its 2-bit is a changed figure):
    against one stating none it labels the precision the claim's figures are in ("int4
    量化后内存 0.6GB"), no result of its own (probe 48)."""
    said = list(stated)
    if not any(_WIDTH.fullmatch(n) for n in said):
        claimed = {n for n in claimed if not _WIDTH.fullmatch(n)}
    missing = unstated(claimed, said, approximate)
    if not missing or len(missing) == len(claimed):
        return sorted(missing)
    return sorted(missing) if changes_a_figure(missing, claimed, said, replaced, approximate) else []


_WIDTH = re.compile(r"\d+(?:\.\d+)?bit")
"""A quantisation width in ``numbers``' spelling (``4bit``, ``1.58bit``)."""


def changes_a_figure(
    missing: Iterable[str],
    claimed: Iterable[str],
    stated: Iterable[str],
    replaced: Iterable[str] = (),
    readings: Iterable[str] = (),
) -> bool:
    """Whether a number the record lacks can be one of its figures that the claim
    does not restate, or gives as replaced, changed (8 H200 → 4 H200). A claim that
    restates the record's scores on their other scale (0.79 for its 79%: ``decimal_scores``)
    writes its changed ones so too: its 0.834 is the record's 81.2% changed; ``readings``:
    the claim's (``figure_readings``)."""
    stated, claimed, readings = list(stated), set(claimed), set(readings)
    scores = {f"{SCORE}{n}" for n in stated}  # a record's decimal the claim gives as a percentage is restated
    left_out = unstated(stated, claimed, scores) | (set(replaced) - unstated(replaced, stated))
    if _rescaled(claimed - set(missing), stated, readings):
        missing = {form for n in missing for form in (n, *_scaled(n, readings))}
    return any(could_be_changed(n, m) for n in missing for m in left_out)


def _rescaled(restated: set[str], stated: list[str], readings: set[str]) -> bool:
    """Whether a figure the claim restates is one the record states on a score's other scale only."""
    said = set(stated)

    def stated_as(form: str) -> bool:
        return any(same_figure(form, m) for m in _near(form, said))

    return any(
        not any(stated_as(form) for form in one_figure_as(n)) and any(stated_as(form) for form in _scaled(n, readings))
        for n in restated
    )


def added_counts(
    missing: Iterable[str], claimed: Iterable[str], stated: Iterable[str], replaced: Iterable[str] = ()
) -> bool:
    """Whether the numbers a record lacks only count what a restated claim adds in detail
    (a dataset of 10,000 queries, 18 models compared): each a whole count with no unit,
    none of them a stated count changed (8 → 4 H200). A measured result (a percentage,
    a speed-up, a score) is never detail."""
    missing = list(missing)
    if not missing or not all(is_count(n) for n in missing):
        return False
    return not changes_a_figure(missing, claimed, stated, replaced)


def is_count(number: str) -> bool:
    """Whether a number is a whole count with no unit (10,000 queries, 1.2M documents, 0.9T tokens)."""
    parsed = _parse(number)
    return parsed is not None and parsed[1] == "" and parsed[0] == parsed[0].to_integral_value()

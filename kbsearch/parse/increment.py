"""One briefing increment: its header line and its labelled fields.

Writers vary the punctuation (：/:), put fields on one line or several, and
write key points either as an inline ``- a - b`` run or as bullet lines, so the
reading here is by label, not by fixed position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kbsearch.parse.common import clean_line
from kbsearch.parse.source_labels import about_part
from kbsearch.text.ids import extract_arxiv_ids

# 增量 1：… / 增量 1【…】 / ### 增量 1: … / **增量 1**：…, but not 增量 5 条 (a count).
INCREMENT_HEADER = re.compile(
    r"^[ \t]*(?P<hashes>#{1,6})?[ \t]*(?:\*\*)?增量[ \t]*(?P<num>\d{1,4})(?:\*\*)?"
    r"(?P<rest>(?:(?=[ \t]*[：:【\[（(.、—]|[ \t]*$)|[ \t]+(?![ \t]|[条件个项])).*)$",
    re.MULTILINE,
)

_LABELS: dict[str, str] = {
    "sources": r"来源|出处",
    "points": r"(?:关键|核心)?要点",
    "credibility": r"可信度",
    "relation": r"与活文档[^：:\n]{0,40}?(?:关系|脉络)",
    "section": r"建议归入(?:章节|小节|节)?",
    "tldr": r"TL;?DR|一句话总结",
    "warning": r"警示|风险提示",
    "category": r"主分类",
    "tags": r"副分类",
    "form": r"形态",
    "arxiv": r"arXiv\s*(?:ID|号)?",
}
# An optional （…） after the label carries provenance, e.g. TLDR（来源：jay）：
_LABEL_LINE = re.compile(
    r"^\s*(?P<bullet>[-*•]\s+)?(?:\*\*)?(?P<label>"
    + "|".join(f"(?P<{key}>{pattern})" for key, pattern in _LABELS.items())
    + r")\s*(?:[（(][^）)\n]{0,80}[）)])?\s*(?:\*\*)?\s*[：:]\s*(?:\*\*)?\s*(?P<value>.*)$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)、])\s+")
_INLINE_SEP = re.compile(r"\s+-\s+")
_STAR = re.compile(r"[⭐★]")
_BLOCK = re.compile(r"【([^】]*)】")
_PAREN = re.compile(r"[（(]([^（）()]*)[）)]")
_ID_MENTION = re.compile(r"(?:arxiv\s*(?:id|号)?\s*[:：]?\s*)?\d{4}\.\d{4,5}(?:v\d+)?", re.IGNORECASE)
# Markers and emoji carry status, not title meaning (🟢, ⚠️, ✅, ☆, ZWJ...).
_DECORATION = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]")
_ANCHOR_MARKERS = ("首次锚入", "本次新增", "净增", "首次", "新增")
# A tag of its own in a header's （…） or a later 【…】: 本次新增, or 本次新增，⭐⭐.
_TAG_PART_SPLIT = re.compile(r"[,，;；、/|]")
_TAGS = re.compile(r"【([^】]*)】|[（(]([^（）()]*)[）)]")
_SECTION_REF = re.compile(r"§\s*\d+(?:\.\d+)*")
# Where a header's 【 left open would have closed: before the status dot (🟢, 🟡, …)
# that follows the block, or after an area, a section and a status word.
_STATUS_DOT = re.compile(r"[\U0001F7E0-\U0001F7EB\U0001F534\U0001F535\u26AA\u26AB]")
_STATUS_WORDS = (*_ANCHOR_MARKERS, "补强", "邻接", "行业信号")
_OPEN_BLOCK = re.compile(
    r"(?P<block>[^§【】]{0,40}§\s*\d+(?:\.\d+)*(?:[ \t]+(?:" + "|".join(_STATUS_WORDS) + r"))?)[ \t]+\S"
)
_MULTI_FIELD_LABELS = {"category", "tags", "form"}
# Fields whose bullets (also "- a - b" on one line) are separate items.
_LIST_FIELDS = ("points", "sources", "warning")


@dataclass
class Header:
    number: int
    title: str
    stars: int | None
    anchor: str | None
    section_hint: str | None
    raw: str
    problem: str | None = None
    """What is wrong with the line though it was read (a 【 left open), for a warning."""


@dataclass
class Fields:
    values: dict[str, list[str]] = field(default_factory=dict)
    current: str | None = None

    def add(self, key: str, value: str) -> None:
        self.values.setdefault(key, []).append(value)

    def get(self, key: str) -> list[str]:
        return self.values.get(key, [])

    def text(self, key: str) -> str | None:
        joined = "\n".join(v for v in self.get(key) if v)
        return joined or None


def read_header(line: str) -> Header | None:
    match = INCREMENT_HEADER.match(line)
    if not match:
        return None
    rest, problem = _closed_block(match.group("rest"))
    block_match = _BLOCK.search(rest)
    block = block_match.group(1) if block_match else ""
    title = clean_title(_BLOCK.sub(" ", rest))
    stars = len(_STAR.findall(rest)) or None
    section = _SECTION_REF.search(block)
    return Header(
        number=int(match.group("num")),
        title=title,
        stars=stars,
        anchor=_anchor(block) or _tag_anchor(rest),
        section_hint=section.group(0).replace(" ", "") if section else None,
        raw=line,
        problem=problem,
    )


def _closed_block(rest: str) -> tuple[str, str | None]:
    """The header's text after 增量 N with a 【 left open closed where it can be
    told, and what was wrong; a title of 【KV Cache · §1.3 Title… would hold the
    block, and the block's section and marker would be lost."""
    opened = rest.rfind("【")
    if opened < 0 or "】" in rest[opened:]:
        return rest, None
    inside = rest[opened + 1 :]
    dot, block = _STATUS_DOT.search(inside), _OPEN_BLOCK.match(inside)
    end = dot.start() if dot else block.end("block") if block else 0
    if not inside[:end].strip():
        return rest, "leaves 【 open, and where it would close cannot be told: the title keeps it (close it with 】)"
    closed = inside[:end].strip()
    return f"{rest[:opened]}【{closed}】{inside[end:]}", f"leaves 【 open: read as 【{closed}】 (close it with 】)"


def clean_title(text: str) -> str:
    text = _PAREN.sub(_keep_meaningful_paren, text)
    text = _DECORATION.sub("", text).replace("**", "")
    text = clean_line(text)
    # The separator after 增量 N and any trailing heading hashes are syntax.
    return text.lstrip("：:.、—-– ").rstrip("#： ").strip()


def _keep_meaningful_paren(match: re.Match[str]) -> str:
    inner = match.group(1)
    parts = [part.strip() for part in _TAG_PART_SPLIT.split(_STAR.sub("", inner))]
    marker = any(part in _ANCHOR_MARKERS for part in parts)
    if not _STAR.search(inner) and not marker:
        return match.group(0)
    # （arXiv 2609.19671，⭐⭐⭐⭐） only rates and locates: the ids are kept elsewhere.
    # （本次新增，⭐⭐⭐） is a tag, read as the anchor (``_tag_anchor``), not words of the title.
    leftover = _ID_MENTION.sub("", "，".join(part for part in parts if part not in _ANCHOR_MARKERS))
    leftover = re.sub(r"[\s,，;；/、|]+", " ", leftover).strip()
    return f"（{leftover}）" if leftover else ""


def _anchor(text: str) -> str | None:
    return next((marker for marker in _ANCHOR_MARKERS if marker in text), None)


def _tag_anchor(text: str) -> str | None:
    """A marker standing alone as a tag; a word of the title's prose (新增 SGLang
    后端, 首次支持 FP8) says what the item adds, not that it is new."""
    for match in _TAGS.finditer(text):
        inner = _STAR.sub("", match.group(1) or match.group(2) or "")
        parts = {part.strip() for part in _TAG_PART_SPLIT.split(inner)}
        found = next((marker for marker in _ANCHOR_MARKERS if marker in parts), None)
        if found:
            return found
    return None


def read_fields(lines: list[str]) -> Fields:
    fields = Fields()
    for line in lines:
        if line.strip():
            _read_line(fields, line)
    return fields


def _read_line(fields: Fields, line: str) -> None:
    match = _LABEL_LINE.match(line)
    # Inside 要点 a bullet is a key point, even one that starts with 可信度：.
    if match and not (match.group("bullet") and fields.current == "points"):
        key = next(k for k in _LABELS if match.group(k) is not None)
        _add_labelled(fields, key, match.group("value"))
        return
    _add_continuation(fields, line)


def _add_labelled(fields: Fields, key: str, value: str) -> None:
    fields.current = key
    if key in _MULTI_FIELD_LABELS:
        _add_multi(fields, key, value)
    elif key in _LIST_FIELDS:
        for item in split_inline(value):
            fields.add(key, item)
    else:
        fields.add(key, "\n".join(split_inline(value)))


def _add_multi(fields: Fields, key: str, value: str) -> None:
    # 主分类： inference；形态： method/paper；副分类： kv-cache, rag
    first, *others = re.split(r"[；;]", value)
    fields.add(key, clean_line(first))
    for other in others:
        match = _LABEL_LINE.match(other)
        if match:
            sub = next(k for k in _LABELS if match.group(k) is not None)
            fields.add(sub, clean_line(match.group("value")))


def _add_continuation(fields: Fields, line: str) -> None:
    key = fields.current or "intro"
    is_bullet = bool(_BULLET.match(line))
    item = clean_line(_BULLET.sub("", line, count=1))
    items = fields.values.setdefault(key, [])
    if key in _LIST_FIELDS and (is_bullet or not items):
        items.append(item)
    elif items:
        # A wrapped line or a table row continues the previous item.
        sep = " " if key in _LIST_FIELDS else "\n"
        items[-1] = f"{items[-1]}{sep}{item}".strip()
    else:
        items.append(item)


def split_inline(value: str) -> list[str]:
    """``- a - b`` → [a, b]; any other value is one item."""
    value = value.strip()
    if not re.match(r"^[-•]\s", value):
        return [clean_line(value)] if value else []
    parts = _INLINE_SEP.split(value[1:].strip())
    return [clean_line(p) for p in parts if clean_line(p)]


def subject_ids(header: Header, fields: Fields) -> list[str]:
    """The ids an increment is about: in its title, 来源 or arXiv ID lines, but not those a
    source labels as what the item builds on or is compared with (``source_labels``)."""
    texts = [header.raw, *map(about_part, fields.get("sources")), *fields.get("arxiv")]
    texts += [p for p in fields.get("points") if re.match(r"arxiv\s*(?:id|号)?\s*[：:]", p, re.I)]
    return extract_arxiv_ids("\n".join(texts))


def all_ids(header: Header, lines: list[str]) -> list[str]:
    return extract_arxiv_ids("\n".join([header.raw, *lines]))

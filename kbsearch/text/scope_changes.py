"""A widened scope a claim tells, which no record of the item states.

"新增：冻结范围扩展到存储网络的交换机和存储节点固件" came out known (0.79 by the judge's cosine)
against "Korvane will not upgrade switch firmware while any training run longer than 7 days is
active", which never says storage (probe 44): the two share the policy, its subject and its
firmware, and the decision read the widened policy as the policy first told. A changed figure,
stage, licence, level or cadence is news by its own reader (``quantities``, ``stages``,
``switches``, ``scale_changes``); this is the same reading for a scope told to have grown:
"now also covers X", "now applies to X", "was extended to X", "no longer limited to Y",
"范围扩大到 X", "适用范围扩展至 X", "范围：从 Y 扩大到 X", "也适用于 X", "X 也纳入", "不再局限于 Y".

Read only where the text tells the scope grew, not where it states one: "covers A and B" is
no change, and a claim restating it is known as before. A widening said to be to come ("will
be extended to", "计划扩展到", ``later_steps.NOT_YET``) is none. A Chinese widening by verb alone
needs a word of scope before it (范围, 覆盖, 适用): "将方法扩展到多模态" is a paper's method,
"规模扩大到 1000 卡" a figure (``quantities``), and so is a scope grown from a figure to a figure
("覆盖范围从 300 台扩大到约 900 台"; probe 48 had "范围：从仅限新建的克隆扩大到所有账户" unread).

The widening is news unless the passage weighed or a record of the item states X:
- in the claim's language, by X's words (``lexical_tokens``, Chinese by character pairs, without
  the joining characters 的 和 与 及 或): at most a third of them missing from the records
  together. "The freeze covers switch and storage firmware" states "now also covers storage
  firmware"; "freezes switch firmware" does not.
- in the other language, by what keeps its spelling or has a listed form there, as the other
  readers read across languages (``switches``: a name; ``terms``: the field's terms in each
  form): every name and term of X written by a record. Where X carries neither, the records
  state it when one of them tells a widening itself, as a retelling of the same news does: a
  record that already told the scope grew makes "now also" a restatement, whatever its words.
"No longer limited to Y" names no X: it is stated by a record that tells a widening too.
"""

from __future__ import annotations

import re

from kbsearch.text.folding import fold
from kbsearch.text.later_steps import NOT_YET
from kbsearch.text.terms import forms_in
from kbsearch.text.textsim import language, lexical_tokens

_X = r"(?P<x>[^，,。；;：:.!?！？()（）\n]{2,60})"
"""What the scope grew to: up to the clause's end."""
_WIDENINGS = (
    # "now also covers X", "now applies to X", "also now extends to X", "now includes X"
    re.compile(
        r"\b(?:now\s+(?:also\s+)?|also\s+now\s+)(?:covers?|applies\s+to|appl(?:y|ies)\s+(?:as\s+well\s+)?to"
        rf"|includes?|extends?\s+to|spans?|reaches)\s+{_X}",
        re.IGNORECASE,
    ),
    # "(its scope) was extended to (cover) X", "expanded the freeze to X", "widened to include X"
    re.compile(
        r"\b(?:extended|expanded|widened|broadened)\b(?:\s+(?:its|the|their)\s+(?:scope|coverage|reach))?"
        rf"\s+to\s+(?:(?:also\s+)?(?:cover|include|apply\s+to)\s+)?{_X}",
        re.IGNORECASE,
    ),
    # "no longer limited to Y": the scope grew beyond Y, to what is not said
    re.compile(r"\bno\s+longer\s+(?:limited|restricted|confined|just|only)\s+to\s+(?P<y>[^,;.()\n]{2,60})", re.I),
    # 范围扩大到 X, 适用范围扩展至 X, 覆盖面延伸到 X
    re.compile(
        r"(?:范围|覆盖|适用)[^，,。；;：:]{0,6}?(?P<v>扩大|扩展|扩充|延伸|拓展|推广|放宽|扩)(?:到|至)"
        r"(?P<zx>[^，,。；;：:（()）\n]{1,40})"
    ),
    # 范围从 Y 扩大到 X, 适用范围：由 Y 扩展至 X: what it grew from between (not 从 420 台扩大到 1000 台,
    # a figure: ``_figure_from``). The scope word may be a key point's field (范围：从 …).
    re.compile(
        r"(?:范围|覆盖|适用)[^，,。；;：:]{0,6}?(?:[：:]\s*)?[从由](?P<zy4>[^，,。；;：:（()）\n]{1,40}?)\s*"
        r"(?P<v>扩大|扩展|扩充|延伸|拓展|推广|放宽|扩)(?:到|至)(?P<zx4>[^，,。；;：:（()）\n]{1,40})"
    ),
    # 也适用于 X, 还覆盖 X, 同样涵盖 X. Not 也纳入 X ("NVMe 盘也纳入冻结" names the policy after
    # it), nor 还包含 X: "图像还包含语义分割标注" describes a dataset (the dev digests' one firing).
    re.compile(r"(?:也|还|亦|同样|一并)\s*(?:适用于|覆盖|涵盖)\s*(?P<zx2>[^，,。；;：:（()）\n]{1,40})"),
    # X 也纳入（其中）, X 也被纳入
    re.compile(r"(?P<zx3>[^，,。；;：:（()）\n]{1,40}?)\s*(?:也|亦|同样|一并)被?纳入"),
    # 不再局限于 Y, 不再限于 Y, 不再仅限 Y
    re.compile(r"不再(?:仅)?(?:局限于|限于|仅限于?|只限于?)\s*(?P<zy>[^，,。；;：:（()）\n]{1,40})"),
)
_FIGURE = re.compile(r"[\d$€£¥]")
_JOINING = re.compile(r"[的和与及或、]")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]*[A-Za-z0-9+]")
_MISSING = 1 / 3
"""The share of X's words a record may word otherwise and still state it."""


def widenings(text: str) -> list[tuple[str, str]]:
    """Each widening ``text`` tells as done, in order: (what it grew to, X or "" when unsaid;
    what it is no longer limited to, Y or "")."""
    # By where the verb is: a widening told from Y (范围从 Y 扩大到 X) is read once, with its Y.
    found: dict[int, tuple[int, str, str] | None] = {}
    for pattern in _WIDENINGS:
        for m in pattern.finditer(text):
            verb = m.start("v") if m.groupdict().get("v") else m.start()  # "范围计划扩展到": not yet
            if NOT_YET.search(text[max(0, verb - 24) : verb]):
                continue
            group = m.groupdict()
            x = next((group[k] for k in ("x", "zx", "zx2", "zx3", "zx4") if group.get(k)), "") or ""
            y = next((group[k] for k in ("y", "zy", "zy4") if group.get(k)), "") or ""
            # "expanded to 60,000 GPUs", "从 420 台扩大到约 1000 台": figures, which ``quantities`` reads
            figure = _FIGURE.match(x.strip()) or (group.get("zy4") and _FIGURE.search(y) and _FIGURE.search(x))
            found[verb] = None if figure else (m.start(), x.strip(), y.strip())
    return [(x, y) for _, x, y in sorted(f for f in found.values() if f is not None)]


def _words(x: str) -> set[str]:
    return lexical_tokens(_JOINING.sub(" ", x))


def _names(x: str) -> set[str]:
    """X's names: what keeps its spelling across languages (a capital or a digit, not a lone letter)."""
    return {t.lower() for t in _NAME.findall(x) if any(c.isupper() or c.isdigit() for c in t)}


def _states(x: str, texts: list[str], claim_language: str) -> bool:
    """Whether ``texts`` together state the widened scope X (see the module)."""
    if not x:
        return any(widenings(text) for text in texts)
    own = [t for t in texts if language(t) == claim_language]
    words = _words(x)
    if words and own:
        held = set().union(*(_words(t) for t in own))
        if len(words - held) <= _MISSING * len(words):
            return True
    other = [t for t in texts if language(t) != claim_language]
    if not other:
        return False
    names, terms = _names(x), forms_in(x)
    if not names and not terms:
        return any(widenings(text) for text in other)
    written = fold(" ".join(other))
    return all(fold(n) in written for n in names) and all(term.pattern.search(written) for term in terms)


def scope_widened(claim: str, passage: str, records: list[str]) -> str | None:
    """ "scope → also <X>" (or "scope → beyond <Y>") when the claim tells its item's scope grew
    and neither ``passage`` nor any of ``records`` states it (see the module); else None."""
    texts = [passage, *records]
    for x, y in widenings(claim):
        if not _states(x, texts, language(claim)):
            return f"scope → also {x[:40]}" if x else f"scope → beyond {y[:40]}"
    return None

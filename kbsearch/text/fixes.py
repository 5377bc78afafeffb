"""Whether a claim says a fix of what the passage weighed tells as an open issue: "the
rc2 issue of leaked file handles is fixed in 2.0" against "Known issue in rc2: …".

The claim decision reads the two as one sentence (they name the same fault in nearly the
same words), so a fix came out known and an UPDATE a DUPLICATE (probe 32). ``fix_moved``
tells them apart (``later_steps``), as ``stages.moved_on`` does for a later stage. ``stages.untold`` reads a
fix only of what the claim itself calls a bug or a regression, and only when no record
mentions any: here the record names the fault, as an issue, and no fix.

Read narrowly on the passage's side, since papers say "bug" and "regression" in other
senses (a benchmark of real bugs, linear regression): a known or open issue, bug or
regression, or a bug or regression "in"/"where" something (已知问题, 存在…bug). On the claim's
side, a fix reached in the ordinary words (fixed, resolved, patched, 已修复, 已解决), not
one to come ("will be fixed in rc3", "尚未修复"). A passage that tells a fix itself, in any
words, is the same step restated.
"""

from __future__ import annotations

import re

from kbsearch.text.later_steps import NOT_YET, LaterStep

FIXED = "known issue → fixed"
"""What ``fix_moved`` returns, shown as the claim's move."""

_OPEN = re.compile(
    r"\bknown (?:issues?|bugs?|problems?|regressions?)\b|\b(?:open|outstanding|unresolved|unfixed) (?:issues?|bugs?)\b"
    r"|\b(?:a|an|the|one) (?:[\w-]+ )?(?:bug|regression) (?:in|where|that|which|causing|when)\b"
    r"|已知(?:问题|缺陷|故障|回归|bug)|(?:存在|引入了?|出现了?)[^，。；,;]{0,12}(?:bug|性能回归|回归问题|崩溃)",
    re.IGNORECASE,
)
_LINEAR = re.compile(r"\b(?:linear|logistic|ridge|lasso|kernel|symbolic|quantile|ordinal) regression", re.IGNORECASE)
"""A statistical regression, not a software one."""
_FIX = re.compile(
    r"\b(?:(?:is|are|was|were|been|now|got) (?:now )?(?:fixed|resolved|patched)"
    r"|(?:fix|resolve|patch)(?:e[sd]|ed|s)? (?:the|this|that|its|their|a|an) (?:[\w-]+ ){0,3}"
    r"(?:issues?|bugs?|regressions?|problems?|flaws?|vulnerabilit(?:y|ies))"
    r"|(?:fix|patch)(?:e[sd]|ed|s)? CVE-\d{4}-\d+)\b"  # an advisory's fault, by its words or its id
    r"|\bfixed in\b|已(?:被|经)?(?:修复|解决)|修复了|得到(?:修复|解决)|被修复",
    re.IGNORECASE,
)
_FIX_TOLD = re.compile(r"\b(?:fix|patch|resolv|hotfix)|修复|解决|修正|补丁", re.IGNORECASE)
"""A fix a passage tells in any words: then the claim restates it. Not under a "not yet"
("No patched release yet", 尚未修复: the issue is open), and not a workaround: a way around
an open issue is no fix of it (probe 40: "no patched release yet; workaround is to run
without the flag" was read as telling the fix, so the fix in 2.3.1 came out known)."""
_ADVISORY = re.compile(r"\b(?:CVE-\d{4}-\d{4,}|GHSA(?:-[0-9a-z]{4}){3}|security advisory)\b|安全公告", re.IGNORECASE)
"""An advisory names an open issue: a vulnerability by its id is open until a release fixes it.
Not the bare word: papers reveal "vulnerabilities" of models (162 of the 44,139 dev texts) that
no release fixes."""
_PATCH = re.compile(r"\b(?:fix|patch|hotfix)|修复|补丁", re.IGNORECASE)
"""A fix's own words, which a "not yet" makes a fix lacking (not "resolve", 解决: a paper's
"问题仍未解决" is a problem unsolved, no software issue)."""
_LACKING_AFTER = re.compile(
    r"\w*(?:\s+\w+){0,3}?\s+(?:yet|not yet|pending|is not|isn't|are not|aren't)\b|\w*\s*(?:尚未|未|待)"
)


def _fix_words(text: str) -> tuple[bool, bool]:
    """Whether ``text`` says a fix is lacking ("no patch yet", 尚未修复), and whether it tells one."""
    lacking = told = False
    for found in _FIX_TOLD.finditer(text):
        before = NOT_YET.search(text[max(0, found.start() - 24) : found.start()])
        # 未来 is "future", no "not yet": "预测未来的图像补丁" lacks no fix
        held = (before and not before.group(0).startswith("未来")) or _LACKING_AFTER.match(
            text, found.start(), found.start() + 40
        )
        lacking = lacking or bool(held and _PATCH.match(text, found.start()))
        told = told or not held
    return lacking, told


def _open(text: str) -> bool:
    """Whether a passage tells an issue as open: a known issue or bug, an advisory, or a fix it says is lacking."""
    return _OPEN.search(_LINEAR.sub(" ", text)) is not None or _ADVISORY.search(text) is not None or _fix_words(text)[0]


FIX = LaterStep(
    FIXED,
    _FIX,
    NOT_YET,
    earlier=_open,
    told=lambda text: _fix_words(text)[1],
)
fix_moved = FIX.moved
fix_told = FIX.told_by

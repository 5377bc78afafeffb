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
    r"(?:issues?|bugs?|regressions?|problems?))\b"
    r"|\bfixed in\b|已(?:被|经)?(?:修复|解决)|修复了|得到(?:修复|解决)|被修复",
    re.IGNORECASE,
)
_FIX_TOLD = re.compile(r"\b(?:fix|patch|resolv|hotfix|workaround)|修复|解决|修正|补丁|规避", re.IGNORECASE)
"""A fix a passage tells in any words: then the claim restates it."""


FIX = LaterStep(
    FIXED,
    _FIX,
    NOT_YET,
    earlier=lambda text: _OPEN.search(_LINEAR.sub(" ", text)) is not None,
    told=lambda text: _FIX_TOLD.search(text) is not None,
)
fix_moved = FIX.moved
fix_told = FIX.told_by

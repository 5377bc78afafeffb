"""A later step a claim tells of what a passage told at an earlier one, read by words.

Two such tracks sit outside ``stages`` (its releases and deals): a known issue then its fix
(``fixes``), a rumour then its confirmation (``rumours``). Each is read the same way: the claim
says the step made, not one to come ("will be fixed", 尚未证实); the passage tells the earlier
state and not the step. The claim decision reads the two as one sentence (they name the same
fault, the same chip), so the step is news only by these words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

NOT_YET = re.compile(
    r"(?:\b(?:not|no|nothing|never|neither|would neither|yet to|will|to be|expected to|about to|plans? to|upcoming"
    r"|declined to|refused to|expects?|promise[sd]? to|pending|awaiting|seeking"
    r"|(?:is|are|was|were) (?:set|due) to)\b|n't"
    r"|未|尚无|尚未|暂无|并未|没有|还没|将于|将在|将会|将随(?!机)|即将|预计|计划|待|准备|拒绝|不予|有望|承诺(?!的)|等待"
    r"|(?<![模虚比草])拟(?=于|在|将|今|明|年内|发布|开源|上线|推出|上市|提交|申报|公开|放出|上传))[^,.;:，。；：!?！？]{0,12}$"
    r"|将\s*$",
    re.IGNORECASE,
)
"""The words before a step that say it is to come or lacking, in every track (``stages``' releases,
a fix, a confirmation): "will be fixed in rc3", "尚未证实", "has not confirmed", "declined to
confirm", "计划开源", "即将发布", "拟于 2027 年开源", "有望年内获批", "expects FDA clearance",
"is due to ship"; not "承诺的技术报告如期上线" (the promise kept). A bare 将 only just before the
step (将修复): further off it is often the 把 of a done step ("已将该问题修复"). 拟 only before a
time or the step (拟于, 拟开源): not 模拟, 拟合 or 拟牛顿 (simulate, fit, quasi-Newton); and "due
to" alone is "because of"."""
_LOOK_BACK = 24
"""How far before a step's words a "not yet" is read ("has not yet been confirmed")."""


@dataclass(frozen=True)
class LaterStep:
    move: str
    """What ``moved`` returns, shown as the claim's move ("known issue → fixed")."""
    made: re.Pattern[str]
    """The step's words in a claim."""
    not_yet: re.Pattern[str]
    """Words just before ``made`` that say the step is to come or lacking."""
    earlier: Callable[[str], bool]
    """Whether a passage tells the earlier state (an open issue, a rumour)."""
    told: Callable[[str], bool] | None = None
    """Whether a passage tells the step itself, in any words: then the claim restates it
    (None: in the step's own words, as ``made_in`` reads them)."""

    def made_in(self, text: str) -> bool:
        """Whether ``text`` says the step was made, not that it is to come."""
        return any(
            self.not_yet.search(text[max(0, m.start() - _LOOK_BACK) : m.start()]) is None
            for m in self.made.finditer(text)
        )

    def moved(self, claim: str, passage: str) -> str | None:
        """``move`` when the claim says the step and the passage tells only the earlier state."""
        return self.move if self.made_in(claim) and self.earlier(passage) and not self._tells(passage) else None

    def told_by(self, claim: str, passage: str) -> bool:
        """Whether the passage tells the claim's step, or the claim tells none: vacuous for none."""
        return not self.made_in(claim) or self._tells(passage)

    def _tells(self, passage: str) -> bool:
        return self.made_in(passage) if self.told is None else self.told(passage)

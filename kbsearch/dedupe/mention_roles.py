"""What a record names only in a role: a name it derives from, compares with or disowns.

A model card names other models: the base it was fine-tuned from, the teacher it was
distilled from, the rival it beats, the predecessor it succeeds, the namesake it is not
("distilled from Kestrel-27B", "基于 Quell-7B 的数学微调", "比 Marrow-13B 高 9.8 分",
"与 Corvane Labs 的同名文本模型无关"). Probe 34: such a mention disarmed the rules that set two
records apart because "neither names the other's subject" (``subjects_differ``,
``model_codes.models_differ``), and a fine-tune, a distilled student, another lab's namesake
were each taken for the model they named (learned decision 0.70 to 0.99).

A mention in a role names another item; a record still names its own subject outside one
(a licence change of X, X's leaderboard entry, "X-3B, distilled from X-27B" names X-3B).
The roles are read by the existing readers: comparisons (``named_systems._CONTRAST``),
rivals a score is set against (``scores._RIVAL``), denials (``disowned._DISOWNS``); this
module adds only derivations and successions (``_DERIVED``), and the earlier deal a company's
news follows (``_EARLIER_DEAL``).
"""

from __future__ import annotations

import re

from kbsearch.dedupe.disowned import _DISOWNS
from kbsearch.dedupe.named_systems import _CONTRAST, _LISTED
from kbsearch.dedupe.scores import _RIVAL

# What a derivation or a succession names, possibly with its owner ("Quellmark's Quell-7B").
_OWNED = rf"(?:[A-Z][A-Za-z0-9&-]*['’]s\s+)?(?:the\s+)?({_LISTED})"
# "distilled from X", "fine-tuned from/on X", "based on X", "a fine-tune of X", "successor
# of X", "the second MoE family after X"; "X distilled into a 3B student" names the teacher
# as the object before "into". Chinese: 基于 X, 蒸馏自 X, 由/从 X 蒸馏, 在 X (之)上微调,
# 继 X 之后, X 的后继. "trained on" is left out: it names data, often the item's own.
_DERIVED = re.compile(
    r"(?i:\b(?:distill(?:ed|s|ing)?|fine-?tun(?:ed|es|ing)|finetun(?:ed|es|ing)|derived|pruned|initiali[sz]ed"
    r"|upcycled|merged|adapted)\s+from\s+"
    r"|\b(?:fine-?tun(?:ed|es|ing)|finetun(?:ed|es|ing)|based|built)\s+on\s+(?:top\s+of\s+)?"
    r"|\b(?:a\s+)?(?:fine-?tune|finetune|distillation|distilled\s+version|student|derivative|successor|follow-up)"
    r"\s+(?:of|to)\s+"
    r"|\b(?:second|third|fourth|next|another)\b[^\n.;:,]{0,40}?\bafter\s+"
    r"|\bdistill(?:ed|s|ing)?\s+(?=[^\n.;,]{1,40}?\binto\b))"
    + _OWNED
    + r"|(?:基于|蒸馏自|源自|继)\s*("
    + _LISTED
    + r")|(?:由|从|在)\s*("
    + _LISTED
    + r")\s*(?:之?上)?\s*(?:继续)?(?:蒸馏|微调|剪枝|量化得到)|("
    + _LISTED
    + r")\s*(?:的|之)(?:后继|继任|蒸馏版|微调版)"
)

# An earlier deal a record's news follows (probe 37: Merrowind's second acquisition, "after its
# Pintail deal"): "after/following its acquisition of X", "after the X deal", 继收购 X. It names the
# buyer's other item, not this one's counterpart (``counterparts``); "收购 X 后" is left out, as it
# also tells what the item's own deal leads to ("收购 Pintail 后团队并入").
_EARLIER_DEAL = re.compile(
    r"(?i:\b(?:after|following)\s+(?:its|their|the|his|her)\s+(?:(?:earlier|recent|previous|first|\S*\d\S*)\s+)*"
    r"(?:(?:acquisition|purchase|takeover|buyout)\s+of\s+"
    + _OWNED
    + r"|("
    + _LISTED
    + r")\s+(?:deal|acquisition|purchase|takeover|buyout)\b))"
    + r"|继(?:收购|并购)\s*("
    + _LISTED
    + r")"
)


def _spans(pattern: re.Pattern[str], text: str, groups: tuple[int | str, ...]) -> list[tuple[int, int]]:
    return [(m.start(g), m.end(g)) for m in pattern.finditer(text) for g in groups if m.group(g)]


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span written as spaces: its offsets kept, its names gone."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def unroled(text: str) -> str:
    """``text`` lower-cased, without the names it only derives from, compares with, sets a score
    against, disowns or follows as an earlier deal (see the module): where a rule looks for the
    other record's subject."""
    spans = _spans(_DERIVED, text, (1, 2, 3, 4))
    spans += _spans(_CONTRAST, text, (1, 2, 3))
    spans += _spans(_EARLIER_DEAL, text, (1, 2, 3))
    spans += _spans(_DISOWNS, text, tuple(range(1, (_DISOWNS.groups or 0) + 1)))
    lowered = _blank(text, spans).lower()
    return _blank(lowered, _spans(_RIVAL, lowered, ("rival",)))

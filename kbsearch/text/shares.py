"""A decimal fraction written for a share is that share as a percentage: "a success rate of
0.73" is the 73% another writer gives, "about 0.12 of the tokens" is 百分之十二 (12%).

``textsim.numbers`` reads such a fraction as the percentage, so both writers' figures meet in
one spelling. Only a fraction below 1 that the text gives for a share is read so: after a word
naming a share (a success, error or refusal rate, a share, fraction or proportion, accuracy,
成功率, 占比) in the same clause, or before "of the …" ("0.12 of the tokens"). Any other bare
decimal keeps its digits: a loss of 0.73, a p-value of 0.12, a scaling exponent of 0.12, a
price of $0.12 and a temperature of 0.7 are no shares, and read as 73% or 12% they would be
taken for another text's percentage of something else. So is a rate that is no share: a
learning, dropout or sampling rate, an exchange or interest rate.
"""

from __future__ import annotations

import re
from decimal import Decimal

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
# Words naming a share, right before the clause's fraction ("average rate of", "降到"); a rate's
# acronym in capitals too ("TPR 0.991 at an FPR of 0.001" is 误报率 0.1% 时检出率 99.1%: true and
# false positive rates, attack success, word and character error rates, equal error rate).
_SHARE_WORD = (
    r"(?<![A-Za-z])(?:rates?|share|fraction|proportion|percentage|accuracy|precision|recall)(?![A-Za-z])"
    r"|(?<![A-Za-z0-9])(?-i:TPR|FPR|TNR|FNR|FDR|ASR|WER|CER|EER|FAR|FRR)(?![A-Za-z0-9])"
    r"|成功率|准确率|正确率|召回率|精确率|精度|命中率|通过率|胜率|错误率|失败率|拒绝率|拒答率|误报率|漏报率"
    r"|覆盖率|利用率|采纳率|转化率|留存率|占比|比例|比率|份额"
)
# A rate that is no share of anything: a hyperparameter, a speed, a price of money. (The Chinese
# share words are whole words: 学习率, 汇率 are none of them.)
_NOT_A_SHARE = re.compile(
    r"(?:learning|dropout|sampling|sample|frame|bit|baud|refresh|clock|data|token|decay|exchange|interest|"
    r"tax|flow|heart|growth|burn|spending|request|arrival|update)[\s-]+rates?$",
    re.IGNORECASE,
)
# A quantity that is no share though a share's word or "of the" is near: "the exponent of 0.12 of
# the scaling law", "a loss of 0.3 on the share of code".
# A score (AUC, F1, BLEU) is no share either, but a percentage another writer may give (``decimal_scores``);
# the others are neither.
_NOT_SCORES = (
    r"exponents?|coefficients?|loss(?:es)?|p-?values?|p|temperature|slope|correlation|perplexity|"
    r"alpha|beta|lambda|weight|r²|r2|r(?=\s*=)|pearson|spearman|kendall|kappa|[ρτκ]"
)
_MEASURES = rf"(?:(?<![A-Za-z])(?:{_NOT_SCORES}|auc|f1|bleu)(?![A-Za-z0-9])|指数|系数|损失|温度|困惑度)"
_NO_SCORE = rf"(?:(?<![A-Za-z])(?:{_NOT_SCORES})(?![A-Za-z0-9])|指数|系数|损失|温度|困惑度)"
_MEASURE_BEFORE = re.compile(rf"{_MEASURES}[^,;:，。；：、\n]{{0,16}}$", re.IGNORECASE)
_NO_SCORE_BEFORE = re.compile(rf"{_NO_SCORE}[^,;:，。；：、\n]{{0,16}}$", re.IGNORECASE)
# A measure of a share is no share: "the fitted exponent for the synthetic share is 0.21".
_OF_SHARE = r"\s+(?:for|of|on|in)\s+(?:the\s+|a\s+|its\s+)?[^,;:，。；：、\n]{0,24}$"
_MEASURE_OF_SHARE = re.compile(_MEASURES + _OF_SHARE, re.IGNORECASE)
_NO_SCORE_OF_SHARE = re.compile(_NO_SCORE + _OF_SHARE, re.IGNORECASE)
# A quantity in a unit of its own: 0.47 mm, 0.8 kg, 0.35 元 (a price).
_UNIT_AFTER = re.compile(
    r"\s*(?:(?:mm|cm|km|nm|μm|kg|mg|g|ml|dB|eV|USD|dollars?|cents?)(?![A-Za-z])|°|元|美元|美金|毫米|厘米|千克|公斤|克)",
    re.IGNORECASE,
)
# Between the share's word and the fraction: words, other fractions (from 0.41 to 0.07), no other
# figure, no clause's end or closed bracket ("召回率（0.57→0.70）和 Dice 分数（0.50→0.58）": the Dice score is none).
_SHARE_BEFORE = re.compile(rf"({_SHARE_WORD})[^,;:，。；：、)）\n\d$¥€£]{{0,28}}$", re.IGNORECASE)
# "0.12 of the tokens", "0.3 of all documents", "0.12 of total wall-clock time", "0.4 of a GPU": a
# fraction of a whole, counted or not. "0.3 of a percentage point" is a change of points, and "0.5 of a
# second" a duration (another writer says 500 ms), so neither is a share.
_OF_AFTER = re.compile(
    r"\s+of\s+(?:(?:the|all|its|their|our|every|each|total|overall|whole|entire)\b"
    r"|an?\s+(?!(?:percentage\s+)?points?\b|percent\b|(?:milli|micro)?seconds?\b|minutes?\b"
    r"|hours?\b|days?\b|weeks?\b|months?\b|years?\b)|[a-z]+s\b)",
    re.IGNORECASE,
)
# What may follow a share's fraction: the clause's end, a word that goes on about it, Chinese. A
# line's end is a clause's: a record's key point ends its line ("accuracy 0.94\nAvailability: …"), and
# read as 0.94 there it missed its own key point's 94% (probe 50).
_ENDS_AFTER = re.compile(
    rf"[^\S\n]*(?:$|\n|[,;:.!?)\]，。；：！？）、（(]|[{_CJK}]"
    r"|(?:on|in|across|over|for|at|against|when|with|after|before|and|or|vs|versus|from|to|while|under|"
    r"among|which|that|but|compared|averaged|overall|on average)\b)",
    re.IGNORECASE,
)
# A share's change is no share: "recall improves by 0.12", "平均提升召回率 0.12", "增加 0.1 个百分点"
# (the 12-point gain, read as 12%, would be taken for a rise of 12%).
_BY_BEFORE = re.compile(r"\bby\s+(?:about|around|roughly|nearly|up\s+to|~)?\s*$", re.IGNORECASE)
_CHANGED_BY = re.compile(r"(?:提升|提高|增加|增长|降低|下降|减少|改善)[^到至为达是，。；,;]{0,8}$")
_POINTS_AFTER = re.compile(r"\s*(?:个?百分点|个点|pp\b|(?:percentage\s+)?points?\b)", re.IGNORECASE)
_FRACTION = re.compile(r"0\.\d{1,4}")
_PRICED = re.compile(r"[$¥€£]\s*$|(?:USD|US\$|RMB|EUR)\s*$")


def as_share(text: str, start: int, end: int) -> str | None:
    """The percentage ``text[start:end]`` (a bare decimal) stands for when the text gives it
    for a share (``0.73`` after "success rate of" → ``73``), else None."""
    value = text[start:end]
    if not _FRACTION.fullmatch(value) or Decimal(value) == 0 or _PRICED.search(text, 0, start):
        return None
    before = _FRACTION.sub("·", text[max(0, start - 48) : start])
    if _MEASURE_BEFORE.search(before) or _BY_BEFORE.search(before) or _CHANGED_BY.search(before):
        return None
    if _POINTS_AFTER.match(text, end):
        return None
    shared = _SHARE_BEFORE.search(before)
    if shared is not None and (
        _NOT_A_SHARE.search(before[: shared.end(1)]) or _MEASURE_OF_SHARE.search(before[: shared.start(1)])
    ):
        shared = None
    if shared is None and not _OF_AFTER.match(text, end):
        return None
    if shared is not None and not (_ENDS_AFTER.match(text, end) or _OF_AFTER.match(text, end)):
        return None  # "a rate of 0.5 tokens per step" measures, it shares nothing
    return format((Decimal(value) * 100).normalize(), "f")


def no_score(text: str, start: int, end: int) -> bool:
    """Whether the bare decimal ``text[start:end]`` is given for what no percentage measures, so
    another writer's percentage is never it (``decimal_scores``): a price or a quantity in a unit
    (0.47 mm), a loss, a p-value, an exponent, a temperature, a correlation, a change of a figure
    ("by 0.12", "提升 0.12", "0.1 个百分点") or a rate that shares nothing (a learning rate of 0.0003).
    A score is no share (``as_share`` leaves AUC 0.93 its digits) but may be one: its percentage."""
    if _PRICED.search(text, 0, start) or _UNIT_AFTER.match(text, end) or _POINTS_AFTER.match(text, end):
        return True
    before = _FRACTION.sub("·", text[max(0, start - 48) : start])
    if _NO_SCORE_BEFORE.search(before) or _NO_SCORE_OF_SHARE.search(before):
        return True
    if _BY_BEFORE.search(before) or _CHANGED_BY.search(before):
        return True
    shared = _SHARE_BEFORE.search(before)
    return shared is not None and _NOT_A_SHARE.search(before[: shared.end(1)]) is not None

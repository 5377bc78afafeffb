"""Numbers that label or version something rather than state a result.

A figure, table, section, issue, step or trial phase number (Figure 10, 表2, §3.3, Phase 1b), a
product's version (vLLM 0.4, Apache 2.0, 2.x, "introduced in 0.9", CrewForge 从 3.0 起, 0.4 版, Halo OS 4.2)
and a licence's (BSL 1.1, CC-BY 4.0) are
no news when new; ``textsim.numbers`` skips each number ``is_label`` calls one. Read from the text
right before and after the number, by how names, metrics and releases are spelled."""

from __future__ import annotations

import re

from kbsearch.text.chinese_releases import released_in_chinese

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # the ideographs, as ``textsim`` reads Chinese

# A number that labels a figure, table, section, issue or step, or versions a
# product (Apache 2.0, v0.26.0), is not a result: a new one is no news.
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:fig(?:ure)?|tab(?:le)?|sec(?:tion)?|eq(?:uation)?|appendix|chapter|issue|pr|pull|step|line|"
    r"page|listing|algorithm|theorem|lemma|version|ver|release|v)\.?|[图表节章第]|附录|公式|版本)\s*$",
    re.IGNORECASE,
)
# A trial's phase, its numeral after Phase or Ph (Phase 1b, Ph2a) and ending there, or before 期
# (1b 期, 2a期, 3 期临床): the 1b of "Phase 1b" is no billion (``ordinals``, probe 50). "two-phase 3x
# faster" is a speed-up.
_PHASE_BEFORE = re.compile(r"\b(?:phase|ph)\.?\s*$", re.IGNORECASE)
_PHASE_PART = re.compile(r"[a-cA-C]?(?![A-Za-z0-9%×]|\.\d)")
_PHASE_AFTER = re.compile(r"[a-cA-C]?\s*期")
# A decimal right after a product's name is its version (Python 3.11, vLLM 0.4, SGLang 0.5,
# LMCache 0.4, TensorRT-LLM 0.13, llama.cpp 0.3). Products and metrics are told apart by
# how they are spelled: a product's name is in mixed case, a capital and a small letter in
# one word (or a lower-case file name with a dot), while a metric's is in capitals (AUC
# 0.93, BLEU 34.5, TTFT 0.4, MMLU 0.72, ECE 0.05) or in small letters (top-1, accuracy),
# and keeps its number. A name carrying a digit (F1, H100, GPT-4o, Qwen2.5) already says
# which one it is, so the decimal after it is a score; so is one after a plural acronym
# (GFLOPs), a metric at k (pass@1), or one of the few metrics spelled in mixed case (mAP,
# mIoU, nDCG, gFID, BERTScore, SacreBLEU, COMETkiwi; SoTA) or capitalised at a sentence's
# start (Accuracy 0.93): those are listed, since vLLM has their very shape. The few
# standards and runtimes spelled in capitals that a briefing versions (CXL 2.0, CUDA 12.4,
# TLS 1.3) are listed too: metrics have their very shape. Only Latin letters, digits and
# name marks bound a name: Chinese runs into it (微调Llama 3.2).
_NAME_BEFORE = re.compile(
    r"(?<![A-Za-z0-9_@#.+-])"
    r"(?:(?![A-Z][A-Z-]*s\s|[A-Za-z]*(?:Score|BLEU|COMET[A-Za-z]*)\s|[a-z]?FID\s"
    r"|(?:mAP|mAR|mIoU|mAcc|nDCG|chrF|SoTA|Acc|Accuracy|Precision|Recall|Perplexity)\s)"
    r"(?:(?=[A-Za-z.+-]*[a-z])(?=[A-Za-z.+-]*[A-Z])[A-Za-z](?:[A-Za-z.+-]*[A-Za-z+])?|[a-z]+(?:\.[a-z]+)+)"
    r"|CXL|CUDA|HTTP|USB|TLS|MCP|ONNX|NCCL|UCX|HIP|OCI)\s+$"
)


# A gain measured over a bare decimal is measured over a release: "22% over 0.30" is over
# version 0.30 (a score it improved on would carry its metric, "over 0.30 F1").
_GAIN_OVER = re.compile(r"\d\s*(?:%|x|×|倍)\s+(?:over|than|vs\.?|versus)\s+$", re.IGNORECASE)
_SCORE_AFTER = re.compile(r"\s*(?:[A-Z]|(?i:points?|pp|baseline|score|accuracy)\b)")


def names_a_version(before: str) -> bool:
    """Whether the text right ``before`` a decimal is a product's name, making the decimal
    its version (``vLLM `` before 0.4; not ``AUC `` or ``Accuracy ``)."""
    return _NAME_BEFORE.search(before) is not None


# A licence spelled in capitals versions like a product (BSL 1.1, GPL 3.0, MPL 2.0, CC BY 4.0,
# CC-BY 4.0: the hyphen joins CC to BY as it joins BY to NC): read apart from ``names_a_version``,
# whose names also pick the releases a title names.
_LICENCE_BEFORE = re.compile(
    r"(?<![A-Za-z0-9_@#.+-])(?:B?USL|BSL|A?GPL|LGPL|MPL|EPL|SSPL|CDDL|EUPL|(?:CC-)?BY(?:-(?:SA|NC|ND))*)(?:\s*v)?\s+$"
)
# An operating system named by a product's word and OS (Halo OS 4.2, Nimbus OS 2.1): its release.
# OS alone is in capitals, as a metric is (MOS 4.1), so the product's capitalised word must lead it.
_OS_BEFORE = re.compile(r"(?<![A-Za-z0-9_@#.+-])[A-Z][A-Za-z]*\s+OS\s+$")
# A bare decimal a feature came, went or holds since is a release ("PostgresSaver, introduced in
# 0.9", "removed in 1.2", "stable since 0.9", "as of 2.1"), as "From CrewForge 3.0" is.
_RELEASED_IN_BEFORE = re.compile(
    r"\b(?:(?:introduced|added|shipped|released|deprecated|removed|dropped|landed|available)\s+(?:in|with|since)"
    r"|since|as\s+of|starting\s+(?:with|from|in))\s+$",
    re.IGNORECASE,
)
# A release series (2.x stays MIT, 3.x 版本) is a version whatever stands before it.
_SERIES_AFTER = re.compile(r"\.[xX](?![A-Za-z0-9_])")
# A version in Chinese: a decimal before 版 or 版本 (发布 0.4 版), or the one a product's name starts
# something from ("CrewForge 从 3.0 起由 MIT 改为 BSL 1.1", "vLLM 自 0.6 开始"): the release a change
# comes with, as "From CrewForge 3.0" reads in English.
_VERSION_WORD_AFTER = re.compile(r"\s*版")
_FROM_AFTER_NAME = re.compile(rf"[{_CJK}]{{0,6}}\s*[从自]\s*$")
_FROM_ON_AFTER = re.compile(r"\s*(?:起(?![步跳])|开始)")


_PHASES = frozenset("1234")


def is_label(text: str, start: int, value: str, unit: str) -> bool:
    before = text[max(0, start - 24) : start]
    if value.count(".") >= 2 or _LABEL_BEFORE.search(before) or _SERIES_AFTER.match(text, start + len(value)):
        return True
    if value in _PHASES and _a_phase(text, start, start + len(value)):
        return True
    if "." not in value or unit:
        return False
    end = start + len(value)
    if _GAIN_OVER.search(before) and not _SCORE_AFTER.match(text, end):
        return True
    if _RELEASED_IN_BEFORE.search(before) or _LICENCE_BEFORE.search(before) or _OS_BEFORE.search(before):
        return True
    return names_a_version(before) or _a_version_in_chinese(text, start, end) or released_in_chinese(text, start, end)


def _a_phase(text: str, start: int, end: int) -> bool:
    """Whether the numeral at ``text[start:end]`` is a trial's phase (``_PHASE_BEFORE``, ``_PHASE_AFTER``)."""
    if _PHASE_AFTER.match(text, end):
        return True
    phase = _PHASE_BEFORE.search(text[max(0, start - 8) : start])
    return phase is not None and _PHASE_PART.match(text, end) is not None


def _a_version_in_chinese(text: str, start: int, end: int) -> bool:
    """Whether the decimal at ``text[start:end]`` is a release named in Chinese (``_VERSION_WORD_AFTER``,
    ``_FROM_AFTER_NAME``)."""
    if _VERSION_WORD_AFTER.match(text, end):
        return True
    if not _FROM_ON_AFTER.match(text, end):
        return False
    before = text[max(0, start - 40) : start]
    frm = _FROM_AFTER_NAME.search(before)
    return frm is not None and names_a_version(before[: frm.start()] + " ")

"""A release told in Chinese around a bare decimal: "自 3.6 起弃用", "在 4.0 中移除", "4.0 起默认开启".

English reads "deprecated since 3.6, removed in 4.0" as two releases (``textsim``'s words before a
decimal: since, removed in). Chinese puts the release word after the number, or wraps the number in
自 … 起 / 在 … 中, so the same sentence retold in Chinese kept "3.6" and "4" as figures, and a faithful
retelling read as a claim with new numbers. Only a decimal that a change of the product is tied to is
read so: wrapped in 自/从 … 起/开始/以来 (since), or followed by 中/里/时/之后/起 and a verb of a release
(移除, 弃用, 引入, 默认 …). A figure a change starts from ("学习率从 0.1 开始衰减", "准确率在 0.8 时饱和")
keeps its digits: neither frame is complete there.
"""

from __future__ import annotations

import re

# What a release does to a feature (弃用, 移除, 引入 …): the verbs English puts before "in 4.0".
_RELEASE_VERB = (
    r"(?:被|已|已经|正式|将|即)?\s*(?:弃用|废弃|移除|删除|删掉|去掉|下线|引入|加入|新增|推出|上线|默认|启用|停用|"
    r"支持|不再支持|修复|改为|改成|变为|成为|标记为|合并|发布|落地)"
)
# "自 3.6 起", "自 3.6 以来", "从 0.9 版本开始": a since, whatever follows. 自 alone is literary "since";
# 从 also starts ranges of figures, so it needs the release verb after (below).
_SINCE_AFTER = re.compile(r"\s*(?:版本?)?\s*(?:起(?![步跳])|开始|以来|之后|以后)")
_SINCE_BEFORE = re.compile(r"(?<![来各])自\s*$")
_FROM_BEFORE = re.compile(r"从\s*$")
# "在 4.0 中移除", "4.0 里默认开启", "于 0.9 引入", "3.6 起弃用".
_IN_AFTER = re.compile(rf"\s*(?:版本?)?\s*(?:中|里|内|时|起|开始|之后|以后|后)?\s*[，,]?\s*{_RELEASE_VERB}")
_IN_BEFORE = re.compile(r"(?:在|于)\s*$")


# After 从 X 起 the verb may come after the feature's name: "从 0.9 开始默认启用", "从 3.0 起 MIT 改为 BSL".
_RELEASE_LATER = re.compile(rf"[^，,。；;]{{0,16}}?{_RELEASE_VERB}")
# "4.0 中移除", "3.6 起弃用" without 在: the release word right after the number ties it.
_TIED_AFTER = re.compile(rf"\s*(?:版本?)?\s*(?:中|里|起|开始)\s*{_RELEASE_VERB}")


def released_in_chinese(text: str, start: int, end: int) -> bool:
    """Whether the bare decimal at ``text[start:end]`` is a release a Chinese sentence ties a
    change of the product to (自 3.6 起, 在 4.0 中移除, 从 0.9 开始支持)."""
    before = text[max(0, start - 4) : start]
    since = _SINCE_AFTER.match(text, end)
    if since and _SINCE_BEFORE.search(before):
        return True
    if since and _FROM_BEFORE.search(before):
        return _RELEASE_LATER.match(text, since.end()) is not None
    if _IN_BEFORE.search(before):
        return _IN_AFTER.match(text, end) is not None
    return _TIED_AFTER.match(text, end) is not None

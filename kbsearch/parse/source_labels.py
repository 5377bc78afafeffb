"""Ids a 来源 line gives for what the item depends on or is compared with: cited, not its subject.

A sources line names where the item comes from, so its ids are what the item is about
(``increment.subject_ids``). But writers also list there what the item builds on, labelled:
"training data: GraspLoom (arXiv:…)", "基线：…", "based on …", "对比 …", "数据来自 …". Such
a paper is a dependency or a comparison: the item cites it, as a relation line would. Probe
36: a new robot policy's sources gave the public grasping dataset it trained on, by its id;
read as about that dataset, the policy was an UPDATE of the dataset's own record (shared id)
and was flagged as first seen on the dataset's day.

A label counts where a source starts (after ；/;) or where a bracket opens inside one, so
"arXiv:2612.02876（基于 arXiv:2612.00655 的数据）" is about the first id and cites the second;
the label reaches to the end of that source. A word inside a source's prose ("a blog post based
on …") is no label: the source may well be a retelling of the item's own paper.
"""

from __future__ import annotations

import re

_LABEL = (
    r"training\s+data|(?:pre-?)?trained\s+on|fine-?tuned\s+on|data\s+(?:from|source)|dataset\s+used"
    r"|based\s+on|built\s+on|builds\s+on|baselines?|compared\s+(?:with|to|against)|comparison|versus|vs\.?"
    r"|related\s+work|prior\s+work|see\s+also|cf\."
    r"|训练数据|预训练数据|数据来自|数据来源于|基于|基线|对比|对照|比较对象|相关工作|参见"
)
_CITING = re.compile(rf"(?:^|(?<=[（(]))\s*(?:{_LABEL})(?=[\s:：,，]|$)", re.IGNORECASE)
_PART = re.compile(r"[^；;]+")


def about_part(source: str) -> str:
    """``source`` (a 来源 value) without what a dependency or comparison label introduces:
    from each such label to the end of its ；-separated source."""
    kept = []
    for part in _PART.findall(source):
        label = _CITING.search(part)
        kept.append(part[: label.start()] if label else part)
    return "；".join(kept)

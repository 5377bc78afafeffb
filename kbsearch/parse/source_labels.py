"""Ids a 来源 line gives for what the item depends on or is compared with: cited, not its subject.

A sources line names where the item comes from, so its ids are what the item is about
(``increment.subject_ids``). But writers also list there what the item builds on, labelled:
"training data: GraspLoom (arXiv:…)", "基线：…", "based on …", "对比 …", "数据来自 …",
"benchmark: X (arXiv:…)", "评测于 …". Such a paper is a dependency, a comparison or what the item
is measured on: the item cites it, as a relation line would. Probe
36: a new robot policy's sources gave the public grasping dataset it trained on, by its id;
read as about that dataset, the policy was an UPDATE of the dataset's own record (shared id)
and was flagged as first seen on the dataset's day.

A label counts where a source starts (after ；/;) or where a bracket opens inside one, so
"arXiv:2612.02876（基于 arXiv:2612.00655 的数据）" is about the first id and cites the second;
the label reaches to the end of that source. Probe 46: a defence's source line gave the
benchmark it was evaluated on ("benchmark: X (arXiv:…)"), and the defence was an UPDATE of that
benchmark's record by the shared id. A word inside a source's prose ("a blog post based
on …") is no label: the source may well be a retelling of the item's own paper.
"""

from __future__ import annotations

import re

_LABEL = (
    r"training\s+data|(?:pre-?)?trained\s+on|fine-?tuned\s+on|data\s+(?:from|source)|dataset\s+used"
    r"|based\s+on|built\s+on|builds\s+on|baselines?|compared\s+(?:with|to|against)|comparison|versus|vs\.?"
    r"|related\s+work|prior\s+work|see\s+also|cf\."
    r"|evaluated\s+(?:on|with|against)|tested\s+on|measured\s+on|评测于|测评于|评估于"
    r"|训练数据|预训练数据|数据来自|数据来源于|基于|基线|对比|对照|比较对象|相关工作|参见"
)
# What the item is measured on, named by a noun: a label only with its colon ("benchmark:
# InjecTrack …", "数据集：…"), since "benchmark paper arXiv:…" may be the item's own source.
_MEASURED_ON = (
    r"benchmarks?|datasets?|eval(?:uation)?\s+(?:sets?|data)|评测基准|基准测试|基准|评测集|评测数据|测试集|数据集"
)
_CITING = re.compile(rf"(?:^|(?<=[（(]))\s*(?:(?:{_LABEL})(?=[\s:：,，]|$)|(?:{_MEASURED_ON})\s*[:：])", re.IGNORECASE)
_PART = re.compile(r"[^；;]+")


def about_part(source: str) -> str:
    """``source`` (a 来源 value) without what a dependency or comparison label introduces:
    from each such label to the end of its ；-separated source."""
    kept = []
    for part in _PART.findall(source):
        label = _CITING.search(part)
        kept.append(part[: label.start()] if label else part)
    return "；".join(kept)

"""Words of putting something out and of a regulator's approval that tell a stage only about
such a thing: "v1.1 weights were published on Hugging Face", "技术报告已上传 arXiv", "代码已在
GitHub 公开", "FDA cleared the IND", "获国家药监局批准".

Each of these verbs has an everyday sense that tells no stage: "published in Nature" is a
paper's venue (``stage_words.PAPER_MENTION``), a user uploads a picture (上传图片), results are
made available to clinicians, a cache is cleared, an ethics committee approves a protocol
(经伦理委员会批准). So a release verb counts only in a clause that names a thing put out (code,
weights, a report, a data set: ``artefacts.ARTEFACT``) or where it is put (GitHub, Hugging Face, arXiv:
``HOST``), and an approval only in a clause naming a regulator or its pathway (FDA, NMPA, 510(k),
IND: ``REGULATOR``). Whether the stage is reached or to come is read as every stage's is
(``later_steps.NOT_YET``: "will be published", "将在两周内上传", "预计明年获批").

Probe 50: "weights were published on Hugging Face" was known from "weights are planned for
release", and "已上传 arXiv" from "将在两周内上传 arXiv": neither claim read as a stage.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kbsearch.text.artefacts import ARTEFACT, SENTENCE_END, clause_around
from kbsearch.text.stage_words import Stage

HOST = re.compile(
    r"hugging ?face|\bHF\b|github|gitlab|arxiv|biorxiv|medrxiv|modelscope|魔搭|pypi|zenodo|docker hub|app store|官网",
    re.IGNORECASE,
)
"""Where a thing is put out: "已上传 arXiv", "posted to GitHub"."""
REGULATOR = re.compile(
    r"\b(?:FDA|EMA|CHMP|NMPA|PMDA|MHRA|TGA|CDE|IND|PMA|CE|BLA)\b|510\(k\)|\bDe Novo\b|Health Canada"
    r"|\b(?i:regulators?|notified body|marketing authori[sz]ation)\b"
    r"|药监局|药品监督管理局|注册证|医疗器械|上市许可|临床试验申请|监管"
)
"""A regulator or its pathway, which an approval's clause must name: "批准" alone is also an ethics
committee's or a manager's."""

_AUX = ("is", "are", "was", "were", "been", "be", "now", "finally", "officially")
_AFTER_AUX = "|".join(f"(?<=\\b{word} )" for word in _AUX)
_THINGS = ("code", "weights", "checkpoint", "checkpoints", "report", "preprint", "paper", "whitepaper")
_AFTER_THING = "|".join(f"(?<=\\b{word} )" for word in _THINGS)
_VENUE_NEXT = r"(?!\s+(?:in|at)\s+(?:the\s+)?(?!(?:January|February|March|April|May|June|July|August|September"
_VENUE_NEXT += r"|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Q[1-4])\b)[A-Z])"
_HOST_NEXT = r"(?=\s+(?:the\s+)?(?:hugging ?face|HF|github|gitlab|arxiv|biorxiv|medrxiv|modelscope|pypi|zenodo)\b)"
_PUT = r"(?:published|posted|uploaded|put online|made (?:publicly |openly |freely )?available)"
_RELEASE_EN = (
    rf"(?:{_AFTER_AUX})(?:(?:now|publicly|openly|freely) )?{_PUT}\b{_VENUE_NEXT}"
    rf"|(?:{_AFTER_THING}){_PUT}\b{_VENUE_NEXT}"
    r"|\b(?:published|posted|uploaded) (?:the|its|their|our) (?:full |source )?(?:code|weights|checkpoints|"
    r"(?:technical )?report|data ?set)\b"
    rf"|(?:{_AFTER_AUX})(?:(?:now|publicly|freely) )?(?:out|live|available)\b(?! of\b| to (?!download))"
    rf"|(?:{_AFTER_AUX})(?:now |also )?(?:up |out |live )?(?:on|at){_HOST_NEXT}"
)
"""Put out, in English, after a form of "be" or the thing's name: published or posted (not in a
venue: "published in Nature" is a paper's; not "newly published datasets", which describes them),
uploaded, made available, "is out", "is live", "is on GitHub", "will be on arXiv", "are up on
Hugging Face"; or "posted its technical report"."""
_RELEASE_ZH = (
    r"上传|上架|公开(?=\s*(?:$|[，。；,.;（(、]))|(?<=已)开放"
    r"|开放(?:了)?(?:研究用\s*)?(?:权重|代码|源码|API|接口)(?=\s*(?:$|[，。；,.;（(、）)]|并|且|与|和|供|下载|许可|于))"
)
"""Put out, in Chinese: uploaded (上传), listed (上架), made public at a clause's end ("代码已在
GitHub 公开", not "公开数据集" or "数据公开可查"), opened for use (开放权重，…; 权重已开放; not
"开放权重模型" nor "基于开放权重 VLM", which name a kind of model)."""
_APPROVED_EN = (
    r"\b(?:cleared|approved|authori[sz]ed)\b"
    r"|\b(?:received|obtained|won|secured|got|granted)\b[^,.;]{0,30}?\b(?:clearance|approval|authori[sz]ation|CE mark)"
)
_APPROVED_ZH = r"获批|批准(?!文号)|(?:获得|取得|拿到|获)[^，。；]{0,12}?(?:注册证|上市许可|批文)"
"""Approved: "FDA cleared the IND", "received 510(k) clearance", "获 NMPA 批准", "拿到三类注册证"."""

_VERBS = re.compile(
    "|".join(
        [
            f"(?P<en{int(Stage.RELEASED)}>{_RELEASE_EN})",
            f"(?P<zh{int(Stage.RELEASED)}>{_RELEASE_ZH})",
            f"(?P<en{int(Stage.APPROVED)}>{_APPROVED_EN})",
            f"(?P<zh{int(Stage.APPROVED)}>{_APPROVED_ZH})",
        ]
    ),
    re.IGNORECASE,
)
_RELEASES = {f"en{int(Stage.RELEASED)}", f"zh{int(Stage.RELEASED)}"}


def verb_mentions(text: str) -> Iterator[re.Match[str]]:
    """The release and approval verbs of ``text`` that say what they are about: a release in a clause
    naming a thing put out or where (``artefacts.ARTEFACT``, ``HOST``), an approval in a sentence naming
    a regulator (``REGULATOR``: "已向 NMPA 提交注册申请，有望年内获批"). Each match's group is named as
    ``stage_words.MENTION``'s are (``en6``: an English release)."""
    for match in _VERBS.finditer(text):
        if match.lastgroup in _RELEASES:
            clause = clause_around(text, match.start(), match.end())
            if ARTEFACT.search(clause) or HOST.search(clause):
                yield match
        elif REGULATOR.search(clause_around(text, match.start(), match.end(), SENTENCE_END)):
            yield match

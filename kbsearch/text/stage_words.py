"""The words a sentence tells a stage in, Chinese and English: a project's (planned, in review,
merged, preview, released, retired), a paper's (preprint, accepted, published, withdrawn), a fix
and a correction, each strictly (a stage reached) and loosely (a record that tells it at all).

``stages`` reads them; why each pattern is as it is stands beside it.
"""

from __future__ import annotations

import re
from enum import IntEnum

from kbsearch.text.later_steps import NOT_YET as LATER_NOT_YET


class Stage(IntEnum):
    PLANNED = 1
    REVIEW = 2
    MERGED = 3
    APPROVED = 4  # a regulator's clearance: its words need a regulator named (``release_verbs``)
    PREVIEW = 5
    RELEASED = 6
    RETIRED = 7


_ENGLISH: dict[Stage, list[str]] = {
    Stage.PLANNED: [
        r"under discussion|being discussed|discussion (?:stage|phase|thread)|in discussion|rfc",
        r"(?:is|are|was|were) planned|planned for|(?:plans?|planning|intends?) to (?:retire|deprecate|sunset)",
        r"plans? to (?:ship|release|merge|support|add|open[- ]source|upstream)",
        r"on the roadmap|roadmap item|prototype (?:stage|phase)|still a prototype",
        # Promised or coming, said of what is to come: "weights promised with a v1.0 release", "code coming soon".
        r"promised (?:for|with|in|by|at)|(?:is|are) promised|coming soon|(?:is|are) coming (?:soon|in|to)|forthcoming",
    ],
    Stage.REVIEW: [
        r"in review|under review|pending review|awaiting (?:review|merge)",
        # A regulator's review of a product, before its approval (``release_verbs``): "under FDA review".
        r"under (?:FDA|EMA|NMPA|PMDA|MHRA|regulatory|priority) review",
        r"open pull request|(?:pr|pull request) is (?:still )?open|draft (?:pr|pull request)",
    ],
    Stage.PREVIEW: [
        r"in (?:beta|preview)|(?:public|private|open|closed) (?:beta|preview)|beta (?:release|version)",
        r"(?:research|technical|developer) preview|preview (?:release|version)|early access",
        r"release candidates?|v?\d+(?:\.\d+)+-?rc\d*",
    ],
    Stage.MERGED: [
        r"merged (?:into|upstream|in|on)|(?<=nothing )merged",
        r"(?:was|were|is|be|has been|have been|been|got|now|pr|request) merged",
        r"landed (?:in|upstream|on)",
    ],
    Stage.RELEASED: [
        r"(?:was|were|is|has been|have been|been|now|officially|final|stable) released(?: as (?:final|stable|ga))?",
        r"released (?:in|as|on)|(?:final|stable|ga)(?: release)? (?:is|was) (?:now )?out\b(?! of)|be released",
        # A release that ships a feature: in or with one, after its version (vLLM 0.27 ships FP4) or "now".
        r"be open[- ]sourced|ships? (?:in|with|as)|shipped|(?<=\d )ships?|(?:now|finally|officially) ships?",
        r"generally available|general availability|(?:went|is|now|reach(?:ed|es)?|hits?) ga",
        r"open[- ]sourced|now available",
        r"(?:is|are|now|be|became|becomes?) (?:now )?(?:final|finali[sz]ed)|is (?:now )?the final (?:version|release)",
        # Code or weights put out: "the authors released the code", "the code is public".
        r"(?:released|published|made public) (?:the|its|their) (?:source )?(?:code|weights)",
        r"(?:code|weights) (?:is|are|was|were) (?:now )?(?:public|publicly available|available)",
    ],
    Stage.RETIRED: [r"deprecated|maintenance mode|end[- ]of[- ]life|archived|sunset(?:ted)?|retired|discontinued"],
}
_CHINESE: dict[Stage, list[str]] = {
    Stage.PLANNED: [
        r"讨论阶段|讨论串|(?:正在|仍在|还在)讨论|(?:社区|Issue ?)(?:里|中)?(?:在)?讨论",
        r"计划(?:于|将|支持|开源|发布|合入)|(?:列入|进入)路线图|路线图上|原型阶段|准备(?:引入|支持|合入)|敬请期待",
    ],
    Stage.REVIEW: [
        # "正在 review": a pull request's review, in the English word Chinese digests keep for it.
        r"review ?中|(?:正在|仍在|还在|尚在) ?review|(?:PR|合并请求)[^，。；,.;]{0,10}(?:审核|评审|审查)中",
        # Plain 评审中 / 正在评审 / 审核中 / 正在审核 without a PR ("vLLM 集成正在评审中"): the
        # review stage, as "under review" is (probe 18 read it unstated and passed a repeat as
        # an update). Not 审查 (an audit), 评审 as a noun (评审意见), nor moderation (内容审核中).
        r"(?<!同行)评审中|(?<![容全工])审核中|(?:正在|仍在|还在|尚在|处于)(?:评审|审核)",
        r"待合入|待合并",
    ],
    Stage.PREVIEW: [r"测试版(?!本)|预览版|研究预览|公测|内测|候选版|(?:RC|beta) ?版"],
    Stage.MERGED: [
        r"合入|已合并|被合并|PR ?合并|(?:合并|合)(?:进|到|入)主(?:分支|干|线)",
        # 合进 a branch or upstream ("已合进 SGLang 主分支"), not blocks combined into one.
        r"合进(?=[^，。；,.;]{0,16}(?:主分支|主干|主线|上游|\b(?:main|master)\b))",
    ],
    Stage.RELEASED: [
        # Not the party that releases (发布方, 发布者): "发布方称技术报告将在两周内上传" tells no release.
        r"正式(?:发布|上线|推出)|发布(?!方(?!案|法|式)|者)|发版|上线|开源了|已开源|正式版|稳定版(?!本)"
        r"|正式 ?GA|进入 ?GA",
        # Open-sourced, or the code made public, with the word that says so: "尚未开源" and
        # "代码尚未公开" are not yet (``NOT_YET`` reads the 未), while "开源模型" and
        # "公开数据集" name a kind of model or data.
        r"(?<=未)开源|(?:代码|源码|权重)(?:已经?|均已)?公开|(?:(?<=(?:代码|源码|权重)[尚暂还仍并]未)|(?<=(?:代码|源码|权重)未))公开",
        # Code or weights put out (放出): "权重已于 3 月 7 日放出" moves on a record's "计划于 3 月下旬放出",
        # which ``NOT_YET`` reads as not yet released. Not news or a signal let out (放出消息, 放出风声).
        r"放出(?!消息|风声|口风|信号|热量|能量|气体)",
    ],
    Stage.RETIRED: [r"维护模式|退役|停止维护|弃用|归档|停更|停止服务|停服|关停"],
}


class PaperStage(IntEnum):
    PREPRINT = 1
    ACCEPTED = 2
    PUBLISHED = 3
    WITHDRAWN = 4


_VENUE = r"(?:[A-Z]|the [A-Z]|an? (?:oral|poster|spotlight))"
PAPER_MENTION = re.compile(
    r"(?P<p1>预印本|\b[Pp]reprints?\b|\b[Oo]n arXiv\b|\b(?:posted|uploaded) to (?:arXiv|bioRxiv|medRxiv)\b"
    r"|上传(?:至|到)?\s*(?:arXiv|bioRxiv|medRxiv))"
    r"|(?P<p2>被[^，。；,.;]{0,20}(?:接收|录用)|正式接收|录用为|接收为|中稿"
    rf"|\b[Aa]ccepted (?:at|to|by|in|for|as) {_VENUE}|\b[Tt]o appear (?:at|in)\b|\b[Cc]amera[- ]ready\b)"
    r"|(?P<p3>正式发表|见刊|刊出|发表(?:于|在)[^，。；,.;]{0,12}(?:会议|期刊|[A-Z]{3,})"
    rf"|\b[Pp]ublished (?:in|at) {_VENUE})"
    r"|(?P<p4>(?:已|被|宣布|作者)撤稿|撤回(?:了)?(?:论文|预印本|稿件)"
    r"|\b(?:[Ww]ithdrawn|[Ww]ithdrew|[Rr]etracted)\b(?! papers))"
)
CORRECTION = re.compile(
    # 更正 and 误报 need their context: 更正式 is "more formal", 误报 also a false alarm.
    r"(?:此前|之前|早先)[^，。；,.;]{0,10}有误|(?:报道|说法|数据|数字)有误|报道失实|(?:系|属)误报|勘误"
    r"|^\s*更正|更正(?=[:：，,]|为|如下|说明)"
    r"|^\s*(?:correction|erratum)\b|\b(?:correction|erratum)\s*[:：]|\bmisreported\b|incorrectly reported"
    r"|\b(?:earlier|previous|our|first) report(?:ed|ing)? (?:was |is )?(?:wrong|incorrect|mistaken|in error)"
    # A figure corrected from one value to another ("Elo corrected from 1287 to 1271"): a correction
    # however the record gave it, though 1271 rounds to a survey's "1250-1300" (probe 34).
    r"|(?<![-\w])(?:corrected|revised|restated)\s+(?:(?:down|up)(?:ward)?\s+)?from\s+[^,;，；]{0,12}?\d[^,;，；]{0,12}?\s+to\b",
    re.IGNORECASE,
)
MENTION = re.compile(
    "|".join(
        [rf"(?P<en{int(s)}>\b(?:{'|'.join(p)})\b)" for s, p in _ENGLISH.items()]
        + [rf"(?P<zh{int(s)}>{'|'.join(p)})" for s, p in _CHINESE.items()]
    ),
    re.IGNORECASE,
)
_BROKEN = r"(?:regressions?|bugs?|crash(?:es)?|leaks?|hangs?|deadlocks?)"
FIX = re.compile(
    rf"\b(?:fix(?:es|ed)?|patch(?:es|ed)?|resolve[sd]?)\b[^,.;:]{{0,40}}?\b{_BROKEN}\b"
    rf"|\b{_BROKEN} (?:is |are |was |were |has been |have been )?(?:now )?fixed\b|\b(?:bug|hot)[- ]?fix(?:es)?\b"
    r"|修复(?:了)?[^，。；,.;]{0,20}?(?:bug|缺陷|回归|崩溃|泄漏|泄露|死锁|问题)"
    r"|(?:回归|bug|崩溃|缺陷)[^，。；,.;]{0,8}已(?:被)?修复",
    re.IGNORECASE,
)
CORRECTION_TOLD = re.compile(
    CORRECTION.pattern
    + r"|更正|修正|订正|勘误|有误|误报|下修|上修|(?:此前|之前|最初|早先|首次)[^，。；,.;]{0,6}(?:报|公布|估计)"
    r"|\b(?:correct(?:ed|ion)|erratum|revis(?:ed|es|ion)|amended|misreported)\b"
    r"|\b(?:first|initially|originally|earlier|previously) (?:reported|estimated|put|stated)\b",
    re.IGNORECASE,
)
"""What a record says of a correction, read loosely ("outage revised: 5 hours", "not the 3 hours
first reported"): a claim's correction a record already tells moves nothing on (probe 29)."""
STAGE_TOLD = {
    Stage.PLANNED: re.compile(
        r"计划|规划|路线图|预计|承诺|\b(?:plan(?:s|ned|ning)?|roadmap|promis\w*|coming soon)\b", re.IGNORECASE
    ),
    Stage.REVIEW: re.compile(r"评审|审核|审查|\breview", re.IGNORECASE),
    Stage.MERGED: re.compile(r"合入|合并|合进|\bmerg|\blanded\b", re.IGNORECASE),
    # Any word of an approval or its pathway: "Clearance: 510(k) K262231" tells the clearance a
    # claim's "FDA cleared LungSight" restates.
    Stage.APPROVED: re.compile(
        r"批准|获批|注册证|上市许可|\b(?:clear(?:ed|ance)|approv\w*|authori[sz]\w*)|510\(k\)|\bDe Novo\b", re.IGNORECASE
    ),
    Stage.RETIRED: re.compile(
        r"弃用|退役|归档|停止维护|\b(?:deprecat|retir|archiv|sunset|end[- ]of[- ]life)", re.IGNORECASE
    ),
}
"""A stage in looser words than a stage's, as ``RELEASE_TOLD`` a release: "计划 2027 年扩展到 200 个"
tells the plan a claim's "200 planned for 2027" restates (probe 29), though no stage is read there."""
FIX_TOLD = re.compile(
    r"\b(?:fix|patch|regression|bug|crash|leak|deadlock|hotfix)|修复|回归|缺陷|崩溃|泄漏|泄露|死锁", re.IGNORECASE
)
"""What a record says of a fix, read loosely: any word of one, so that only a record silent
about it leaves a claim's fix untold."""
RELEASE_TOLD = re.compile(
    r"开源|发布|发版|上线|公开|放出|上传|\b(?:releas|open[- ]sourc|ship|launch|github|hugging ?face|publish|upload)"
    r"|\bavailable\b",
    re.IGNORECASE,
)
DATA_RELEASE = re.compile(
    r"(?:发布|公开|开源|releas\w*|open[- ]sourc\w*)[^，。；,.;]{0,24}(?:数据集|基准|语料|benchmark|dataset|corpus)",
    re.IGNORECASE,
)
PACKAGING = re.compile(r"\bships? as\b", re.IGNORECASE)
VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)*)(?![\w%]|\.\d)", re.IGNORECASE)
"""A version (v0.6, 0.31.0), not a figure (3.5x, 2.5%)."""
NOT_YET = LATER_NOT_YET
"""A stage said as one to come ("will be released", 计划开源): ``later_steps.NOT_YET``, the one
"not yet" of every track."""


GA = re.compile(r"general(?:ly)? availab|(?<![a-z])ga(?![a-z])|正式|稳定版|final|stable", re.IGNORECASE)
LEFT = re.compile(
    r"(?:no longer|out of|leaves?|left|exits?|exited|graduat\w*|结束|退出|告别|不再)[^,.;:，。；：]{0,12}$"
)
PREVIEWS = {f"en{int(Stage.PREVIEW)}", f"zh{int(Stage.PREVIEW)}"}

"""Where a piece of software or a proposal stands: planned, in review, merged,
released, retired, as a sentence says it in Chinese or English.

A claim that moves a known item to a later stage (the pull request the record saw "in review" is
now merged; a feature under discussion has shipped; a benchmark its maintainer "plans to retire"
is retired, as 计划退役 → 已退役) is news, though it shares nearly every word with the sentence that
told the earlier stage: the claim decision reads them as the same sentence. ``moved_on`` tells the
two apart, as ``quantities.new_figures`` does for a changed figure.

Only wording about a project's status counts, not the words' everyday senses:
"合并" alone also means combining (合并 KV 块) and "proposed" names a paper's own
method, so neither is read. A stage under a negation or in the future ("nothing
merged yet", "尚无合入版本", "will ship in 1.3") says the item is still before it.

A paper has its own track (preprint, accepted, published, withdrawn), read only
in a venue's wording ("被 ICLR 2027 接收", "accepted at NeurIPS"): 接收 alone is
also a decode node receiving KV. A claim that says it corrects earlier reporting
("此前报道有误", "Correction:") moves its item on from what was reported, whatever
stage either tells: it contradicts the passage it shares its words with.

A claim that tells a stage reached or a fix ("Fixes a throughput regression", "修复了
长 prompt 下的吞吐回归") that no record of its item tells at all is news too, however
near its words are to a passage that tells none (``untold``): "代码已开源" was known from
a card's title that never mentions code. So is a later stage than any record tells of a
project or pull request the claim names, in whichever passage: "已合入 SGLang 主分支" was
known from a title while the record's key point said "向 SGLang 提交的 PR 正在 review".
A fix is read only with what it fixes (a bug, a regression, a crash): 修复 alone is
also image restoration.

A preview (research preview, beta, release candidate, 公测, 候选版) is a stage below general
availability: "Drover 进入正式版（GA）" moves on a record's "launches Drover (research preview)",
as "the spec is final, no longer a release candidate" does an RC's record. A text telling a
preview reads its looser release words (发布, "released") as that preview, and only a claim's
GA word (``_GA``: GA, 正式版, "is final") or its leaving the preview moves an item on from one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache

from kbsearch.text.deals import deal_moved, deal_rank, deal_told
from kbsearch.text.pulls import PULL, named_pulls, names_pull, unnamed_pulls

UNSTATED = "unstated"  # what ``untold`` names as the stage before when no record tells one


class Stage(IntEnum):
    PLANNED = 1
    REVIEW = 2
    MERGED = 3
    PREVIEW = 4
    RELEASED = 5
    RETIRED = 6


_ENGLISH: dict[Stage, list[str]] = {
    Stage.PLANNED: [
        r"under discussion|being discussed|discussion (?:stage|phase|thread)|in discussion|rfc",
        r"(?:is|are|was|were) planned|planned for|(?:plans?|planning|intends?) to (?:retire|deprecate|sunset)",
        r"plans? to (?:ship|release|merge|support|add|open[- ]source|upstream)",
        r"on the roadmap|roadmap item|prototype (?:stage|phase)|still a prototype",
    ],
    Stage.REVIEW: [
        r"in review|under review|pending review|awaiting (?:review|merge)",
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
        r"计划(?:于|将|支持|开源|发布|合入)|(?:列入|进入)路线图|路线图上|原型阶段|准备(?:引入|支持|合入)",
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
        r"正式(?:发布|上线|推出)|发布|发版|上线|开源了|已开源|正式版|稳定版(?!本)|正式 ?GA|进入 ?GA",
        # Open-sourced, or the code made public, with the word that says so: "尚未开源" and
        # "代码尚未公开" are not yet (``_NOT_YET`` reads the 未), while "开源模型" and
        # "公开数据集" name a kind of model or data.
        r"(?<=未)开源|(?:代码|源码|权重)(?:已经?|均已)?公开|(?:(?<=(?:代码|源码|权重)[尚暂还仍并]未)|(?<=(?:代码|源码|权重)未))公开",
    ],
    Stage.RETIRED: [r"维护模式|退役|停止维护|弃用|归档|停更|停止服务|停服|关停"],
}


class PaperStage(IntEnum):
    PREPRINT = 1
    ACCEPTED = 2
    PUBLISHED = 3
    WITHDRAWN = 4


_VENUE = r"(?:[A-Z]|the [A-Z]|an? (?:oral|poster|spotlight))"
_PAPER_MENTION = re.compile(
    r"(?P<p1>预印本|\b[Pp]reprints?\b|\b[Oo]n arXiv\b)"
    r"|(?P<p2>被[^，。；,.;]{0,20}(?:接收|录用)|正式接收|录用为|接收为|中稿"
    rf"|\b[Aa]ccepted (?:at|to|by|in|for|as) {_VENUE}|\b[Tt]o appear (?:at|in)\b|\b[Cc]amera[- ]ready\b)"
    r"|(?P<p3>正式发表|见刊|刊出|发表(?:于|在)[^，。；,.;]{0,12}(?:会议|期刊|[A-Z]{3,})"
    rf"|\b[Pp]ublished (?:in|at) {_VENUE})"
    r"|(?P<p4>(?:已|被|宣布|作者)撤稿|撤回(?:了)?(?:论文|预印本|稿件)"
    r"|\b(?:[Ww]ithdrawn|[Ww]ithdrew|[Rr]etracted)\b(?! papers))"
)
_CORRECTION = re.compile(
    # 更正 and 误报 need their context: 更正式 is "more formal", 误报 also a false alarm.
    r"(?:此前|之前|早先)[^，。；,.;]{0,10}有误|(?:报道|说法|数据|数字)有误|报道失实|(?:系|属)误报|勘误"
    r"|^\s*更正|更正(?=[:：，,]|为|如下|说明)"
    r"|^\s*(?:correction|erratum)\b|\b(?:correction|erratum)\s*[:：]|\bmisreported\b|incorrectly reported"
    r"|\b(?:earlier|previous|our|first) report(?:ed|ing)? (?:was |is )?(?:wrong|incorrect|mistaken|in error)",
    re.IGNORECASE,
)
_MENTION = re.compile(
    "|".join(
        [rf"(?P<en{int(s)}>\b(?:{'|'.join(p)})\b)" for s, p in _ENGLISH.items()]
        + [rf"(?P<zh{int(s)}>{'|'.join(p)})" for s, p in _CHINESE.items()]
    ),
    re.IGNORECASE,
)
_BROKEN = r"(?:regressions?|bugs?|crash(?:es)?|leaks?|hangs?|deadlocks?)"
_FIX = re.compile(
    rf"\b(?:fix(?:es|ed)?|patch(?:es|ed)?|resolve[sd]?)\b[^,.;:]{{0,40}}?\b{_BROKEN}\b"
    rf"|\b{_BROKEN} (?:is |are |was |were |has been |have been )?(?:now )?fixed\b|\b(?:bug|hot)[- ]?fix(?:es)?\b"
    r"|修复(?:了)?[^，。；,.;]{0,20}?(?:bug|缺陷|回归|崩溃|泄漏|泄露|死锁|问题)"
    r"|(?:回归|bug|崩溃|缺陷)[^，。；,.;]{0,8}已(?:被)?修复",
    re.IGNORECASE,
)
_CORRECTION_TOLD = re.compile(
    _CORRECTION.pattern
    + r"|更正|修正|订正|勘误|有误|误报|下修|上修|(?:此前|之前|最初|早先|首次)[^，。；,.;]{0,6}(?:报|公布|估计)"
    r"|\b(?:correct(?:ed|ion)|erratum|revis(?:ed|es|ion)|amended|misreported)\b"
    r"|\b(?:first|initially|originally|earlier|previously) (?:reported|estimated|put|stated)\b",
    re.IGNORECASE,
)
"""What a record says of a correction, read loosely ("outage revised: 5 hours", "not the 3 hours
first reported"): a claim's correction a record already tells moves nothing on (probe 29)."""
_STAGE_TOLD = {
    Stage.PLANNED: re.compile(r"计划|规划|路线图|预计|\b(?:plan(?:s|ned|ning)?|roadmap)\b", re.IGNORECASE),
    Stage.REVIEW: re.compile(r"评审|审核|审查|\breview", re.IGNORECASE),
    Stage.MERGED: re.compile(r"合入|合并|合进|\bmerg|\blanded\b", re.IGNORECASE),
    Stage.RETIRED: re.compile(
        r"弃用|退役|归档|停止维护|\b(?:deprecat|retir|archiv|sunset|end[- ]of[- ]life)", re.IGNORECASE
    ),
}
"""A stage in looser words than a stage's, as ``_RELEASE_TOLD`` a release: "计划 2027 年扩展到 200 个"
tells the plan a claim's "200 planned for 2027" restates (probe 29), though no stage is read there."""
_FIX_TOLD = re.compile(
    r"\b(?:fix|patch|regression|bug|crash|leak|deadlock|hotfix)|修复|回归|缺陷|崩溃|泄漏|泄露|死锁", re.IGNORECASE
)
"""What a record says of a fix, read loosely: any word of one, so that only a record silent
about it leaves a claim's fix untold."""
_RELEASE_TOLD = re.compile(
    r"开源|发布|发版|上线|公开|\b(?:releas|open[- ]sourc|ship|launch|github)|\bavailable\b", re.IGNORECASE
)
_DATA_RELEASE = re.compile(
    r"(?:发布|公开|开源|releas\w*|open[- ]sourc\w*)[^，。；,.;]{0,24}(?:数据集|基准|语料|benchmark|dataset|corpus)",
    re.IGNORECASE,
)
_PACKAGING = re.compile(r"\bships? as\b", re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)*)(?![\w%]|\.\d)", re.IGNORECASE)
"""A version (v0.6, 0.31.0), not a figure (3.5x, 2.5%)."""
_NOT_YET = re.compile(
    r"(?:\b(?:not|no|nothing|never|yet to|will|to be|expected to|about to|plans? to|upcoming)\b|n't"
    r"|未|尚无|尚未|暂无|并未|没有|还没|将于|将在|将会|将随(?!机)|即将|预计|计划|待|准备)[^,.;:，。；：!?！？]{0,12}$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class StageSaid:
    """The latest stage a text says an item reached, or the stage it is still before."""

    stage: Stage | PaperStage
    reached: bool

    @property
    def rank(self) -> float:
        """Reached stages rank at their own step, "not yet S" just below S."""
        return float(self.stage) if self.reached else self.stage - 0.5


@lru_cache(maxsize=1 << 13)  # a warm process reads the same candidates' passages check after check
def stage_said(text: str, mentions: re.Pattern[str] = _MENTION) -> StageSaid | None:
    """The latest stage ``text`` says was reached; when it says none was, the stage it is
    still before; None when it says nothing of a stage. ``mentions``: the track read
    (a project's by default; ``_PAPER_MENTION`` a paper's)."""
    said = [_read(text, match) for match in mentions.finditer(text)]
    if not said:
        return None
    reached = [s for s in said if s.reached]
    if reached:
        return max(reached, key=lambda s: s.stage)
    return min(said, key=lambda s: s.stage)


def _read(text: str, match: re.Match[str]) -> StageSaid:
    group = match.lastgroup or "x0"
    stage = PaperStage(int(group[1:])) if group.startswith("p") else Stage(int(group[2:]))
    before = text[max(0, match.start() - 24) : match.start()]
    if stage is Stage.PREVIEW and _LEFT.search(before):  # "结束研究预览", "no longer a release candidate"
        return StageSaid(stage, reached=False)
    if stage is Stage.RELEASED and not _GA.search(match[0]) and _in_preview(text):
        stage = Stage.PREVIEW  # "发布 Drover …目前是研究预览": released as a preview
    return StageSaid(stage, reached=_NOT_YET.search(before) is None)


_GA = re.compile(r"general(?:ly)? availab|(?<![a-z])ga(?![a-z])|正式|稳定版|final|stable", re.IGNORECASE)
_LEFT = re.compile(
    r"(?:no longer|out of|leaves?|left|exits?|exited|graduat\w*|结束|退出|告别|不再)[^,.;:，。；：]{0,12}$"
)
_PREVIEWS = {f"en{int(Stage.PREVIEW)}", f"zh{int(Stage.PREVIEW)}"}


@lru_cache(maxsize=1 << 12)
def _in_preview(text: str) -> bool:
    """Whether ``text`` tells a preview (beta, RC, 公测) reached: its looser release words are that preview's."""
    return any(m.lastgroup in _PREVIEWS and _read(text, m).reached for m in _MENTION.finditer(text))


def _later(now: StageSaid, then: StageSaid, claim: str) -> bool:
    """Whether ``now``, the claim's, is later than ``then``: from a preview, only by the claim's GA word or
    its leaving the preview ("Drover 已发布" restates a research preview's launch; "进入正式版" does not)."""
    if now.rank <= then.rank:
        return False
    if then.stage is not Stage.PREVIEW or now.stage is not Stage.RELEASED:
        return True
    said = [(m, _read(claim, m)) for m in _MENTION.finditer(claim)]
    ga = any(s.stage is Stage.RELEASED and _GA.search(m[0]) for m, s in said)
    return ga or any(
        m.lastgroup in _PREVIEWS and _LEFT.search(claim[max(0, m.start() - 24) : m.start()]) for m, _ in said
    )


def moved_on(claim: str, passage: str, records: Sequence[str] = ()) -> str | None:
    """ "<earlier> → <later>" when the claim says its item reached a later stage than the
    passage says it had, else None: either says no stage, the claim's is not later, or
    the claim only says a stage is not reached yet (which tells nothing the passage lacks).
    A correction is a move only when neither the passage nor any of ``records`` (its item's)
    tells one in any words (``_CORRECTION_TOLD``): "停摆时间更正为 5 小时" restates spark's
    "outage revised: 5 hours" whichever passage of the item is weighed. A deal's stage (``deals``)
    is read on its own track: a regulator's review is no pull request's."""
    if (deal := deal_moved(claim, passage)) is not None:
        return deal
    for track in () if deal_rank(claim) is not None else (_MENTION, _PAPER_MENTION):
        now, then = stage_said(claim, track), stage_said(passage, track)
        if now is not None and then is not None and now.reached and _later(now, then, claim):
            return f"{_label(then)} → {_label(now)}"
    if _CORRECTION.search(claim) and not any(_CORRECTION_TOLD.search(t) for t in (passage, *records)):
        return "reported → corrected"
    return None


def told(claim: str, passage: str) -> bool:
    """Whether the passage tells every stage the claim says its item reached, as late or
    later on each track, and is a correction when the claim corrects what was reported:
    then the claim moves nothing on from it ("3.1 倍应为 2.3 倍" on record, a card's
    "v3 更正：加速 2.3 倍" is no news), and any deal stage it tells. Vacuous for no stage."""
    deal = deal_told(claim, passage)  # a claim telling a deal's stage is weighed on that track only
    if deal is False:
        return False
    for track in () if deal else (_MENTION, _PAPER_MENTION):
        now = stage_said(claim, track)
        if now is not None and now.reached:
            then = stage_said(passage, track)
            if then is None or _later(now, then, claim):
                return False
    return not _CORRECTION.search(claim) or _CORRECTION_TOLD.search(passage) is not None


def untold(claim: str, records: list[str]) -> str | None:
    """ "unstated → <stage>" when the claim tells its item reached a stage and none of
    ``records`` (the texts of the records it is weighed against) tells any stage, or
    "unstated → fixed" when it tells a fix none of them mentions; else None. A record
    telling a stage somewhere is left to ``moved_on`` on the passage weighed: another
    sentence may tell the stage of something else (a TensorRT-LLM PR in review beside a
    vLLM plugin). But a claim's stage keyed to a pull request no record names ("PR #18234
    已被 vLLM 合入主分支") is told only by that very stage: a record's other stage is of
    something else ("低于 60% 阻断发布" is no release of the PR; ``_tells``). A project's
    track only: a paper's record seldom tells its venue, and a
    claim names one in passing ("the camera-ready version keeps 71.2%, as the preprint");
    and "ships as a plugin" tells how it is packaged, not a release. Or "<earlier> → <later>"
    when what the records tell of a project or pull request the claim names is earlier and
    none tells the claim's stage (``_overtaken``), whichever passage is weighed."""
    now = stage_said(_PACKAGING.sub(" ", claim))
    unnamed = now is not None and unnamed_pulls(claim, records)
    if now is not None and now.reached and not any(_tells(now, unnamed, t) for t in records):
        loose = None if unnamed else _STAGE_TOLD.get(Stage(now.stage))  # a PR's stage only in its own words
        loosely_told = now.stage in (Stage.PREVIEW, Stage.RELEASED) and _release_known(claim, records)
        if not loosely_told and not (loose is not None and any(loose.search(text) for text in records)):
            return f"{UNSTATED} → {_label(now)}"
    if now is not None and now.reached and (overtaken := _overtaken(now, claim, records)) is not None:
        return overtaken
    fixed = _FIX.search(claim)
    not_yet = fixed is not None and _NOT_YET.search(claim[max(0, fixed.start() - 24) : fixed.start()])
    if fixed is not None and not not_yet and not any(_FIX_TOLD.search(text) for text in records):
        return f"{UNSTATED} → fixed"
    return None


_PROJECT = re.compile(r"(?<![\w.+-])[A-Za-z][A-Za-z0-9]*(?:[-.+][A-Za-z0-9]+)*")
_CLAUSE_END = re.compile(r"[，。；;！？!?\n]|[,.:：](?=\s|$)")


def _projects(text: str) -> set[str]:
    """The projects ``text`` names, lower-cased: Latin words that mix cases inside (SGLang, vLLM,
    PageWeaver, TensorRT-LLM), not a sentence's first word ("Status") nor an acronym (PR, KV)."""
    words = (w for w in _PROJECT.findall(text) if any(c.islower() for c in w))
    return {w.lower() for w in words if any(c.isupper() for c in w[1:])}


def _clause(text: str, match: re.Match[str]) -> str:
    """The clause of ``text`` around ``match``: "向 SGLang 提交的 PR 正在 review", not its record."""
    ends = [m.start() for m in _CLAUSE_END.finditer(text)]
    start = max((e + 1 for e in ends if e < match.start()), default=0)
    return text[start : min((e for e in ends if e >= match.end()), default=len(text))]


def _overtaken(now: StageSaid, claim: str, records: list[str]) -> str | None:
    """ "<earlier> → <later>" when ``records`` tell an earlier stage, in a clause naming a project
    or pull request the claim names, and none tells ``now`` or a later one anywhere: the pull
    request to SGLang the records saw in review has been merged into SGLang, whichever passage
    of theirs the claim is weighed against. A stage in a clause naming none of the claim's
    stays ``moved_on``'s, on the passage weighed: it may be another's (a TensorRT-LLM PR)."""
    named, said = _projects(claim), []
    pulled, rest = named_pulls(claim)
    pulls = [*pulled, *((None, number) for number in PULL.findall(rest))]
    for text in records:
        for match in _MENTION.finditer(text):
            then, clause = _read(text, match), _clause(text, match)
            if then.reached and then.stage >= now.stage:
                return None
            if named & _projects(clause) or any(names_pull(project, number, clause) for project, number in pulls):
                said.append(then)
    reached = [s for s in said if s.reached]
    latest = max(reached, key=lambda s: s.stage) if reached else min(said, key=lambda s: s.stage, default=None)
    return f"{_label(latest)} → {_label(now)}" if latest is not None and _later(now, latest, claim) else None


def _tells(now: StageSaid, unnamed: bool, text: str) -> bool:
    """Whether a record's text tells a stage that may be the claim's ``now``: any stage, or,
    for a claim naming a pull request no record names (``unnamed``), ``now``'s own stage
    reached: another stage there ("阻断发布", a TensorRT-LLM PR in review) is another thing's."""
    if not unnamed:
        return stage_said(text) is not None
    return any((s := _read(text, m)).reached and s.stage == now.stage for m in _MENTION.finditer(text))


def _release_known(claim: str, records: list[str]) -> bool:
    """Whether records that tell no stage tell a release in looser words than a stage's ("开源代码", "code
    at github.com/…", "the v0.6 release notes"), or names a version the claim releases
    ("vLLM 0.31.0 turns on …" tells 0.31.0 is out), or the claim releases a data set or
    benchmark: a paper's contribution, which digests tell as a release ("同时发布了 X 数据集")
    where the record names the set. Only a record silent on it leaves a release untold."""
    if _DATA_RELEASE.search(claim):
        return True
    versions = set(_VERSION.findall(claim))
    return any(_RELEASE_TOLD.search(text) or versions & set(_VERSION.findall(text)) for text in records)


def _label(said: StageSaid) -> str:
    name = said.stage.name.lower()
    return name if said.reached else f"not yet {name}"

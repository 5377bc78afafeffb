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
GA word (``stage_words.GA``: GA, 正式版, "is final") or its leaving the preview moves an item on from one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kbsearch.text.artefacts import clause_around, kinds_named, naming
from kbsearch.text.deals import deal_moved, deal_rank, deal_told
from kbsearch.text.legal import legal_moved, legal_overtaken, legal_ranks, legal_told
from kbsearch.text.pulls import PULL, named_pulls, names_pull, unnamed_pulls
from kbsearch.text.release_verbs import verb_mentions
from kbsearch.text.stage_words import (
    CORRECTION,
    CORRECTION_TOLD,
    DATA_RELEASE,
    FIX,
    FIX_TOLD,
    GA,
    LEFT,
    MENTION,
    NOT_YET,
    PACKAGING,
    PAPER_MENTION,
    PREVIEWS,
    RELEASE_TOLD,
    STAGE_TOLD,
    VERSION,
    PaperStage,
    Stage,
)
from kbsearch.text.trial_phases import phase_moved, phase_told

UNSTATED = "unstated"  # what ``untold`` names as the stage before when no record tells one


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
def stage_said(text: str, mentions: re.Pattern[str] = MENTION) -> StageSaid | None:
    """The latest stage ``text`` says was reached; when it says none was, the stage it is
    still before; None when it says nothing of a stage. ``mentions``: the track read
    (a project's by default; ``PAPER_MENTION`` a paper's)."""
    said = [_read(text, match) for match in _found(text, mentions)]
    if not said:
        return None
    reached = [s for s in said if s.reached]
    if reached:
        return max(reached, key=lambda s: s.stage)
    return min(said, key=lambda s: s.stage)


def _found(text: str, mentions: re.Pattern[str] = MENTION) -> list[re.Match[str]]:
    """The stage words of ``text`` on the track ``mentions`` reads, in order: on a project's, with
    the release and approval verbs that count only about a thing put out or a regulator's
    decision (``release_verbs``: "weights were published", "已上传 arXiv", "FDA cleared")."""
    found = list(mentions.finditer(text))
    if mentions is MENTION:
        taken = [(m.start(), m.end()) for m in found]
        verbs = [v for v in verb_mentions(text) if all(v.end() <= a or v.start() >= b for a, b in taken)]
        found = sorted([*found, *verbs], key=lambda m: m.start())
    return found


def _read(text: str, match: re.Match[str]) -> StageSaid:
    group = match.lastgroup or "x0"
    stage = PaperStage(int(group[1:])) if group.startswith("p") else Stage(int(group[2:]))
    before = text[max(0, match.start() - 24) : match.start()]
    if stage is Stage.PREVIEW and LEFT.search(before):  # "结束研究预览", "no longer a release candidate"
        return StageSaid(stage, reached=False)
    if stage is Stage.RELEASED and not GA.search(match[0]) and _in_preview(text):
        stage = Stage.PREVIEW  # "发布 Drover …目前是研究预览": released as a preview
    return StageSaid(stage, reached=NOT_YET.search(before) is None)


@lru_cache(maxsize=1 << 12)
def _in_preview(text: str) -> bool:
    """Whether ``text`` tells a preview (beta, RC, 公测) reached: its looser release words are that preview's."""
    return any(m.lastgroup in PREVIEWS and _read(text, m).reached for m in _found(text))


def _later(now: StageSaid, then: StageSaid, claim: str) -> bool:
    """Whether ``now``, the claim's, is later than ``then``: from a preview, only by the claim's GA word or
    its leaving the preview ("Drover 已发布" restates a research preview's launch; "进入正式版" does not)."""
    if now.rank <= then.rank:
        return False
    if then.stage is not Stage.PREVIEW or now.stage is not Stage.RELEASED:
        return True
    said = [(m, _read(claim, m)) for m in _found(claim)]
    ga = any(s.stage is Stage.RELEASED and GA.search(m[0]) for m, s in said)
    return ga or any(
        m.lastgroup in PREVIEWS and LEFT.search(claim[max(0, m.start() - 24) : m.start()]) for m, _ in said
    )


def moved_on(claim: str, passage: str, records: Sequence[str] = ()) -> str | None:
    """ "<earlier> → <later>" when the claim says its item reached a later stage than the
    passage says it had, else None: either says no stage, the claim's is not later, or
    the claim only says a stage is not reached yet (which tells nothing the passage lacks).
    A correction is a move only when neither the passage nor any of ``records`` (its item's)
    tells one in any words (``CORRECTION_TOLD``): "停摆时间更正为 5 小时" restates spark's
    "outage revised: 5 hours" whichever passage of the item is weighed. A deal's stage (``deals``)
    is read on its own track: a regulator's review is no pull request's; so are a rule's and a court
    case's (``legal``): a bill "signed into law" is no release; and a trial's phase (``trial_phases``)."""
    if (moved := deal_moved(claim, passage) or legal_moved(claim, passage) or phase_moved(claim, passage)) is not None:
        return moved
    tracks = () if deal_rank(claim) is not None or legal_ranks(claim) else (MENTION, PAPER_MENTION)
    for track in tracks:
        now, then = stage_said(claim, track), stage_said(passage, track)
        if now is not None and then is not None and now.reached and _later(now, then, claim):
            return f"{_label(then)} → {_label(now)}"
    if tracks and (by_kind := _moved_by_kind(claim, passage)) is not None:
        return by_kind
    if CORRECTION.search(claim) and not any(CORRECTION_TOLD.search(t) for t in (passage, *records)):
        return "reported → corrected"
    return None


def told(claim: str, passage: str) -> bool:
    """Whether the passage tells every stage the claim says its item reached, as late or
    later on each track, and is a correction when the claim corrects what was reported:
    then the claim moves nothing on from it ("3.1 倍应为 2.3 倍" on record, a card's
    "v3 更正：加速 2.3 倍" is no news), and any deal or legal stage it tells. Vacuous for no stage."""
    deal = deal_told(claim, passage)  # a claim telling a deal's stage is weighed on that track only
    legal = legal_told(claim, passage)  # and one telling a rule's or a case's on those
    if deal is False or legal is False or phase_told(claim, passage) is False:  # a trial's phase beside any
        return False
    for track in () if deal or legal else (MENTION, PAPER_MENTION):
        now = stage_said(claim, track)
        if now is not None and now.reached:
            then = stage_said(passage, track)
            if then is None or _later(now, then, claim):
                return False
    if not (deal or legal) and _moved_by_kind(claim, passage) is not None:
        return False  # the passage tells the code out, the claim the weights it planned
    return not CORRECTION.search(claim) or CORRECTION_TOLD.search(passage) is not None


def _moved_by_kind(claim: str, passage: str) -> str | None:
    """ "<earlier> → <later>" when the claim tells a thing put out (weights, code, a report:
    ``artefacts.KINDS``) at a later stage than the passage's clauses naming that thing tell it:
    "weights were published" after "code is on GitHub now; weights are planned for release",
    whose latest stage, the code's, is the claim's. Clauses naming no such thing are not read."""
    for kind in sorted(kinds_named(claim) & kinds_named(passage)):
        now, then = stage_said(naming(claim, kind)), stage_said(naming(passage, kind))
        if now is not None and then is not None and now.reached and _later(now, then, claim):
            return f"{_label(then)} → {_label(now)}"
    return None


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
    none tells the claim's stage (``_overtaken``), whichever passage is weighed; so on a rule's or a
    court case's track (``legal.legal_overtaken``)."""
    if (legal := legal_overtaken(claim, records)) is not None:
        return legal
    now = stage_said(PACKAGING.sub(" ", claim))
    unnamed = now is not None and unnamed_pulls(claim, records)
    if now is not None and now.reached and not any(_tells(now, unnamed, t) for t in records):
        loose = None if unnamed else STAGE_TOLD.get(Stage(now.stage))  # a PR's stage only in its own words
        loosely_told = now.stage in (Stage.PREVIEW, Stage.RELEASED) and _release_known(claim, records)
        if not loosely_told and not (loose is not None and any(loose.search(text) for text in records)):
            return f"{UNSTATED} → {_label(now)}"
    if now is not None and now.reached and (overtaken := _overtaken(now, claim, records)) is not None:
        return overtaken
    fixed = FIX.search(claim)
    not_yet = fixed is not None and NOT_YET.search(claim[max(0, fixed.start() - 24) : fixed.start()])
    if fixed is not None and not not_yet and not any(FIX_TOLD.search(text) for text in records):
        return f"{UNSTATED} → fixed"
    return None


_PROJECT = re.compile(r"(?<![\w.+-])[A-Za-z][A-Za-z0-9]*(?:[-.+][A-Za-z0-9]+)*")


def _projects(text: str) -> set[str]:
    """The projects ``text`` names, lower-cased: Latin words that mix cases inside (SGLang, vLLM,
    PageWeaver, TensorRT-LLM), not a sentence's first word ("Status") nor an acronym (PR, KV)."""
    words = (w for w in _PROJECT.findall(text) if any(c.islower() for c in w))
    return {w.lower() for w in words if any(c.isupper() for c in w[1:])}


def _clause(text: str, match: re.Match[str]) -> str:
    """The clause of ``text`` around ``match``: "向 SGLang 提交的 PR 正在 review", not its record."""
    return clause_around(text, match.start(), match.end())


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
        for match in _found(text):
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
    return any((s := _read(text, m)).reached and s.stage == now.stage for m in _found(text))


def _release_known(claim: str, records: list[str]) -> bool:
    """Whether records that tell no stage tell a release in looser words than a stage's ("开源代码", "code
    at github.com/…", "the v0.6 release notes"), or names a version the claim releases
    ("vLLM 0.31.0 turns on …" tells 0.31.0 is out), or the claim releases a data set or
    benchmark: a paper's contribution, which digests tell as a release ("同时发布了 X 数据集")
    where the record names the set. Only a record silent on it leaves a release untold."""
    if DATA_RELEASE.search(claim):
        return True
    versions = set(VERSION.findall(claim))
    return any(RELEASE_TOLD.search(text) or versions & set(VERSION.findall(text)) for text in records)


def _label(said: StageSaid) -> str:
    name = said.stage.name.lower()
    return name if said.reached else f"not yet {name}"

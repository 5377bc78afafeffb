"""The rules: is a known record the same item, is a claim already known.

Pure functions over records and their passage vectors; ``check`` and
``audit`` fetch the candidates from the store and call these.

Exact evidence decides first, where there is some:
1. Two records about the same arXiv id are the same paper; about different
   ids, different papers; a record that only cites the id the other is
   about is a different item.
2. A living-doc section is never the same item as an increment or a card,
   even one about an arXiv id it lists or the item cites: it covers its
   field, and is evidence for the claims it states.
3. Identical text is the same item.
4. A paper card's title is its paper's name: two cards with one title are
   one paper, and two cards whose titles in one language share little are
   two papers, however alike their summaries (papers on one topic read alike).

Everything else is one learned decision (``DedupeConfig.same_item``): a
probability from the features in ``kbsearch.dedupe.features`` (under the
index's model and, when it names one, its judge), against its threshold. A
claim is known when the learned claim decision says a known passage says the
same and it brings no result number the known records lack.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from kbsearch.dedupe.as_sure import kept_anchor
from kbsearch.dedupe.background import rests_on_background
from kbsearch.dedupe.claim_decision import compared
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.disowned import disowns
from kbsearch.dedupe.embedded import Embedded
from kbsearch.dedupe.features import (
    Neighbourhood,
    claims_features,
    language_features,
    pair_features,
    token_alignment,
)
from kbsearch.dedupe.named_systems import Named, respelled, respelled_differ
from kbsearch.dedupe.own_release import own_release_first
from kbsearch.dedupe.results import Match, Rule, form_of
from kbsearch.records import Kind, Record
from kbsearch.text.advisory_ids import ADVISORY, advisories_apart
from kbsearch.text.textsim import jaccard, language, lexical_tokens, normalized

DOC_SECTION = "a living-doc section covers a field: evidence for the claims it states, not the same item"


def mean_best(cosines: list[float], config: DedupeConfig) -> float:
    """The mean of the ``config.neighbourhood`` best of ``cosines``."""
    if not cosines:
        return 0.0
    return float(np.mean(sorted(cosines, reverse=True)[: config.neighbourhood]))


def neighbourhood(item: Embedded, known: list[Embedded], config: DedupeConfig) -> Neighbourhood:
    """How close the item's nearest candidates are, under each encoder, among all and
    among those of each language."""
    judged = [float(item.judge @ k.judge) if item.judge is not None and k.judge is not None else None for k in known]
    kept: dict[int, tuple[np.ndarray, np.ndarray, float]] = {}
    aligned = [a for k in known if (a := alignment(item, k, kept)) is not None]
    cosines = [float(item.whole @ k.whole) for k in known]
    around = around_of(cosines, [j for j in judged if j is not None], config, aligned)
    by_language: dict[str, tuple[list[float], list[float]]] = {}
    for k, cosine, judge_cosine in zip(known, cosines, judged, strict=True):
        own, own_judged = by_language.setdefault(k.language, ([], []))
        own.append(cosine)
        if judge_cosine is not None:
            own_judged.append(judge_cosine)
    means = {lang: (mean_best(c, config), mean_best(j, config)) for lang, (c, j) in by_language.items()}
    return replace(around, by_language=means, alignments=kept)


def around_of(
    cosines: list[float], judged: list[float], config: DedupeConfig, aligned: list[float] | None = None
) -> Neighbourhood:
    """The neighbourhood read from an item's candidate cosines under each encoder."""
    best = float(np.clip(max(cosines), -1.0, 1.0)) if cosines else -1.0
    judge_best = float(np.clip(max(judged), -1.0, 1.0)) if judged else -1.0
    around_aligned = mean_best(aligned or [], config)
    return Neighbourhood(mean_best(cosines, config), mean_best(judged, config), best, judge_best, around_aligned)


def alignment(
    item: Embedded, known: Embedded, kept: dict[int, tuple[np.ndarray, np.ndarray, float]] | None = None
) -> float | None:
    """The judge's token alignment of two records, when both have token vectors; ``kept``
    holds those read already (``Neighbourhood.alignments``), and gets this one."""
    ours, theirs = item.judge_tokens, known.judge_tokens
    if ours is None or theirs is None:
        return None
    if not len(ours) or not len(theirs):
        return None  # too long for the aligned decision, or no text
    if kept is None:
        return token_alignment(ours, theirs)
    found = kept.get(id(theirs))
    if found is None or found[0] is not ours or found[1] is not theirs:
        found = kept[id(theirs)] = (ours, theirs, token_alignment(ours, theirs))
    return found[2]


def decision_features(
    item: Embedded, known: Embedded, around: Neighbourhood, name_count: Callable[[str], int]
) -> dict[str, float]:
    """What the learned same-item decision reads of the pair (``DedupeConfig.same_item_for``: its form)."""
    features = pair_features(item.side, known.side, around, name_count, alignment(item, known, around.alignments))
    if item.own_claim_rows is not None:
        known_claims = known.own_claim_rows if known.own_claim_rows is not None else known.whole[None, :]
        features.update(claims_features(item.own_claim_rows, item.own_body_rows, known_claims, known.own_body_rows))
        features.update(language_features(features, around, known.language))
    return features


def compare_all(
    item: Embedded, known: list[Embedded], config: DedupeConfig, name_count: Callable[[str], int]
) -> list[Match]:
    """``compare`` for each candidate, with the item's neighbourhood read from all of them."""
    around = neighbourhood(item, known, config)
    return [compare(item, k, config, around, name_count) for k in known]


def one_item(
    matches: list[Match],
    known: dict[str, Embedded],
    config: DedupeConfig,
    name_count: Callable[[str], int],
    item: Embedded | None = None,
) -> list[Match]:
    """Keep the item's same-item matches consistent with each other.

    The surest same-item match (exact evidence first, else ``as_sure.kept_anchor``) is compared with
    every other match the learned decision called the same item; one its record is a different
    item from is not the item either (a note sharing a framework name), however close it came.
    Exact evidence is never overruled, and carries through: a match about no arXiv id
    that is (surely) the item of a record the ids set apart is set apart too (``_id_apart``).
    A new-release tie yields to the record of the ``item``'s own release (``own_release``).
    """
    if item is not None:
        matches = own_release_first(matches, lambda i: item.release_shared(known[i]))
    matches = _id_apart(matches, known, config, name_count)
    same = [m for m in matches if m.same_item]
    if len(same) < 2:
        return matches
    anchors = _anchors(same)
    told = {anchor.id: _told(anchor, matches, known, config, name_count) for anchor in anchors}
    apart = {a: {i: m for i, m in read.items() if not m.same_item} for a, read in told.items()}
    # Only the matches as sure vote, and weaker ones exact evidence ties to one of them (a shared id).
    exact = {i for read in told.values() for i, m in read.items() if m.same_item and m.rule is not Rule.learned}
    anchor, why = kept_anchor(anchors, apart, {a.id for a in anchors} | exact)
    out = []
    for match in matches:
        other = apart[anchor.id].get(match.id)
        if other is not None:
            reason = f"a different item from {anchor.id}, the match kept ({why}): {other.reasons[0]}"
            update = {"same_item": False, "rule": Rule.surer_match, "reasons": [*match.reasons, reason]}
            match = match.model_copy(update=update)
        out.append(match)
    return out


AS_SURE = 0.02
"""Learned matches this close to the surest are as sure: a retelling's probability saturates near 1."""


def _id_apart(
    matches: list[Match], known: dict[str, Embedded], config: DedupeConfig, name_count: Callable[[str], int]
) -> list[Match]:
    """The learned same-item matches about no id (arXiv, advisory) that are, as surely and more
    nearly, the same item as a record the ids set apart from the item: set apart with it.

    A new method about its own id, built on a benchmark another record is about (WebForge-RL
    on WebForge's data), read as the same item as a note retelling that benchmark without
    its id (1.00), though the benchmark's own record was set apart by the ids: the note is
    the benchmark's item, sure as it is the method's and nearer it by cosine."""
    apart_by_ids = [known[m.id] for m in matches if m.rule is Rule.different_ids and m.id in known]
    kinds = {m.id: "advisory" if ADVISORY in m.reasons[0] else "arXiv" for m in matches if m.id in known}
    idless = {m.id for m in matches if m.same_item and m.rule is Rule.learned and not _has_ids(known[m.id])}
    if not apart_by_ids or not idless:
        return matches
    arounds = [
        (base, neighbourhood(base, [k for k in known.values() if k is not base], config)) for base in apart_by_ids
    ]
    out = []
    for match in matches:
        if match.id in idless:
            for base, around in arounds:
                other = compare(base, known[match.id], config, around, name_count)
                if other.same_item and other.probability >= match.probability - AS_SURE and other.score > match.score:
                    reason = (
                        f"the same item as {base.record.id} ({other.probability:.2f}, cosine {other.score:.2f} "
                        f"against {match.score:.2f} here), which is about other "
                        f"{kinds[base.record.id]} ids than this item"
                    )
                    update = {"same_item": False, "rule": Rule.surer_match, "reasons": [*match.reasons, reason]}
                    match = match.model_copy(update=update)
                    break
        out.append(match)
    return out


def _has_ids(known: Embedded) -> bool:
    return bool(known.record.arxiv_ids or known.advisories)


def _anchors(same: list[Match]) -> list[Match]:
    """The matches one_item may keep the others consistent with: exact evidence when there
    is some (never overruled), else the learned matches about as sure as the surest."""
    exact = [m for m in same if m.rule is not Rule.learned]
    if exact:
        return [min(exact, key=lambda m: -m.probability)]
    surest = max(m.probability for m in same)
    return [m for m in same if m.probability >= surest - AS_SURE]


def _told(
    anchor: Match,
    matches: list[Match],
    known: dict[str, Embedded],
    config: DedupeConfig,
    name_count: Callable[[str], int],
) -> dict[str, Match]:
    """What ``anchor``'s record is to each learned same-item match other than it (``compare``)."""
    base = known[anchor.id]
    around = neighbourhood(base, [known[m.id] for m in matches if m.id != anchor.id], config)
    others = (m for m in matches if m.same_item and m.rule is Rule.learned and m.id != anchor.id)
    return {m.id: compare(base, known[m.id], config, around, name_count) for m in others}


def compare(
    item: Embedded,
    known: Embedded,
    config: DedupeConfig,
    around: Neighbourhood,
    name_count: Callable[[str], int],
) -> Match:
    """Decide whether ``known`` describes the same item, and say why."""
    a, b = item.record, known.record
    features = decision_features(item, known, around, name_count)
    scorer = config.same_item_for(features)
    probability = scorer.probability(features)
    shared = sorted(set(a.arxiv_ids) & set(b.arxiv_ids))
    cited = sorted(only_cited(item, known))
    exact = _exact_evidence(item, known, shared, cited, config) or different_names(item, known, config, name_count)
    exact = exact or rests_on_background(item, known, features, scorer)
    if exact is None:
        same = scorer.decide(probability)
        said = compared(probability, "≥" if same else "<", scorer.threshold)
        rule, reason = Rule.learned, f"same item {said} ({form_of(features)} form)"
    else:
        rule, same, reason = exact
    return Match(
        id=b.id,
        kind=b.kind,
        title=b.title,
        instance=b.instance,
        date=b.date,
        score=round(features["cosine"], 4),
        lexical=round(features["lexical"], 4),
        probability=round(probability, 4),
        threshold=scorer.threshold,
        same_item=same,
        rule=rule,
        reasons=[reason],
        features={k: round(v, 4) for k, v in features.items()},
        shared_ids=shared,
        cited_ids=[c for c in cited if c not in shared],
    )


def only_cited(item: Embedded, known: Embedded) -> set[str]:
    """The ids one record is about and the other only cites. An id the citing record
    writes with an earlier day's anchor note is left out: the note does not say
    whether the record continues that item or sets itself beside it."""
    a, b = item.record, known.record
    theirs, ours = set(a.arxiv_ids) & set(b.cited_ids), set(a.cited_ids) & set(b.arxiv_ids)
    # The notes are read only for a pair the rule would set apart: most pairs cite nothing.
    return (theirs - known.anchored_ids if theirs else theirs) | (ours - item.anchored_ids if ours else ours)


def _exact_evidence(
    item: Embedded, known: Embedded, shared: list[str], cited: list[str], config: DedupeConfig
) -> tuple[Rule, bool, str] | None:
    """(rule, same, reason) when ids, identical text or card titles settle it."""
    a, b = item.record, known.record
    one_doc = (a.kind is Kind.doc_section) != (b.kind is Kind.doc_section)
    if shared:
        # A section lists the papers accepted into its field: it holds the item, and
        # says what it says of it (evidence for the claims), but it is not the item.
        if one_doc:
            return Rule.doc_section, False, f"{DOC_SECTION} (it lists arXiv {', '.join(shared)})"
        ids = ", ".join(shared)  # the learned probability beside it (0.03) decides nothing: say so
        return Rule.shared_id, True, f"both are about arXiv {ids}: the shared id decides, not the learned score"
    if cited:
        # An item citing a section's paper (a predecessor, a baseline) is not that field's
        # section, but the section still states what the item may restate of the paper.
        rule = Rule.doc_section if one_doc else Rule.cited_id
        return rule, False, f"one only cites arXiv {', '.join(cited)}, which the other is about"
    if a.arxiv_ids and b.arxiv_ids:
        return Rule.different_ids, False, "about different arXiv ids"
    if one_doc:
        return Rule.doc_section, False, DOC_SECTION
    if advisories := advisories_apart(item.advisories, known.advisories):
        return Rule.different_ids, False, advisories  # a second vulnerability of one tool
    if item.normalized_text == known.normalized_text:
        return Rule.identical_text, True, "identical text"
    return same_paper_title(a, b, config)


def different_names(
    item: Embedded, known: Embedded, config: DedupeConfig, name_count: Callable[[str], int]
) -> tuple[Rule, bool, str] | None:
    """Two records naming different rare systems (``named_systems``), or whose titles name
    different releases of one product or report on different names (``subjects``), are two items;
    a new release whose record gives the earlier one is the same item (``Rule.new_release``)."""
    if item.record.title.strip() and known.record.title.strip() and (tie := item.release_after(known)):
        return Rule.new_release, True, tie
    ours, theirs = item.named(config, name_count), known.named(config, name_count)
    titled = bool(known.record.title.strip())
    pair = respelled(ours, theirs) if titled else None  # once for both readings: a tenth of a check
    reason = respelled_differ(*pair) if pair else None
    if reason is None and item.record.title.strip() and _mirrored(item.record, known.record):
        # Either way round: audit takes the later record as the item, so a one-way rule
        # decided whether a false merge could happen ("TensorRT-LLM 加入 FP4 KV Cache"
        # ruled apart from "Google cuts … pricing" only when it was the item).
        ours_spelled, theirs_spelled = pair or respelled(ours, theirs)
        reason = respelled_differ(theirs_spelled, ours_spelled)
    if reason is None and not titled and not item.record.title.strip():
        reason = item.texts_apart(known, ours.is_rare)  # untitled digests: their texts name the systems
    if titled:
        reason = reason or disowns(item.text_and_claims, item.record.title, known.record.title)
        reason = reason or disowns(known.text_and_claims, known.record.title, item.record.title)
        reason = reason or item.told_apart(known)
        reason = reason or _story_beside_paper((item.record, ours), (known.record, theirs))
    return None if reason is None else (Rule.different_names, False, reason)


def _mirrored(a: Record, b: Record) -> bool:
    """Whether the names rule is read both ways round: not between two paper cards,
    where a card's title is the paper's own ("LoLA: …") and another feed's card of that
    paper may be titled for its technique; the card-title rule settles most such pairs."""
    return a.kind is not Kind.paper_card or b.kind is not Kind.paper_card


def _story_beside_paper(item: tuple[Record, Named], known: tuple[Record, Named]) -> str | None:
    """Why a story and a paper's record are two items, or None: the paper's record (a card,
    or with an arXiv id) titles a rare system the story never mentions, and the story, of no
    arXiv id given or cited, titles no rare name of its own. Probe: "Consumer-GPU MoE
    inference becomes a selling point for hosting startups" (citing "expert prefetching
    research") was the item of PrefetchMoE's card and briefing items, 0.96: a market story
    about a paper is not the paper (``names_differ`` wants it to name a rare system of its own)."""
    for (story, told), (paper, named) in ((item, known), (known, item)):
        if story.kind is Kind.paper_card or story.arxiv_ids or story.cited_ids or told.title:
            continue
        if (paper.kind is Kind.paper_card or paper.arxiv_ids) and named.title and not named.title & told.mentioned:
            return f"the paper's title names {', '.join(sorted(named.title))}, which the story never mentions"
    return None


def same_paper_title(a: Record, b: Record, config: DedupeConfig) -> tuple[Rule, bool, str] | None:
    """The verdict of two paper cards' titles, or None when titles do not settle it."""
    if a.kind is not Kind.paper_card or b.kind is not Kind.paper_card:
        return None
    if min(len(a.title.split()), len(b.title.split())) < config.title_min_words:
        return None
    if normalized(a.title) == normalized(b.title):
        return Rule.card_title, True, "paper cards with the same title"
    if language(a.title) != language(b.title):
        return None
    overlap = jaccard(lexical_tokens(a.title), lexical_tokens(b.title))
    if overlap < config.different_title_overlap:
        return Rule.card_title, False, f"paper cards with different titles (word overlap {overlap:.2f})"
    return None


def ruled_out(
    item: Embedded, known: Embedded, config: DedupeConfig, name_count: Callable[[str], int] | None = None
) -> bool:
    """Whether exact evidence says ``known`` is another item (it only cites the
    item's id, or is about other ids, or is a card of another paper, or, given
    ``name_count``, each names a rare system the other never mentions): what it
    says then never makes a claim of the item known."""
    names = None if name_count is None else different_names(item, known, config, name_count)
    if names is not None and not names[1]:
        return True
    a, b = item.record, known.record
    shared = set(a.arxiv_ids) & set(b.arxiv_ids)
    exact = _exact_evidence(item, known, sorted(shared), sorted(only_cited(item, known)), config)
    # A section is another item but still says things: its passages stay evidence for claims.
    return exact is not None and not exact[1] and exact[0] is not Rule.doc_section


def restates_same_paper(item: Record, same_items: list[Embedded]) -> bool:
    """Whether the item is a paper card and a known card is the same paper."""
    return item.kind is Kind.paper_card and any(k.record.kind is Kind.paper_card for k in same_items)

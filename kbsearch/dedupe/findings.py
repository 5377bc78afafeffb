"""What every rule of ``compare`` says about one pair, in its order: ``explain``'s table.

``compare`` stops at the first rule with a say; a reader asking why two records
were (or were not) judged one item wants to see the others too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kbsearch.dedupe.claim_decision import compared
from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.finer import item_names
from kbsearch.dedupe.results import RuleFinding, form_of
from kbsearch.dedupe.rules import DOC_SECTION, Embedded, decision_features, different_names, same_paper_title
from kbsearch.dedupe.variants import shared_families
from kbsearch.records import Kind
from kbsearch.text.advisory_ids import advisories_apart


def rule_findings(
    item: Embedded,
    known: Embedded,
    config: DedupeConfig,
    name_count: Callable[[str], int],
    around: Neighbourhood | None = None,
) -> list[RuleFinding]:
    """What every rule of ``compare`` says about the pair, in its order; the
    first one with a say is the one ``compare`` decides by."""
    a, b = item.record, known.record
    shared = sorted(set(a.arxiv_ids) & set(b.arxiv_ids))
    cited = sorted((set(a.arxiv_ids) & set(b.cited_ids)) | (set(a.cited_ids) & set(b.arxiv_ids)))
    one_doc = (a.kind is Kind.doc_section) != (b.kind is Kind.doc_section)
    found = [RuleFinding(rule="arxiv ids", says=None, detail="no arXiv id is about both, or cited by one")]
    if shared and one_doc:  # a section listing the item's id is still a section (the next rule)
        found[0] = RuleFinding(rule="arxiv ids", says=None, detail=f"both are about arXiv {', '.join(shared)}")
    elif shared:
        found[0] = RuleFinding(rule="arxiv ids", says=True, detail=f"both are about arXiv {', '.join(shared)}")
    elif cited:
        found[0] = RuleFinding(rule="arxiv ids", says=False, detail=f"one only cites arXiv {', '.join(cited)}")
    elif a.arxiv_ids and b.arxiv_ids:
        found[0] = RuleFinding(rule="arxiv ids", says=False, detail="about different arXiv ids")
    found.append(
        RuleFinding(
            rule="doc section",
            says=False if one_doc else None,
            detail=DOC_SECTION if one_doc else "not a section beside an item",
        )
    )
    advisories = None if one_doc else advisories_apart(item.advisories, known.advisories)
    detail = advisories or "no advisory id (CVE, GHSA, ...) of one kind on each side, all different"
    found.append(RuleFinding(rule="advisory ids", says=False if advisories else None, detail=detail))
    identical = item.normalized_text == known.normalized_text
    detail = "identical text" if identical else "the texts differ"
    found.append(RuleFinding(rule="identical text", says=True if identical else None, detail=detail))
    by_title = same_paper_title(a, b, config)
    found.append(
        RuleFinding(rule="paper-card titles", says=None, detail="not two paper cards with titles that settle it")
        if by_title is None
        else RuleFinding(rule="paper-card titles", says=by_title[1], detail=by_title[2])
    )
    names = different_names(item, known, config, name_count)
    detail = names[2] if names else _names_agree(item, known, config, name_count)
    found.append(RuleFinding(rule="named systems", says=names[1] if names else None, detail=detail))
    features = decision_features(item, known, around or Neighbourhood(), name_count)
    scorer = config.same_item_for(features)
    probability = scorer.probability(features)
    same = scorer.decide(probability)
    read = ", ".join(f"{name} {features[name]:.2f}" for name in scorer.features)
    said = compared(probability, "≥" if same else "<", scorer.threshold)
    detail = f"same item {said} ({form_of(features)} form: {read})"
    found.append(RuleFinding(rule="learned", says=same, detail=detail))
    return found


def _names_agree(item: Embedded, known: Embedded, config: DedupeConfig, name_count: Callable[[str], int]) -> str:
    """What the named-systems rule saw when it had no say: the rare systems both name (probe 16:
    two records naming MarlSpire read "the two name no rare systems"), or that there were none.
    Beside a doc section, only the names the item's title names it by (``finer.item_names``)."""
    ours, theirs = item.named(config, name_count), known.named(config, name_count)
    shared = ours.every & theirs.every
    one_doc = (item.record.kind is Kind.doc_section) != (known.record.kind is Kind.doc_section)
    if one_doc:
        told = known if item.record.kind is Kind.doc_section else item  # as audit and check read a section
        shared &= item_names(told, config, name_count)  # probe 19: not vLLM of "Kestrel merged into vLLM"
    text = "\n".join([item.record.title, item.text_and_claims])
    # The systems both titles name are what the rule weighed first: probe 41 cited a benchmark
    # both texts name (HarmGauntlet) for two system cards titled for Vesper-3 and Vesper-3 Mini.
    titles = item.record.title, known.record.title
    titled = [] if one_doc else sorted(ours.title_every & theirs.title_every) + shared_families(*titles)
    if titled:
        return f"both titles name {', '.join(_written(titled, text))}: {_NOTHING_APART}"
    both = sorted(n for n in shared if ours.is_rare(n))
    if both:
        return f"both name {', '.join(_written(both, text))} (rare): {_NOTHING_APART}"
    return "no rare system, release or news subject named by one sets them apart"


_NOTHING_APART = "no system, release, variant or news subject sets them apart"


def _written(names: list[str], text: str) -> list[str]:
    """The first three ``names`` as ``text`` writes them (HarmGauntlet, not harmgauntlet)."""
    return [found.group(0) if (found := re.search(re.escape(n), text, re.IGNORECASE)) else n for n in names[:3]]

"""A market story about a paper is not the paper's item (``rules._story_beside_paper``).

Probe 10: "Consumer-GPU MoE inference becomes a selling point for hosting startups", citing
"expert prefetching research", was the same item (0.96) as the PrefetchMoE card and the
briefing items on it, and its claim "startups advertise…" was counted known from the card."""

from __future__ import annotations

from conftest import fake_config
from support.embedded import judged as compared

from fake_encoder import FakeEncoder
from kbsearch.dedupe.results import Rule
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
STORY = Record(
    id="stephen-story",
    kind=Kind.increment,
    title="Single-card MoE serving becomes a selling point for hosting startups",
    text="Two hosts advertise a 141B MoE on one 24 GB card, citing expert prefetching research.",
)
CARD = Record(
    id="card/9",
    kind=Kind.paper_card,
    title="LookaheadMoE: Predictive Expert Prefetching for Offloaded MoE Inference",
    text="A small predictor prefetches the next layers' experts; a 141B MoE decodes on one 24 GB card.",
    arxiv_ids=["2611.99999"],
)


def judged(a: Record, b: Record) -> tuple[Rule, bool, str]:
    return compared(a, b, lambda name: 1 if name == "lookaheadmoe" else 50)


def test_a_story_never_naming_the_paper_is_not_its_item_either_way() -> None:
    retold = CARD.model_copy(update={"id": "spark-paper", "kind": Kind.increment})
    for a, b in ((STORY, CARD), (CARD, STORY), (STORY, retold)):
        rule, same, reason = judged(a, b)
        assert (rule, same) == (Rule.different_names, False), reason
        assert "lookaheadmoe" in reason


def test_a_story_naming_or_citing_the_paper_is_left_to_the_learned_decision() -> None:
    naming = STORY.model_copy(update={"text": STORY.text + " Both cite LookaheadMoE."})
    citing = STORY.model_copy(update={"cited_ids": ["2611.99999"]})
    for story in (naming, citing):
        reason = judged(story, CARD)[2]
        assert "never mentions" not in reason, reason
    no_id = CARD.model_copy(update={"id": "tom-news", "kind": Kind.increment, "arxiv_ids": []})
    assert "never mentions" not in judged(STORY, no_id)[2]  # news of a product: not a paper's record

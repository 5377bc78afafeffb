"""Where an item is hosted or published (GitHub, Hugging Face, arXiv, OpenReview, NeurIPS)
is not what it is about (``named_systems.systems_only``)."""

from __future__ import annotations

from conftest import fake_config

from fake_encoder import FakeEncoder
from kbsearch.dedupe.features import Neighbourhood
from kbsearch.dedupe.named_systems import systems_only
from kbsearch.dedupe.results import Rule
from kbsearch.dedupe.rules import Embedded, compare
from kbsearch.records import Kind, Record

ENCODER = FakeEncoder()
CONFIG = fake_config()
PAPER = "用三角注意力压缩长上下文的缓存，显存降 4 倍，精度不掉。"


def embedded(record_id: str, title: str, text: str, kind: Kind = Kind.increment) -> Embedded:
    record = Record(id=record_id, kind=kind, title=title, text=text)
    return Embedded(record, ENCODER.encode(record.passages()))


def test_a_title_saying_where_the_code_is_names_no_other_system() -> None:
    """Probe 22: mira's "Triangle attention compresses long context, code on GitHub" against the Chinese
    record of the same paper, which says nothing of its code: "github" was read as a rare
    system (a young index holds it in few records) the other record never mentions, and the
    names rule set the repeat apart."""
    known = embedded("jay", "三角注意力压缩长上下文", PAPER)
    repeat = embedded(
        "mira", "Triangle attention compresses long context, code on GitHub", PAPER + " github.com/org/repo"
    )
    match = compare(repeat, known, CONFIG, Neighbourhood(), lambda name: 1)
    assert match.rule is not Rule.different_names, match.reasons
    back = compare(known, repeat, CONFIG, Neighbourhood(), lambda name: 1)
    assert back.rule is not Rule.different_names, back.reasons


def test_hosts_and_venues_name_no_system_but_their_items_do() -> None:
    """A framework stays a name: a PyTorch release is an item of its own."""
    names = {"github", "huggingface", "hf", "arxiv", "openreview", "neurips", "icml", "iclr", "acl", "semeval", "ieee"}
    assert systems_only(frozenset(names | {"trikv", "gitkv", "pytorch"})) == {"trikv", "gitkv", "pytorch"}


def test_two_titles_naming_only_their_venue_are_not_set_apart_by_it() -> None:
    """ "… accepted at NeurIPS 2025" against the same paper's record titled without its venue."""
    known = embedded("jay", "三角注意力压缩长上下文", PAPER)
    repeat = embedded("mira", "Triangle attention paper accepted at NeurIPS, weights on HuggingFace", PAPER)
    match = compare(repeat, known, CONFIG, Neighbourhood(), lambda name: 1)
    assert match.rule is not Rule.different_names, match.reasons

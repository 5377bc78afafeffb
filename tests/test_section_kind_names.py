"""A title's indefinite description says what kind of thing its item is, not its name.

Probe 32: "kestrel: a small Python MCP client library …" had one rare coined name in its
title, MCP, standing in "a … MCP client library". A young index holds MCP in few records,
so the living-doc sections on MCP servers and on MCP client libraries were read as lines
on the item (``finer.section_on_item``: "the section names MCP"), each of their sentences
weighed as the item's own, where the fitted form's low same-item threshold took a field
remark ("write tools should be off by default") for the item's pooling news. A name in
"X: a … Y" or "X, an … Y" describes the kind (``finer.names_about``); a section naming the
item itself, or copying one of its claims, is still its line."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from support.checking import check_one, said_by
from test_finer_passages import OTHER

from kbsearch.dedupe.finer import names_about, section_on_item
from kbsearch.dedupe.results import ItemResult, Verdict
from kbsearch.records import Kind, Record

RPC = Record(
    id="doc/infra#§3.2",
    kind=Kind.doc_section,
    title="§3.2 RPC 层",
    text="内部服务统一走 AMQP 网关，超时默认 30 秒。\n- AMQP 客户端以官方库为主，社区库大多只有一元调用。",
    date=dt.date(2026, 10, 1),
)
TITLE = "quokka: a tiny Go AMQP client with retry budgets"
QUOKKA = Record(
    id="lin/2026-10-06#2",
    kind=Kind.increment,
    instance="lin",
    date=dt.date(2026, 10, 6),
    title=TITLE,
    text="",
    claims=["quokka shares one retry budget across all channels", "社区库大多只有一元调用，quokka 也是"],
)


def test_a_name_in_the_titles_indefinite_description_is_the_kind_not_the_item() -> None:
    assert names_about(TITLE, frozenset({"amqp"})) == frozenset()
    assert names_about("quokka：一个 Go AMQP 客户端", frozenset({"amqp"})) == frozenset()
    assert names_about("Quokka, an RPC layer over AMQP", frozenset({"quokka", "amqp"})) == {"quokka"}
    assert names_about("开源：Quokka 与 AMQP 重试", frozenset({"quokka", "amqp"})) == {"quokka", "amqp"}  # a label lead
    assert section_on_item(QUOKKA, RPC, frozenset({"amqp"}), ()) is None
    named = RPC.model_copy(update={"text": "Quokka 1.2 的 AMQP 客户端在所有通道间共享一个重试预算。"})
    found = section_on_item(
        QUOKKA.model_copy(update={"title": "Quokka: a tiny Go AMQP client"}), named, frozenset({"quokka", "amqp"}), ()
    )
    assert found is not None and found[1] == "the section names Quokka"


def check(tmp_path: Path, stored: list[Record], item: Record) -> ItemResult:
    # A claim form trusting the passage's cosine alone. A section on the item has its lines
    # weighed (each as another record's passage, ``section_said``); one that is not has only its
    # whole stored text weighed, which says none of these claims.
    return check_one(tmp_path, stored, item, said_by("cosine"))


def test_a_section_on_the_kind_of_thing_the_item_is_makes_none_of_its_claims_known(tmp_path: Path) -> None:
    result = check(tmp_path, [RPC, OTHER], QUOKKA)
    assert [c.known for c in result.claims] == [False, False]
    assert result.verdict is Verdict.NEW and result.held_in_doc is None


def test_a_section_naming_the_item_still_states_its_claims(tmp_path: Path) -> None:
    text = "- Quokka shares one retry budget across all channels.\n- AMQP 客户端以官方库为主。"
    named = RPC.model_copy(update={"text": text})
    item = QUOKKA.model_copy(update={"title": "Quokka: a tiny Go AMQP client", "claims": QUOKKA.claims[:1]})
    result = check(tmp_path, [named, OTHER], item)
    assert [(c.known, c.best_id) for c in result.claims] == [(True, RPC.id)]

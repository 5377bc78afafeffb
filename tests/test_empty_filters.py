"""An empty result says why: the filters that together leave nothing (each
alone finds records), or how many records pass the filters though the query
matched none of them (``kbsearch.kb.empty``)."""

from __future__ import annotations

import json


def test_an_instance_that_never_wrote_on_the_topic_is_said_with_what_it_wrote_on(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    said = (
        "no record by instance 'spark' has topic 'agents' (spark's topics: llm-infra; "
        "instances with topic 'agents': stephen, tom): leave out the topic or the instance filter"
    )
    code, out, _ = cli("search", "KV cache", "--instance", "spark", "--topic", "agents", "--index", index)
    assert code == 0 and out.strip() == f"no results for 'KV cache': {said}"
    code, out, _ = cli("list", "--instance", "spark", "--topic", "agents", "--index", index)
    assert out.splitlines()[-1] == said
    code, out, _ = cli("search", "KV cache", "--instance", "spark", "--topic", "agents", "--index", index, "--json")
    found = json.loads(out)
    assert found["matched"] is None and found["unknown_filters"] == [
        {
            "filter": "topic",
            "value": "agents",
            "known": ["llm-infra"],
            "kinds": [],
            "within": {"instance": "spark"},
            "elsewhere": ["stephen", "tom"],
        }
    ]


def test_dates_or_a_section_that_leave_nothing_are_named(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = cli("list", "--instance", "jay", "--since", "2026-09-21", "--index", index)
    assert out.splitlines()[-1] == (
        "no record by instance 'jay' is dated from 2026-09-21 (theirs: 2026-08-26 to 2026-09-20): "
        "leave out the date or the instance filter"
    )
    _, out, _ = cli("search", "KV cache", "--since", "2030-01-01", "--until", "2030-02-01", "--index", index)
    assert out.strip() == (
        "no results for 'KV cache': no record is dated 2030-01-01 to 2030-02-01 (dates: 2026-08-26 to 2026-09-21)"
    )
    _, out, _ = cli("search", "KV cache", "--kind", "increment", "--section", "§99", "--index", index, "--json")
    assert json.loads(out)["unknown_filters"] == [
        {"filter": "section", "value": "§99", "known": [], "kinds": [], "within": {}, "elsewhere": []}
    ]


def test_records_passing_the_filters_that_the_query_misses_are_counted(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    argv = ("search", "zzqqxx", "--mode", "lexical", "--index", index)
    code, out, _ = cli(*argv, "--instance", "jay")
    assert code == 0 and out.strip() == (
        "no results for 'zzqqxx': 10 records match the filters; none matched the query: "
        "try --mode hybrid or a shorter query"
    )
    code, out, _ = cli(*argv)
    assert out.strip() == (
        "no results for 'zzqqxx': none of the 45 records matched the query: try --mode hybrid or a shorter query"
    )
    code, out, _ = cli(*argv, "--instance", "jay", "--json")
    assert json.loads(out)["matched"] == 10 and json.loads(out)["unknown_filters"] == []


def test_the_tui_summary_says_what_the_cli_says() -> None:
    from kbsearch.responses import SearchMode, SearchResponse
    from kbsearch.store import SearchFilter
    from kbsearch.tui.hits import summary

    response = SearchResponse(
        query="KV", model="m", mode=SearchMode.hybrid, k=10, filters=SearchFilter(topic="agents"), results=[],
        seconds=0.0, matched=4,
    )  # fmt: skip
    line = summary(response, 0, timing=False).plain
    assert "4 records match the filters; none matched the query: try --mode lexical or a shorter query" in line

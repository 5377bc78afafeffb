"""What a new user runs into: a bug that must not read as a verdict, a
misspelt or shortened option, a filter naming what the index does not hold,
a JSONL line with an empty id."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from support.cli import index_files

from kbsearch.kb import KnowledgeBase

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BRIEFING = str(EXAMPLES / "briefings" / "2026-09-20-jay-engineering-e1prep.md")


def _breaks(error: BaseException):  # type: ignore[no-untyped-def]
    def broken(*args: object, **kwargs: object) -> None:
        raise error

    return broken


# -- a bug is not a verdict ------------------------------------------------------


def test_a_bug_exits_3_with_one_line_not_1_with_a_traceback(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(KnowledgeBase, "check", _breaks(ValueError("a bug deep\nin the code")))
    code, out, err = cli("check", BRIEFING, "--index", index)
    assert code == 3 and out == ""
    assert err.splitlines() == [
        "kbsearch: internal error: ValueError: a bug deep in the code (a bug in kbsearch, not in the input: "
        "re-run with KBSEARCH_TRACEBACK=1 to see where, and report it)"
    ]
    code, out, err = cli("check", BRIEFING, "--index", index, "--json")
    assert code == 3 and out == ""
    error = json.loads(err)
    assert error["error"] == "internal error: ValueError: a bug deep in the code" and error["exit_code"] == 3
    assert "KBSEARCH_TRACEBACK=1" in error["hint"]


def test_the_traceback_of_a_bug_is_shown_on_request(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(KnowledgeBase, "check", _breaks(ValueError("a bug")))
    monkeypatch.setenv("KBSEARCH_TRACEBACK", "1")
    code, _, err = cli("check", BRIEFING, "--index", index)
    assert code == 3 and err.startswith("Traceback (most recent call last):") and "in broken" in err
    assert err.splitlines()[-1].startswith("kbsearch: internal error: ValueError: a bug (")


def test_ctrl_c_still_exits_130_without_a_traceback(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(KnowledgeBase, "check", _breaks(KeyboardInterrupt()))
    code, out, err = cli("check", BRIEFING, "--index", index)
    assert code == 130 and out == "" and "Traceback" not in err and err.startswith("kbsearch: interrupted")


# -- a misspelt or shortened option ----------------------------------------------


def test_a_misspelt_option_gets_the_commands_usage_and_the_option_it_is_close_to(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("check", BRIEFING, "--asof", "2026-09-01", "--index", index)
    assert code == 2 and out == ""
    assert err.startswith("usage: kbsearch check ") and "usage: kbsearch [-h]" not in err
    assert err.rstrip().endswith("kbsearch: error: unrecognized arguments: --asof 2026-09-01; did you mean --as-of?")
    code, _, err = cli("check", BRIEFING, "--asof", "2026-09-01", "--index", index, "--json")
    error = json.loads(err)
    assert code == 2 and error["exit_code"] == 2
    assert error["error"] == "unrecognized arguments: --asof 2026-09-01" and error["hint"] == "did you mean --as-of?"
    assert error["usage"].startswith("usage: kbsearch check ")


def test_an_option_far_from_any_gets_no_guess_but_where_the_options_are(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("search", "x", "--zzzzzz", "--index", index)
    assert code == 2 and err.startswith("usage: kbsearch search ")
    assert err.rstrip().endswith(
        "kbsearch: error: unrecognized arguments: --zzzzzz; 'kbsearch search --help' lists its options"
    )
    code, _, err = cli("search", "x", "--zzzzzz", "--index", index, "--json")
    error = json.loads(err)
    assert code == 2 and error["error"] == "unrecognized arguments: --zzzzzz"
    assert error["hint"] == "'kbsearch search --help' lists its options"


@pytest.mark.parametrize(
    ("argv", "said", "hint"),
    [
        (
            ["search", "x", "--since", "2026-13-01"],
            "--since: '2026-13-01' is not a date (month must be in 1..12); write YYYY-MM-DD, like 2026-09-19",
            None,
        ),
        (
            ["search", "x", "--kind", "inc"],
            "--kind: 'inc' is not one of increment, paper_card, doc_section",
            "did you mean increment?",
        ),
        (["list", "--kind", "zzz"], "--kind: 'zzz' is not one of increment, paper_card, doc_section", None),
        (["search", "x", "-k", "ten"], "-k: 'ten' is not a whole number", None),
        (
            ["search", "x", "--mode", "hybird"],
            "--mode: 'hybird' is not one of dense, lexical, hybrid",
            "did you mean hybrid?",
        ),
        (["serve", "--http", "127.0.0.1:1", "--budget", "soon"], "--budget: 'soon' is not a number", None),
    ],
    ids=["bad month", "kind started", "kind unknown", "k not a number", "mode misspelt", "budget not a number"],
)
def test_a_bad_value_of_an_option_is_one_line_naming_it_and_what_it_takes(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    argv: list[str],
    said: str,
    hint: str | None,
) -> None:
    """The whole usage block (ten lines) came first, and under --json inside the error object."""
    code, out, err = cli(*argv, "--index", index)
    assert (code, out) == (2, "") and err == f"kbsearch: {said}" + (f"; {hint}" if hint else "") + "\n"
    code, out, err = cli(*argv, "--index", index, "--json")
    assert (code, out) == (2, "")
    assert json.loads(err) == {"error": said, "hint": hint, "usage": None, "exit_code": 2}


@pytest.mark.parametrize("command", [["search", "x"], ["similar", "card/1093"]], ids=lambda argv: argv[0])
def test_k_over_what_a_server_answers_is_said_in_the_flags_words(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    command: list[str],
) -> None:
    """Through a server it was 'k: Input should be less than or equal to 1000', the server's validator's words."""
    token = tmp_path / "token"
    token.write_text("t", encoding="utf-8")
    server = ["--server", "http://127.0.0.1:9", "--token-file", str(token)]  # refused before it is asked
    code, out, err = cli(*command, "-k", "100000", *server)
    assert (code, out) == (2, "") and err == (
        "kbsearch: -k must be at most 1000 when a server answers (http://127.0.0.1:9), not 100000 "
        "(lower -k, or pass --local to read the index here, which takes any -k)\n"
    )
    code, out, _ = cli(*command, "-k", "1001", "--index", index)  # locally: any -k
    assert code == 0 and out


@pytest.mark.parametrize(
    ("option", "meant"),
    [("--bogus", None), ("--verbos", "--verbose"), ("--sinse", "--since"), ("--inst", "--instance")],
)
def test_an_unknown_option_is_matched_only_when_close_enough(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    option: str,
    meant: str | None,
) -> None:
    """--bogus was asked 'did you mean --verbose?'."""
    code, _, err = cli("search", "x", option, "--index", index, "--json")
    hint = json.loads(err)["hint"]
    assert code == 2 and hint == (f"did you mean {meant}?" if meant else "'kbsearch search --help' lists its options")


def test_a_usage_error_with_nothing_to_suggest_has_a_null_hint(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("search", "--index", index, "--json")
    error = json.loads(err)
    assert code == 2 and error["error"] == "the following arguments are required: query" and error["hint"] is None


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["ingest", str(EXAMPLES / "cards"), "--prun"], "--prune"),
        (["search", "x", "--inst", "jay"], "--instance"),
        (["check", BRIEFING, "--acc"], "--accept"),
        (["list", "--lim", "3"], "--limit"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else value,
)
def test_an_option_is_never_taken_from_its_start(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    argv: list[str],
    meant: str,
) -> None:
    copy = shutil.copytree(index, tmp_path / "idx")  # taken as --prune or --accept, they would write
    before = index_files(copy)
    code, out, err = cli(*argv, "--index", str(copy))
    assert code == 2 and out == "" and err.startswith(f"usage: kbsearch {argv[0]} ")
    assert err.rstrip().endswith(f"; did you mean {meant}?")
    assert index_files(copy) == before


# -- an option before its command, a misspelt command ----------------------------


def test_an_option_before_its_command_is_told_to_go_after_it(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--json", "stats")
    assert code == 2 and out == ""
    assert json.loads(err) == {
        "error": "unrecognized arguments: --json",
        "hint": "put --json after the command: kbsearch stats --json",
        "usage": "usage: kbsearch [-h] [--version] [--index DIR] COMMAND ...",
        "exit_code": 2,
    }
    # An option taking a value takes it along; the command line shown runs.
    code, _, err = cli("--index", index, "-v", "search", "KV cache", "-k", "2")
    fixed = f"kbsearch search --index {index} -v 'KV cache' -k 2"
    assert code == 2 and err.splitlines()[-1].endswith(f"; put --index -v after the command: {fixed}")
    code, out, _ = cli(*shlex.split(fixed)[1:])
    assert code == 0 and "(2 results" in out


def test_a_misspelt_option_before_its_command_gets_the_option_and_where_it_goes(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--jsn", "stats")
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == (
        "kbsearch: error: unrecognized arguments: --jsn; did you mean --json? "
        "put --json after the command: kbsearch stats --json"
    )
    code, _, err = cli("--indx", index, "--jsn", "search", "KV", "-k", "1")
    fixed = f"kbsearch search --index {index} --json KV -k 1"
    assert code == 2 and err.splitlines()[-1].endswith(
        f"; did you mean --index for --indx, --json for --jsn? put --index --json after the command: {fixed}"
    )
    code, out, _ = cli(*shlex.split(fixed)[1:])
    assert code == 0 and len(json.loads(out)["results"]) == 1


def test_an_options_value_before_the_command_is_not_a_misspelt_command(cli) -> None:  # type: ignore[no-untyped-def]
    """argparse reads idx as the command: it was taken for a misspelt reindex."""
    code, _, err = cli("--indx", "idx", "stats")
    assert code == 2 and "did you mean reindex?" not in err
    assert err.rstrip().endswith("did you mean --index? put --index after the command: kbsearch stats --index idx")


def test_the_index_may_stand_before_the_command(index: str, tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    """A probe's ``kbsearch --index DIR ingest …`` was refused; the option is the whole program's now."""
    code, out, _ = cli("--index", index, "stats", "--json")
    assert code == 0 and json.loads(out)["records"] > 0
    # Given after the command too, that one wins.
    code, _, err = cli("--index", index, "stats", "--index", str(tmp_path / "none"))
    assert code == 2 and str(tmp_path / "none") in err


def test_an_option_no_command_has_or_the_commands_own_error_gets_no_move(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("--zzzz", "stats")
    assert code == 2 and err.rstrip().endswith("kbsearch: error: unrecognized arguments: --zzzz")
    # check's own error (its INPUT is missing) stays the one said: moving --json would not fix it.
    code, _, err = cli("--json", "check")
    error = json.loads(err)
    assert code == 2 and error["error"] == "the following arguments are required: INPUT" and error["hint"] is None


def test_a_misspelt_command_gets_the_command_it_is_close_to(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("serch", "list")
    assert code == 2 and out == "" and err.startswith("usage: kbsearch [-h]")
    assert err.rstrip().endswith("; did you mean search?")
    code, _, err = cli("--json", "serch", "kv")
    assert code == 2 and json.loads(err)["hint"] == "did you mean search?"
    code, _, err = cli("zzzzzz", "kv")
    assert code == 2 and "did you mean" not in err


# -- a filter naming what no record has ------------------------------------------


def test_a_filter_naming_an_instance_no_record_has_says_so(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("search", "KV cache", "--instance", "nobody", "--index", index)
    assert code == 0 and err == ""
    assert out.strip() == (
        "no results for 'KV cache': no record has instance 'nobody' (instances: jay, spark, stephen, tom)"
    )
    code, out, _ = cli("search", "KV cache", "--instance", "nobody", "--topic", "cooking", "--index", index, "--json")
    found = json.loads(out)
    assert code == 0 and found["results"] == [] and found["filters"]["instance"] == "nobody"
    assert found["unknown_filters"] == [
        {
            "filter": "instance",
            "value": "nobody",
            "known": ["jay", "spark", "stephen", "tom"],
            "kinds": [],
            "within": {},
            "elsewhere": [],
        },
        {
            "filter": "topic",
            "value": "cooking",
            "known": ["agents", "ai-industry", "engineering", "inference", "llm-infra"],
            "kinds": [],
            "within": {},
            "elsewhere": [],
        },
    ]


def test_a_known_instance_is_not_called_unknown(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    # Filters match regardless of ASCII case, so JAY is jay's.
    argv = ("search", "zzqqxx", "--mode", "lexical", "--instance", "JAY", "--index", index)
    code, out, _ = cli(*argv)
    assert code == 0 and out.strip() == (
        "no results for 'zzqqxx': 10 records match the filters; none matched the query: "
        "try --mode hybrid or a shorter query"
    )
    code, out, _ = cli(*argv, "--json")
    assert json.loads(out)["unknown_filters"] == []


def test_a_kind_no_record_has_is_named_too(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cards = tmp_path / "cards"
    cards.mkdir()
    shutil.copy(EXAMPLES / "cards" / "card-1422-when2think.md", cards)
    index = str(tmp_path / "idx")
    assert cli("ingest", str(cards), "--index", index)[0] == 0
    code, out, _ = cli("search", "When2Think", "--kind", "doc_section", "--kind", "increment", "--index", index)
    assert code == 0 and out.strip() == (
        "no results for 'When2Think': no record has kind 'doc_section' or 'increment' (kinds: paper_card)"
    )
    # Cards are there, so the kinds do not explain an empty result.
    argv = ("search", "zzqqxx", "--mode", "lexical", "--kind", "doc_section", "--kind", "paper_card")
    code, out, _ = cli(*argv, "--index", index)
    assert code == 0 and out.strip() == (
        "no results for 'zzqqxx': 1 record matches the filters; none matched the query: "
        "try --mode hybrid or a shorter query"
    )


def test_a_topic_no_record_of_the_kinds_has_says_so(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    """Cards have no topic: a new user's `--topic inference --kind paper_card` printed a
    bare "no results", unlike `--instance nobody`, which says why."""
    code, out, _ = cli("search", "KV cache", "--topic", "agents", "--kind", "paper_card", "--index", index)
    assert code == 0 and out.strip() == (
        "no results for 'KV cache': no paper_card has topic 'agents' (theirs: inference): "
        "leave out the topic or the kind filter"
    )
    code, out, _ = cli("list", "--instance", "tom", "--kind", "paper_card", "--index", index, "--json")
    assert json.loads(out)["unknown_filters"] == [
        {"filter": "instance", "value": "tom", "known": [], "kinds": ["paper_card"], "within": {}, "elsewhere": []}
    ]
    code, out, _ = cli("list", "--instance", "tom", "--kind", "paper_card", "--index", index)
    assert out.splitlines()[-1] == (
        "no paper_card has instance 'tom' (paper_card records have no instance): "
        "leave out the instance or the kind filter"
    )
    argv = ("search", "zzqqxx", "--mode", "lexical", "--topic", "inference", "--kind", "paper_card")
    code, out, _ = cli(*argv, "--index", index, "--json")
    assert json.loads(out)["unknown_filters"] == []  # such a record exists: the query found none


# -- a JSONL line with an empty id -------------------------------------------------


@pytest.mark.parametrize("empty", ["", "  "], ids=["empty", "spaces"])
def test_a_jsonl_line_with_an_empty_id_is_refused_naming_the_line(
    index: str,
    cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    empty: str,
) -> None:
    lines = tmp_path / "inbox.jsonl"
    lines.write_text(json.dumps({"title": "fine", "id": "x/1"}) + "\n" + json.dumps({"title": "a", "id": empty}) + "\n")
    copy = shutil.copytree(index, tmp_path / "idx")
    before = index_files(copy)
    problem = "id is blank (whitespace only)" if empty else "id is empty"
    expected = f"{lines}:2: {problem} (give the record an id, or leave the 'id' field out and it gets inbox#2)"
    for command in ("ingest", "check"):
        code, out, err = cli(command, str(lines), "--index", str(copy))
        assert code == 2 and out == ""
        assert err.splitlines()[-1].endswith(expected), command
    assert index_files(copy) == before


def test_list_and_audit_through_an_instance_no_record_has_say_so(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    said = "no record has instance 'nobody' (instances: jay, spark, stephen, tom)"
    code, out, _ = cli("list", "--instance", "nobody", "--index", index)
    assert code == 0 and out.splitlines()[-2:] == ["(0 of 45 records match the filters)", said]
    code, out, err = cli("list", "--instance", "nobody", "--format", "ids", "--index", index)
    # stdout stays ids only: not even an empty line, which 'while read id' reads as an empty id
    assert code == 0 and out == "" and err.strip() == said
    code, out, _ = cli("list", "--instance", "nobody", "--index", index, "--json")
    assert json.loads(out)["unknown_filters"] == [
        {
            "filter": "instance",
            "value": "nobody",
            "known": ["jay", "spark", "stephen", "tom"],
            "kinds": [],
            "within": {},
            "elsewhere": [],
        }
    ]
    code, out, _ = cli("audit", "--instance", "nobody", "--index", index)
    assert code == 0 and out.splitlines()[:2] == [
        "0 clusters of the same item holding any of the 0 records chosen (45 compared)",
        said,
    ]
    code, out, _ = cli("audit", "--instance", "nobody", "--index", index, "--json")
    assert json.loads(out)["unknown_filters"][0]["value"] == "nobody"


def test_an_empty_listing_through_known_values_names_the_dates_not_the_instance(index: str, cli) -> None:  # type: ignore[no-untyped-def]
    said = "no record is dated from 2030-01-01 (dates: 2026-08-26 to 2026-09-21)"
    code, out, _ = cli("list", "--instance", "JAY", "--since", "2030-01-01", "--index", index)
    assert code == 0 and out.splitlines()[-2:] == ["(0 of 45 records match the filters)", said]
    code, out, err = cli("list", "--instance", "jay", "--since", "2030-01-01", "--index", index, "--format", "ids")
    assert (code, out, err.strip()) == (0, "", said)
    code, out, _ = cli("list", "--instance", "jay", "--since", "2030-01-01", "--index", index, "--json")
    assert [unknown["filter"] for unknown in json.loads(out)["unknown_filters"]] == ["date"]


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "kv", "--instance", ""],
        ["search", "kv", "--topic", "  "],
        ["list", "--topic", ""],
        ["list", "--category", ""],
        ["audit", "--instance", ""],
        ["similar", "x", "--instance", ""],
    ],
    ids=lambda argv: f"{argv[0]} {argv[-2]}",
)
def test_an_empty_instance_or_topic_is_a_usage_error(index: str, cli, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli(*argv, "--index", index)
    assert (
        code == 2
        and out == ""
        and err
        == (
            f"kbsearch: {argv[-2]}: the value is empty: name one "
            "('kbsearch stats' lists the instances, topics and categories), or leave the option out\n"
        )
    )


@pytest.mark.parametrize(
    "argv",
    [["search", "kv", "--section", ""], ["list", "--section", " "], ["similar", "x", "--section", ""]],
    ids=lambda argv: argv[0],
)
def test_an_empty_section_is_a_usage_error(index: str, cli, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Every section contains the empty text: the filter filtered nothing, silently."""
    code, out, err = cli(*argv, "--index", index)
    assert (
        code == 2
        and out == ""
        and err
        == (
            "kbsearch: --section: the value is empty: give a section text such as '§1.3' "
            "(as 'kbsearch show' prints it), or leave the option out\n"
        )
    )

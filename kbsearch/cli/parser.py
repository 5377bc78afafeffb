"""The arguments of every command, and the handler each one runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kbsearch import __version__
from kbsearch.cli.dedupe_commands import Once, cmd_audit, cmd_calibrate, cmd_check, cmd_export
from kbsearch.cli.errors import CommandParser, Parser
from kbsearch.cli.options import filter_options, filter_text, iso_date, local_option, remote_options, until_or_half
from kbsearch.cli.read_commands import cmd_doctor, cmd_list, cmd_models, cmd_search, cmd_show, cmd_stats, cmd_tui
from kbsearch.cli.related_commands import cmd_explain, cmd_remove, cmd_serve, cmd_similar
from kbsearch.cli.write_commands import cmd_backup, cmd_ingest, cmd_reindex
from kbsearch.serve import BUDGET, CHECKERS, LOCK_TIMEOUT, MAX_BODY, QUEUE, READERS, WARMED_RECORDS, WORKERS


def build_parser() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    # --index goes before the command or after it ("kbsearch --index DIR ingest ..."); after it
    # wins. SUPPRESS: a command not given one keeps the value the top-level parser set.
    index_help = "index folder (default: $KBSEARCH_INDEX or ./index)"
    common.add_argument("--index", metavar="DIR", default=argparse.SUPPRESS, help=index_help)
    model_help = "model from models.txt (default: the index's own, else models.txt's first)"
    common.add_argument("--model", metavar="NAME", help=model_help)
    common.add_argument("--json", action="store_true", help="print one JSON document")
    common.add_argument(
        "-v", "--verbose", action="store_true", help="let the model and index libraries print their own progress too"
    )
    parser = Parser(
        prog="kbsearch",
        description="Multilingual search and duplicate detection for E1 briefings, paper cards and living documents.",
        epilog="exit codes: 0 ok, 1 partial (see the command), 2 error, 3 internal error (a bug; "
        "KBSEARCH_TRACEBACK=1 shows it), 130 interrupted, 141 the reader of the output went away",
    )
    parser.add_argument("--version", action="version", version=f"kbsearch {__version__}")
    parser.add_argument("--index", metavar="DIR", help=f"{index_help}; also taken after the command")
    # Any: typeshed wants the parents to be of the commands' class, and they are only option lists.
    commands: Any = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=CommandParser)
    _add_ingest(commands, common)
    _add_search(commands, common)
    show = commands.add_parser("show", parents=[common, remote_options()], help="print one record")
    show.add_argument("id")
    show.set_defaults(handler=cmd_show)
    _add_check(commands, common)
    _add_related(commands, common)
    tui = commands.add_parser("tui", help="the terminal UI: search as you type, check and audit")
    tui.add_argument("--index", metavar="DIR", default=argparse.SUPPRESS, help=index_help)
    tui.add_argument("--model", metavar="NAME", help=model_help)
    tui.add_argument("--local", action="store_true", help="run even when $KBSEARCH_SERVER names a server")
    tui.set_defaults(handler=cmd_tui)
    stats = commands.add_parser("stats", parents=[common, remote_options()], help="what the index holds")
    stats.set_defaults(handler=cmd_stats)
    models = commands.add_parser("models", parents=[common, local_option()], help="list the models in models.txt")
    models.set_defaults(handler=cmd_models)
    reindex = commands.add_parser(
        "reindex",
        parents=[common, local_option()],
        help="rebuild the vectors from the text in SQLite, with --model or the "
        "default model (after a model change, or a lost or corrupt vector file)",
    )
    reindex.add_argument(
        "--force",
        action="store_true",
        help="embed every text again, stored vectors aside (a model folder's new weights)",
    )
    reindex.set_defaults(handler=cmd_reindex)
    doctor = commands.add_parser(
        "doctor",
        parents=[common, local_option()],
        help="check the index and name the fix for each problem",
        description="Check SQLite's integrity, that every record's passages are whole and have vectors, "
        "and that the vector cache matches the database. Exit 0 when healthy, 2 when a problem is found.",
    )
    doctor.set_defaults(handler=cmd_doctor)
    backup = commands.add_parser(
        "backup", parents=[common, local_option()], help="copy the index, in use or not, to DEST"
    )
    backup.add_argument("dest", metavar="DEST", help="a new or empty folder")
    backup.set_defaults(handler=cmd_backup)
    return parser


def _add_ingest(commands: Any, common: argparse.ArgumentParser) -> None:
    ingest = commands.add_parser(
        "ingest",
        parents=[common, local_option()],
        help="add or update files and folders",
        description="Parse briefings, paper cards, living docs and JSONL (folders recursively) and "
        "index them. Exit 0 when every file was ingested, 1 when some were refused, 2 when none was.",
    )
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ingest.add_argument("--prune", action="store_true", help="remove records that their source file no longer yields")
    skipped = "store what 'check --accept --skip-duplicates' left out (else left out while unchanged)"
    ingest.add_argument("--include-skipped", action="store_true", help=skipped)
    ingest.add_argument(
        "--vectors",
        metavar="STORE",
        help="where a new index keeps its search vectors: faiss (default, vectors.faiss), milvus:PATH.db "
        "(Milvus Lite) or milvus://HOST:PORT (token: $KBSEARCH_MILVUS_TOKEN); the index remembers it",
    )
    ingest.set_defaults(handler=cmd_ingest)


def _add_check(commands: Any, common: argparse.ArgumentParser) -> None:
    check = commands.add_parser(
        "check",
        parents=[common, remote_options()],
        help="NEW / UPDATE / DUPLICATE for each item of a file, with evidence",
        description="Check a briefing, paper card or JSONL file (or - for text on stdin) against the index. Exit 0 "
        "when every item is NEW or UPDATE (or skipped by --skip-duplicates), 1 when any is a DUPLICATE, 2 on error.",
    )
    check.add_argument("input", metavar="INPUT", help="a file, or - to read stdin")
    check.add_argument(
        "--as-of",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="compare only with records dated on or before this day, and undated ones; "
        "default: a dated item is compared with nothing written after its own date",
    )
    accept = "then store every item, or none when any is a DUPLICATE (exit 1; drop those and check again)"
    check.add_argument("--accept", action="store_true", help=accept)
    skip = "with --accept: store the others, skip the DUPLICATEs, listed with what each repeats (exit 0; docs/serve.md)"
    check.add_argument("--skip-duplicates", action="store_true", help=skip)
    check.add_argument(
        "--replace",
        action="store_true",
        help="with --accept: let an item overwrite a stored record of another item under the same id",
    )
    check.add_argument(
        "--path",
        metavar="FILE",
        help="with INPUT -: read stdin as this file (never opened): its name gives the format and the records' "
        "ids, date and writer, as 'check FILE' and 'ingest FILE' read them, so an accepted text is not stored "
        "again by the file's ingest",
    )
    check.add_argument("--config", metavar="FILE", help="a dedupe config (JSON, from 'calibrate --out')")
    check.add_argument(
        "--bulk",
        action="store_true",
        help="lift the input limits (items, claims, characters: docs/serve.md lists them) for a deliberate "
        "bulk run; local only: a server keeps its limits",
    )
    check.set_defaults(handler=cmd_check)
    audit = commands.add_parser(
        "audit", parents=[common, local_option()], help="clusters of the same item across instances and days"
    )
    audit.add_argument("--since", type=iso_date, metavar="YYYY-MM-DD")
    audit.add_argument("--until", type=iso_date, metavar="YYYY-MM-DD")
    audit.add_argument("--instance", type=filter_text("instance"), action=Once, help="only records by this instance")
    audit.add_argument("--across", action="store_true", help="only clusters holding two or more instances")
    audit.add_argument("--config", metavar="FILE", help="a dedupe config (JSON, from 'calibrate --out')")
    audit.set_defaults(handler=cmd_audit)
    calibrate = commands.add_parser(
        "calibrate",
        parents=[common, local_option()],
        help="fit the learned same-item and claim decisions on labelled data",
        description="Fit the same-item decision on labelled streams (.jsonl: records with a 'date', 'item' and "
        "'role', replayed day by day through check) and the claim decision on labelled pairs (.tsv with a header "
        "row 'a<TAB>b<TAB>label', optionally 'lang', then one pair a line, label 0 or 1); print what each scores "
        "on the data it was fitted on and on held-out data. A decision no input fits stays unfitted, and the "
        "commands that read it refuse the config until it is fitted (docs/dedupe.md).",
    )
    calibrate.add_argument("inputs", type=Path, nargs="+", metavar="STREAM.jsonl|PAIRS.tsv")
    calibrate.add_argument(
        "--until",
        type=until_or_half,
        metavar="YYYY-MM-DD|half",
        help="fit on stream days up to this one only, or on each stream's earlier half ('half')",
    )
    calibrate.add_argument(
        "--test", type=Path, action="append", default=[], metavar="PAIRS.tsv", help="pairs to score, not fit on"
    )
    calibrate.add_argument("--config", metavar="FILE", help="the config to start from (default: the model's own)")
    calibrate.add_argument("--out", metavar="FILE", help="write the fitted config here (for --config or dedupe=)")
    calibrate.set_defaults(handler=cmd_calibrate)
    export = commands.add_parser(
        "export",
        parents=[common, filter_options(), local_option()],
        help="write stored records as calibrate's stream rows (JSONL on stdout), to label and calibrate on",
        description="Print each dated record the filters match, oldest first, as one line of a labelled stream for "
        "'kbsearch calibrate': the record with 'role' both and 'item' null; fill in 'item' (one value per item, so "
        "a repeat gets the value of the record it repeats), then calibrate on the file (docs/dedupe.md).",
    )
    export.add_argument("--limit", type=int, help="at most this many records")
    export.set_defaults(handler=cmd_export)


def _add_search(commands: Any, common: argparse.ArgumentParser) -> None:
    filters = filter_options()
    search = commands.add_parser(
        "search", parents=[common, filters, remote_options()], help="search by meaning and by words (zh and en)"
    )
    search.add_argument("query")
    search.add_argument("-k", type=int, default=10, help="number of results (default 10)")
    search.add_argument(
        "--mode",
        choices=["dense", "lexical", "hybrid"],
        default="hybrid",
        help="dense: by meaning (finds the other language); lexical: by exact words, "
        "names and numbers; hybrid (default): both, fused",
    )
    search.set_defaults(handler=cmd_search)
    listing = commands.add_parser(
        "list", parents=[common, filters, remote_options()], help="list records, oldest first"
    )
    listing.add_argument("--limit", type=int, help="at most this many records")
    listing.add_argument(
        "--format",
        choices=["table", "ids", "tsv"],
        default="table",
        help="table (default; ids whole unless on a terminal), ids (one a line), tsv (with a header)",
    )
    listing.set_defaults(handler=cmd_list)


def _add_related(commands: Any, common: argparse.ArgumentParser) -> None:
    similar = commands.add_parser(
        "similar",
        parents=[common, filter_options(), remote_options()],
        help="a stored record's nearest records, each judged same item or not",
        description="The records nearest to a stored one (by text and title, plus those sharing an arXiv id), "
        "each judged by check's rules: same item or not, and why.",
    )
    similar.add_argument("id")
    similar.add_argument("-k", type=int, default=10, help="number of records (default 10)")
    similar.add_argument("--config", metavar="FILE", help="dedupe thresholds (JSON, from 'calibrate --out')")
    similar.set_defaults(handler=cmd_similar)
    explain = commands.add_parser(
        "explain",
        parents=[common, remote_options()],
        help="why two stored records are or are not the same item",
        description="Judge B as check would judge it against A, and list what every same-item rule saw. "
        "A may be FILE#N: item N of a file check reads, stored or not, checked as 'check FILE' checks it.",
    )
    explain.add_argument("a", metavar="A", help="a stored record's id, or FILE#N (FILE: its only item)")
    explain.add_argument("b", metavar="B")
    explain.add_argument("--config", metavar="FILE", help="dedupe thresholds (JSON, from 'calibrate --out')")
    explain.add_argument(
        "--as-of",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="judge as 'check --as-of' did when A came in: records dated after this day, and A itself, "
        "are not A's neighbours and do not count as holding a name",
    )
    explain.add_argument(
        "--claim",
        type=int,
        metavar="N",
        help="why check calls A's claim N (from 1, as 'n' in check's new_claims) known or new, rule by rule",
    )
    explain.set_defaults(handler=cmd_explain)
    remove = commands.add_parser(
        "remove",
        parents=[common, local_option()],
        help="delete records by id",
        description="Delete records, their passages and vectors in one transaction, under the writer lock. "
        "An unknown id is an error and then nothing is removed. A record whose file is ingested again comes back.",
    )
    remove.add_argument("ids", nargs="+", metavar="ID")
    remove.set_defaults(handler=cmd_remove)
    _add_serve(commands, common)


def _add_serve(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "serve",
        parents=[common, local_option()],
        help="keep the index and the model warm for agents (MCP) and scripts (HTTP JSON API)",
        description="Serve the index over MCP on stdin/stdout (--stdio), or over HTTP (--http HOST:PORT): MCP at "
        "/mcp, a JSON API at /api/{search,check,show,similar,explain,list,stats}, /health. HTTP callers need a "
        "bearer token from serve-read.token or serve-write.token in the index folder (created on first start).",
    )
    where = serve.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", action="store_true", help="MCP on stdin/stdout, for an agent on this host")
    where.add_argument("--http", metavar="HOST:PORT", help="listen here, e.g. 127.0.0.1:8765")
    serve.add_argument("--allow-remote", action="store_true", help="allow a non-loopback address (put TLS in front)")
    serve.add_argument(
        "--workers",
        type=int,
        default=WORKERS,
        metavar="N",
        help="--http: processes answering, each with its own models (and memory) and threads: one process "
        f"is bound by Python's interpreter lock, however many cores there are (default {WORKERS})",
    )
    serve.add_argument(
        "--readers", type=int, default=READERS, metavar="N", help=f"threads answering reads (default {READERS})"
    )
    serve.add_argument(
        "--checkers", type=int, default=CHECKERS, metavar="N", help=f"threads answering checks (default {CHECKERS})"
    )
    serve.add_argument(
        "--queue",
        type=int,
        default=QUEUE,
        metavar="N",
        help=f"checks (and accepts) that may wait for a thread; one more is refused with 503 (default {QUEUE})",
    )
    serve.add_argument(
        "--budget",
        type=float,
        default=BUDGET,
        metavar="S",
        help=f"seconds a request may take before it is stopped with 503 (default {BUDGET:g})",
    )
    serve.add_argument(
        "--lock-timeout",
        type=float,
        default=LOCK_TIMEOUT,
        metavar="S",
        help=f"seconds a write waits for another writer before answering 503 (default {LOCK_TIMEOUT:g})",
    )
    serve.add_argument(
        "--warm-records",
        type=int,
        default=WARMED_RECORDS,
        metavar="N",
        help="at start, build the N newest records for short checks ahead, and after a write those it added; each "
        "kept while its record stays as it was: a first check of an item then finds most of its candidates built "
        f"(about 28 KB of memory a record; default {WARMED_RECORDS:,}, 0: none)",
    )
    serve.add_argument(
        "--max-body", type=int, default=MAX_BODY, metavar="BYTES", help="largest request body (default 16 MiB)"
    )
    serve.set_defaults(handler=cmd_serve)

"""The ``kbsearch`` command line.

Every command prints text, or one JSON document with ``--json``, built from
the same pydantic result objects. Errors are one line on stderr and exit 2;
an unexpected exception (a bug) exits 3.
Heavy modules (the store, faiss, the encoder) are imported inside the
commands so that ``--help`` stays instant.

- ``parser``: the arguments of every command.
- ``read_commands``: search, list, show, stats, models, doctor, tui.
- ``write_commands``: ingest, reindex.
- ``dedupe_commands``: check, audit, calibrate, export.
- ``output``: opening the knowledge base, printing results, notes and progress.
- ``errors``: errors on stderr (a line, or a JSON object under ``--json``),
  usage errors, and the quiet end when the reader of stdout goes away.

The commands talk only to the facade (``kbsearch.kb``) and its result types.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import NoReturn

import kbsearch.runtime.timings as timings
from kbsearch.cli.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    UsageError,
    report_error,
    report_internal_error,
    report_usage_error,
    silence_stdout,
    stop_on_sigterm,
    with_hints,
)
from kbsearch.cli.output import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL
from kbsearch.cli.parser import build_parser
from kbsearch.cli.remote import refuse_local_only
from kbsearch.errors import KbError

__all__ = ["EXIT_ERROR", "EXIT_INTERNAL", "EXIT_OK", "EXIT_PARTIAL", "build_parser", "exit_now", "main", "run"]


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    timings.reset()  # one report per run, also when a caller runs several in one process
    before = timings.process_age() if argv is None else 0.0  # a console run: count the interpreter's start
    timings.record("start", before)
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        return report_usage_error(with_hints(err, argv, parser), as_json="--json" in argv)
    args.opened = []
    # -v: the libraries under kbsearch (model loading, faiss) may print their own progress too.
    logging.getLogger("kbsearch").setLevel(logging.DEBUG if getattr(args, "verbose", False) else logging.NOTSET)
    try:
        refuse_local_only(args)
        return int(args.handler(args))
    except KbError as err:
        report_error(err, as_json=getattr(args, "json", False))
        return EXIT_ERROR
    except KeyboardInterrupt as err:
        by = (" (SIGTERM)", EXIT_TERMINATED) if isinstance(err, Terminated) else ("", EXIT_INTERRUPTED)
        message = f"interrupted{by[0]}; the index is unchanged by the unfinished write"
        report_error(KbError(message), as_json=getattr(args, "json", False), exit_code=by[1])
        return by[1]
    except BrokenPipeError:
        # The reader went away (kbsearch list | head): stop quietly, as Unix tools do.
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as err:  # a bug: Python's own exit 1 would read as check's DUPLICATE
        return report_internal_error(err, as_json=getattr(args, "json", False))
    finally:
        # Closing checkpoints the WAL and removes its side files when no one else has the index open.
        with timings.phase("close"):
            for kb in args.opened:
                kb.close()
        timings.report(time.perf_counter() - started + before)


def run() -> NoReturn:
    """The console script: ``main()``, then an exit that skips the interpreter's teardown.

    Once sentence-transformers is loaded, tearing the interpreter down (freeing
    some 400,000 objects and torch's state, module by module) takes one to two
    seconds after the output is already printed: a third of a cold ``check``
    beyond the model's load. Nothing kbsearch needs happens in that teardown:
    the index is closed and committed in ``main``, and atexit handlers and the
    flush of stdout and stderr are done here. Only for the command line:
    ``main`` itself returns normally, for the tests and for callers.
    """
    stop_on_sigterm()
    code = main()
    exit_now(code)


def exit_now(code: int) -> NoReturn:
    """Run the atexit handlers, flush stdout and stderr, and end the process."""
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away with output still buffered
        silence_stdout()
        code = code or EXIT_BROKEN_PIPE
    except OSError:
        sys.exit(code)
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)  # Python would wait for these; so do we
    os._exit(code)

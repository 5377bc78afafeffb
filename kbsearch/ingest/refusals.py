"""Which inputs an ingest refuses, each named with its problem, before any model loads.

``read_inputs`` parses every input (a malformed one is refused by its line) and
refuses a copy of another input of the run (``copies``); ``refuse_taken`` refuses
the files holding an id another file owns (``ownership``) and the copies of a
stored file. Both run before a model is loaded: an ingest that refuses a file
costs its parse, not seconds of loading, and ``ingest_parsed`` asks again
under the writer lock, where another writer may have stored something since.
"""

from __future__ import annotations

from pathlib import Path

import kbsearch.ingest.ownership as ownership
import kbsearch.runtime.timings as timings
from kbsearch.errors import KbError, NoIncrementsToday
from kbsearch.ingest.copies import copies_in_run, copies_of_stored
from kbsearch.ingest.report import FileProblem, IngestReport
from kbsearch.parse.jsonl import JsonlFile
from kbsearch.records import ParsedFile
from kbsearch.store import Store
from kbsearch.store.ledger import IngestLedger

Input = ParsedFile | JsonlFile
CHUNK = 4_096


def read_inputs(paths: list[Path], report: IngestReport) -> list[Input]:
    """Parse every input; refused ones go to ``report``. KbError when nothing could be read.

    Nothing touches the index here, so a refused input leaves it as it was. A
    .jsonl file is checked line by line and kept as a handle; its records are
    read again, a chunk at a time, inside the write.
    """
    from kbsearch.parse import iter_input_files

    with timings.phase("read input"):
        parsed = _parse_all(iter_input_files(paths), report)
        copies = copies_in_run(parsed)
    report.refused += [FileProblem(path=source, message=why) for source, why in copies.items()]
    parsed = [p for p in parsed if p.source not in copies]
    report.files = len(parsed)
    if not parsed and report.refused:
        more = len(report.refused) - 1
        raise KbError(
            f"nothing could be ingested: {report.refused[0].one_line()}"
            + (f" (and {more} more {'input' if more == 1 else 'inputs'})" if more else "")
        )
    return parsed


def refuse_taken(
    store: Store,
    ledger: IngestLedger,
    parsed: list[Input],
    report: IngestReport,
    chunk: int = CHUNK,
    *,
    streams: bool = True,
) -> None:
    """Drop from ``parsed`` the files whose ids another file owns and the copies of a stored
    file, into ``report.refused``; KbError when no file is left. The ids of the files kept are
    left in ``ledger``, each with its file. ``streams=False`` (before the models load) leaves
    the JSONL files to the check under the lock: reading a million lines once more to learn
    of a clash would cost more than the loading it saves."""
    checked = parsed if streams else [p for p in parsed if isinstance(p, ParsedFile)]
    refused = ownership.clashes(store, ledger, checked, chunk)
    problems = [FileProblem(path=source, message=f"{why} ({ownership.HINT})") for source, why in refused.items()]
    copies = copies_of_stored(store, ledger, [p for p in checked if p.source not in refused])
    for source, why in copies.items():
        ledger.forget_file(source)
        problems.append(FileProblem(path=source, message=why))
    report.refused += problems
    kept = [p for p in parsed if p.source not in refused and p.source not in copies]
    report.files = len(kept)
    if problems and not kept:
        raise KbError(f"nothing could be ingested: {problems[-1].one_line()}")
    parsed[:] = kept


def _parse_all(files: list[Path], report: IngestReport) -> list[Input]:
    from kbsearch.parse import open_input

    parsed: list[Input] = []
    for path in files:
        try:
            result = open_input(path)
        except NoIncrementsToday as none:
            # A day with no news, as check reads it (exit 0): a file yielding no records, so the
            # records it gave before are kept with a warning, or go with --prune, as for any file.
            result = ParsedFile(source=none.path or str(path), format="briefing")
            report.notes.append(f"{result.source}: {none.message}: nothing to ingest")
        except KbError as err:
            message = err.message + (f" ({err.hint})" if err.hint else "")
            report.refused.append(FileProblem(path=str(path), line=err.line, message=message))
            continue
        parsed.append(result)
        report.warnings += [f"{path}: {w}" for w in result.warnings]
    return parsed

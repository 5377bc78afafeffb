"""``kbsearch doctor``: check that an index is whole, and name the fix for what isn't.

Each check reads; none repairs. The fixes it names are ordinary commands:
``kbsearch reindex`` rewrites the vector cache from the vectors stored in
SQLite (and embeds any text that has none), ``kbsearch ingest`` rewrites
records, and a database SQLite itself calls corrupt can only be restored or
rebuilt from the source files.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
from pydantic import BaseModel

import kbsearch.kb.token_fill as token_fill
from kbsearch.dedupe.config import CHECK_NEEDS
from kbsearch.dedupe.config_files import config_for, shipped_config_path
from kbsearch.errors import KbError
from kbsearch.kb.model_choice import require_same_weights, spec_for_index
from kbsearch.models import ModelSpec, models_file, resolve_judge
from kbsearch.records import PASSAGES_VERSION, text_hash
from kbsearch.runtime.server_entry import SERVER_FILE, read_entry
from kbsearch.store import DB_NAME, MANIFEST_NAME, VECTORS_NAME, Store, checkup, require_models
from kbsearch.store.files import REBUILD, UnfinishedIndex
from kbsearch.store.texts import whole_texts
from kbsearch.store.vector_cache import CacheProblem, leftover_temp_files, load_cache

REINDEX = "run 'kbsearch reindex' (rewrites the cache from the vectors stored in SQLite)"


class Finding(BaseModel):
    check: str
    ok: bool
    message: str
    fix: str | None = None


class DoctorReport(BaseModel):
    index: str
    healthy: bool
    findings: list[Finding]


def examine(root: Path, model: str | None = None) -> DoctorReport:
    """Every check, in order; a database that is missing, empty or won't open is the only finding.
    ``model``: the one a command would use (``--model``, else $KBSEARCH_MODEL, else models.txt's first).

    Nothing is created or changed: an empty or missing database is reported,
    never opened (SQLite would make an empty database of it), and an older
    schema is reported rather than upgraded.
    """
    files = _files(root)
    if files is not None:
        return _report(root, files)
    try:
        store = Store.open(root, upgrade=False)
    except UnfinishedIndex as err:
        return _report(root, [Finding(check="database", ok=False, message=err.message, fix=err.hint)])
    except KbError as err:
        if not Store.exists(root):
            raise  # no index at all: the usual "build one with kbsearch ingest"
        upgrade = "schema upgrade" in err.message
        fix = "run 'kbsearch stats' once with write access (it upgrades the schema)" if upgrade else REBUILD
        if "newer kbsearch" in err.message and err.hint:  # not broken: upgrade, or restore the backup
            fix = err.hint
        return _report(root, [Finding(check="database", ok=False, message=err.message, fix=fix)])
    try:
        findings = _database(store)
        if all(f.ok for f in findings):
            with store.snapshot():
                findings += _records(store) + _gone_files(store) + _cache(store) + _judge(store)
                findings.append(_models(store, model))
    except sqlite3.DatabaseError as err:  # pages SQLite can't even read
        findings = [Finding(check="database", ok=False, message=f"SQLite: {err}", fix=REBUILD)]
    finally:
        store.close()
    findings += [
        Finding(
            check="temp files",
            ok=True,
            message=f"{p.name} was left by an interrupted write; harmless, the next write replaces it",
        )
        for p in leftover_temp_files(root)
    ]
    return _report(root, findings + _server_entry(root))


def _server_entry(root: Path) -> list[Finding]:
    """A ``serve.json`` whose server is gone, or whose pid runs but does not answer
    as a kbsearch server (reused since, or hung): harmless (commands run on the
    local index), but named."""
    entry = read_entry(root)
    if entry is None:
        return []
    named = f"{SERVER_FILE} names a server (pid {entry.pid}, {entry.url}, started {entry.started:%Y-%m-%d %H:%M} UTC)"
    if not entry.alive():
        message = f"{named} that is no longer running; commands ignore it"
        fix = f"delete {root / SERVER_FILE}, or start the server"
    elif not entry.answers():
        message = (
            f"{named}: pid {entry.pid} runs, but {entry.url} does not answer as a kbsearch server "
            "(the pid reused by another program, or the server hung); commands run on the local index"
        )
        fix = (
            f"delete {root / SERVER_FILE} and start the server again; if pid {entry.pid} is a hung "
            f"kbsearch serve, stop it first (kill {entry.pid})"
        )
    else:
        return []
    return [Finding(check="server", ok=True, message=message, fix=fix)]


def _files(root: Path) -> list[Finding] | None:
    """Findings about the index files themselves, when they rule out opening
    the database: it is missing beside other index files, or it is empty.
    Cache files of 0 bytes are named too (the cache checks would only say
    "unreadable"). None when the database can be opened."""
    database = root / DB_NAME
    cache = [root / MANIFEST_NAME, root / VECTORS_NAME]
    if not database.exists() and not any(p.exists() for p in cache):
        return None  # not an index folder: examine() says there is no index
    findings = []
    if not database.exists():
        findings.append(
            Finding(
                check="database",
                ok=False,
                message=f"{DB_NAME} is missing; the vector cache alone is no index",
                fix=REBUILD,
            )
        )
    elif database.stat().st_size == 0:
        findings.append(Finding(check="database", ok=False, message=f"{DB_NAME} is empty (0 bytes)", fix=REBUILD))
    if not findings:
        return None
    findings += [
        Finding(check="vector cache", ok=False, message=f"{p.name} is empty (0 bytes)", fix=REBUILD)
        for p in cache
        if p.exists() and p.stat().st_size == 0
    ]
    return findings


def _report(root: Path, findings: list[Finding]) -> DoctorReport:
    return DoctorReport(index=str(root), healthy=all(f.ok for f in findings), findings=findings)


def _database(store: Store) -> list[Finding]:
    problems = checkup.integrity_problems(store)
    if problems != ["ok"]:
        return [
            Finding(
                check="database",
                ok=False,
                message="SQLite integrity check failed: " + "; ".join(problems[:3]),
                fix=REBUILD,
            )
        ]
    dangling = checkup.dangling_rows(store)
    if dangling:
        return [
            Finding(
                check="database",
                ok=False,
                fix=REBUILD,
                message=f"{dangling} rows point at records that do not exist",
            )
        ]
    return [Finding(check="database", ok=True, message="SQLite integrity check passed")]


def _records(store: Store) -> list[Finding]:
    """Each record's stored passages are exactly the ones its text gives: none half written."""
    version = checkup.passages_version(store)
    if version != PASSAGES_VERSION:
        # Every record's passages differ from what this version would choose:
        # not damage, and not mended by ingesting the files again.
        return [
            Finding(
                check="records",
                ok=False,
                fix="run 'kbsearch reindex' (text that has a vector is not embedded again)",
                message=f"the passages were chosen by another version of kbsearch "
                f"(passage version {version}, this one writes {PASSAGES_VERSION})",
            )
        ]
    stored = checkup.stored_passages(store)
    broken = [
        rid
        for rowid, rid, record in store.iter_stored()
        if stored.get(rowid) != [text_hash(t) for t in record.passages()]
    ]
    if broken:
        return [
            Finding(
                check="records",
                ok=False,
                fix="run 'kbsearch ingest' on their files again",
                message=f"{len(broken)} records do not match their passages, e.g. {broken[0]!r}",
            )
        ]
    return [
        Finding(
            check="records", ok=True, message=f"{store.count()} records, {store.passage_count()} passages, all whole"
        )
    ]


def _gone_files(store: Store) -> list[Finding]:
    """Records whose source file no longer exists: not damage (search finds them and
    ``check`` compares with them), but likely left behind by a moved or deleted file."""
    gone = [f for f in store.files() if not Path(f).exists()]
    if not gone:
        return []
    more = f" and {len(gone) - 3} more" if len(gone) > 3 else ""
    files = "a file" if len(gone) == 1 else f"{len(gone)} files"
    return [
        Finding(
            check="source files",
            ok=True,
            message=f"records come from {files} no longer there: {', '.join(gone[:3])}{more}",
            fix="if they were moved or deleted, ingest their folder with --prune, or 'kbsearch remove' the records",
        )
    ]


def _judge(store: Store) -> list[Finding]:
    """With a judge model, every record's whole text has its vector: check and audit read them."""
    judge = store.judge
    if judge is None:
        return []
    missing = store.missing_hashes(whole_texts(store), judge)
    if missing and token_fill.running(store.root):  # an ingest left them to its fill (judge_fill)
        return [
            Finding(
                check="judge vectors",
                ok=True,
                message=f"{len(missing)} record texts have no vector of the judge {judge!r} yet: the background "
                "fill an ingest started is writing them (a check computes the ones it reads meanwhile)",
            )
        ]
    if missing:
        return [
            Finding(
                check="judge vectors",
                ok=False,
                fix="run 'kbsearch reindex' (embeds only what the judge lacks)",
                message=f"{len(missing)} record texts have no vector of the judge {judge!r}",
            )
        ]
    return [Finding(check="judge vectors", ok=True, message=f"every record text has a vector of the judge {judge!r}")]


def _models(store: Store, model: str | None) -> Finding:
    """Whether the model and judge a command would use are the index's own: the
    very check ``check``, ``ingest`` and ``audit`` make (``require_models``), so
    doctor never calls healthy an index they all refuse; and whether the model
    has the dedupe config ``check`` reads."""
    try:
        spec = spec_for_index(store.root, model)  # as every command picks it: --model, else the index's own
        judge = resolve_judge(spec)  # a judge the file does not list stops every command
        require_models(store, spec.name, spec.judge)
        require_same_weights(store, spec, judge)  # a folder rewritten under the same name
        dedupe, fix = dedupe_state(spec)
    except KbError as err:
        where = f"{err.path}:{err.line}: " if err.line else f"{err.path}: " if err.path else ""
        return Finding(check="models", ok=False, message=where + err.message, fix=err.hint)
    judged = f" judged by {spec.judge!r}" if spec.judge else " without a judge"
    message = f"{spec.name!r}{judged} ({models_file()}) is what the index was built with"
    message = message if store.count() else f"{spec.name!r}: the index is empty"
    return Finding(check="models", ok=True, message=f"{message}; {dedupe}", fix=fix)


def dedupe_state(spec: ModelSpec) -> tuple[str, str | None]:
    """What doctor says of the model's dedupe config, and the fix when check needs one.
    A model with none is no fault of the index (search and ingest need none: a
    search-only model), but check, audit, similar and explain refuse it, so the line
    says so and how to fit one. A config check would refuse (unreadable, fitted for
    another model or judge, a decision calibrate never fitted; probe 17) raises it.
    ``dedupe=none`` says the model is search-only on purpose: no fix to give."""
    if spec.search_only:
        return "search-only (dedupe=none): search and ingest use it; check, audit, similar and explain refuse it", None
    if spec.dedupe is None and not shipped_config_path(spec.name, spec.judge).is_file():
        try:
            config_for(spec)  # kbsearch ships none: its error carries the fix
        except KbError as err:
            return (
                "no dedupe config: search and ingest need none (a search-only model), but check, audit, "
                "similar and explain refuse this model until it has one",
                f"for check: {err.hint}" if err.hint else None,
            )
    config_for(spec, needs=CHECK_NEEDS)
    own = spec.dedupe or shipped_config_path(spec.name, spec.judge).name
    return f"dedupe config {own} (check and audit read it)", None


def _cache(store: Store) -> list[Finding]:
    model, dim = store.model, store.dim
    if model is None or dim is None:
        return [Finding(check="vectors", ok=True, message="the index is empty")]
    missing = store.passages_without_vector(model)
    if missing:
        return [
            Finding(
                check="vectors",
                ok=False,
                fix=f"run 'kbsearch reindex --model {model}'",
                message=f"{missing} passages have no {model!r} vector",
            )
        ]
    found = [Finding(check="vectors", ok=True, message=f"every passage has a {model!r} vector ({dim}-d)")]
    if store.cache.remote is not None:
        return [*found, _collection(store, model, dim)]
    try:
        index = load_cache(
            store.root, model=model, dim=dim, generation=store.generation, passages=store.passage_count()
        )
    except CacheProblem as problem:
        return [*found, Finding(check="vector cache", ok=False, message=str(problem), fix=REINDEX)]
    expected = store.passage_vector_ids()
    if not np.array_equal(np.sort(index.ids()), np.sort(expected)):
        return [
            *found,
            Finding(
                check="vector cache",
                ok=False,
                fix=REINDEX,
                message="the vector file's ids are not the database's passages",
            ),
        ]
    return [
        *found,
        Finding(
            check="vector cache",
            ok=True,
            message=f"vectors.faiss matches generation {store.generation} ({index.count} vectors)",
        ),
    ]


def _collection(store: Store, model: str, dim: int) -> Finding:
    """An index whose vectors are in Milvus: the collection's stamp and its points."""
    remote = store.cache.remote
    assert remote is not None
    label, stamped = remote.choice.label, remote.stamped()
    if stamped != store.generation:
        fix = "run any 'kbsearch ingest' (even of nothing new): it upserts what the collection lacks"
        message = f"the {label} collection reflects generation {stamped}, the database {store.generation}"
        return Finding(check="vector cache", ok=False, message=message, fix=fix)
    held = remote.backend(model, dim).ids()
    if not np.array_equal(np.sort(held), np.sort(store.passage_vector_ids())):
        message = f"the {label} collection's ids are not the database's passages"
        return Finding(check="vector cache", ok=False, message=message, fix=REINDEX)
    message = f"{label} matches generation {store.generation} ({len(held)} vectors)"
    return Finding(check="vector cache", ok=True, message=message)

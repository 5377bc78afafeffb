"""The SQLite schema and its named migrations.

``PRAGMA user_version`` counts the migrations applied, so an old index is
brought forward on open and a newer one is refused rather than misread. A
migration is an SQL script, or a function for steps SQL alone cannot do
(indexing the text of records stored as JSON).

A migration is frozen: it never calls today's code (``Record``, the lexical
module, the id extractors), which will change. What it needs is copied here as
it was when the migration was written, so an old index upgrades the same way
whatever kbsearch has become since. Never edit a migration; add one.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable

from kbsearch.errors import KbError
from kbsearch.store.migrations_lexical import _add_bare_repos, _add_caveats, _add_figure_spellings

FORMAT_VERSION = 1

Migration = str | Callable[[sqlite3.Connection], None]


# -- migration 2, frozen -------------------------------------------------------

_M2_CREATE = (
    "CREATE VIRTUAL TABLE records_fts USING fts5(title, body, meta, tokenize = 'trigram')",
    """CREATE TABLE record_refs (
        rowid INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        PRIMARY KEY (rowid, ref)
    ) WITHOUT ROWID""",
    "CREATE INDEX record_refs_ref ON record_refs(ref)",
)
_M2_URL = re.compile(r"https?://[^\s<>\"'）)，。；]+", re.IGNORECASE)
_M2_GITHUB = re.compile(
    r"(?:github\.com/|\bGitHub\s+)([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9])",
    re.IGNORECASE,
)


def _add_lexical_index(db: sqlite3.Connection) -> None:
    try:
        db.execute(_M2_CREATE[0])
    except sqlite3.OperationalError as err:
        raise KbError(
            f"this Python's SQLite cannot build the lexical index: {err}",
            hint="use a Python whose sqlite3 module has FTS5 and the trigram tokenizer (SQLite 3.34 or later)",
        ) from err
    for statement in _M2_CREATE[1:]:
        db.execute(statement)
    for rowid, data in db.execute("SELECT rowid, data FROM records").fetchall():
        record = json.loads(data)
        db.execute(
            "INSERT INTO records_fts(rowid, title, body, meta) VALUES (?, ?, ?, ?)", (rowid, *_m2_document(record))
        )
        db.executemany(
            "INSERT OR IGNORE INTO record_refs(rowid, ref) VALUES (?, ?)", [(rowid, r) for r in _m2_refs(record)]
        )


def _m2_document(record: dict[str, object]) -> tuple[str, str, str]:
    """(title, body, meta) of a stored record's JSON: body is the text plus any
    claim it lacks; meta holds sources, tags and the relation."""
    text, claims = str(record.get("text") or ""), _m2_strings(record.get("claims"))
    body = [text] + [c for c in claims if c not in text]
    meta = [*_m2_strings(record.get("sources")), *_m2_strings(record.get("tags")), str(record.get("relation") or "")]
    return str(record.get("title") or ""), "\n".join(p for p in body if p), "\n".join(p for p in meta if p)


def _m2_refs(record: dict[str, object]) -> list[str]:
    """``github:owner/repo`` and ``url:…`` references in the title, text, claims and sources."""
    parts = [str(record.get("title") or ""), str(record.get("text") or "")]
    text = "\n".join(parts + _m2_strings(record.get("claims")) + _m2_strings(record.get("sources")))
    repos = (m.group(1).lower().removesuffix(".git") for m in _M2_GITHUB.finditer(text))
    urls = (m.group(0).rstrip(".,;:").lower() for m in _M2_URL.finditer(text))
    return [f"github:{r}" for r in _m2_unique(repos)] + [f"url:{u}" for u in _m2_unique(urls)]


def _m2_strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _m2_unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# -- migration 3, frozen -------------------------------------------------------

_M3_CHUNK = 2000


def _fold_lexical_index(db: sqlite3.Connection) -> None:
    """Hold the FTS text and the references folded (NFKC, then lower case), as
    queries are folded: full-width letters, superscripts and case then match.

    Nearly every row changes (lower case), and an FTS5 update is a delete and
    an insert: filling a new table and renaming it costs half as much.
    """
    db.execute("CREATE VIRTUAL TABLE records_fts_folded USING fts5(title, body, meta, tokenize = 'trigram')")
    last = -1
    while True:
        rows = db.execute(
            "SELECT rowid, title, body, meta FROM records_fts WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (last, _M3_CHUNK),
        ).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        db.executemany(
            "INSERT INTO records_fts_folded(rowid, title, body, meta) VALUES (?, ?, ?, ?)",
            [(rowid, *(_m3_fold(p or "") for p in parts)) for rowid, *parts in rows],
        )
    db.execute("DROP TABLE records_fts")
    db.execute("ALTER TABLE records_fts_folded RENAME TO records_fts")
    for rowid, ref in db.execute("SELECT rowid, ref FROM record_refs").fetchall():
        folded_ref = _m3_fold(ref)
        if folded_ref != ref:
            db.execute("DELETE FROM record_refs WHERE rowid = ? AND ref = ?", (rowid, ref))
            db.execute("INSERT OR IGNORE INTO record_refs(rowid, ref) VALUES (?, ?)", (rowid, folded_ref))


def _m3_fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


# -- migration 4, frozen -------------------------------------------------------


def _add_lexical_counts(db: sqlite3.Connection) -> None:
    """Store how many records hold each trigram, and how many records there
    are, so that a search reads them instead of walking FTS5's postings.
    Filled from FTS5's own vocabulary: one pass over the index (about a
    minute at a million records), the counts a search used to walk per query."""
    db.execute("CREATE TABLE lexical_counts (term TEXT PRIMARY KEY, records INTEGER NOT NULL) WITHOUT ROWID")
    db.execute("CREATE VIRTUAL TABLE temp.m4_vocab USING fts5vocab(main, records_fts, row)")
    db.execute("INSERT INTO lexical_counts(term, records) SELECT term, doc FROM temp.m4_vocab WHERE term != ''")
    db.execute("INSERT INTO lexical_counts(term, records) SELECT '', count(*) FROM records_fts")
    db.execute("DROP TABLE temp.m4_vocab")


# -- migration 5, frozen -------------------------------------------------------

# A WITHOUT ROWID table keeps a row inside its b-tree's leaf only up to about a
# quarter of a page: a 2 KB vector spilled into an overflow page, so reading a
# search's candidate vectors walked two chains per row. In a rowid table it
# fits its leaf, found through a small index (3.5x less time to read 100
# records' vectors at 100k records).
_M5_ROWID_VECTORS = """
    CREATE TABLE vectors_m5 (model TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL);
    INSERT INTO vectors_m5(model, content_hash, vector)
        SELECT model, content_hash, vector FROM vectors ORDER BY model, content_hash;
    DROP TABLE vectors;
    ALTER TABLE vectors_m5 RENAME TO vectors;
    CREATE UNIQUE INDEX vectors_key ON vectors(model, content_hash);
"""


def _add_category_column(db: sqlite3.Connection) -> None:
    """Migration 9: the category (a card's primary category, an increment's 主分类)
    as a column of its own, as instance and topic are, so ``--category`` filters
    in SQL; filled from the record's stored JSON, which keeps it since schema 1.
    A column already there (an index brought back a version) is filled again."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(records)")}
    if "category" not in columns:
        db.execute("ALTER TABLE records ADD COLUMN category TEXT")
    db.execute("UPDATE records SET category = json_extract(data, '$.category')")


# -- migration 12, frozen ------------------------------------------------------

_M12_SKIPPED_ITEMS = """
    CREATE TABLE skipped_items (
        id TEXT PRIMARY KEY,
        content_hash TEXT NOT NULL,
        file TEXT,
        repeats TEXT NOT NULL,
        skipped_at TEXT NOT NULL
    );
"""


# -- the migrations, in order ---------------------------------------------------


MIGRATIONS: list[tuple[str, Migration]] = [
    (
        "create records, passages, vectors and id mentions",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE records (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            title TEXT NOT NULL,
            text TEXT NOT NULL,
            date TEXT,
            instance TEXT,
            topic TEXT,
            section TEXT,
            source TEXT,
            file TEXT,
            position INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            data TEXT NOT NULL,
            ingested_at TEXT NOT NULL
        );
        CREATE INDEX records_file ON records(file);
        CREATE INDEX records_kind ON records(kind);
        CREATE INDEX records_date ON records(date);
        CREATE INDEX records_hash ON records(content_hash);
        CREATE TABLE record_arxiv (
            rowid INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
            arxiv_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('subject', 'cited')),
            PRIMARY KEY (rowid, arxiv_id, role)
        );
        CREATE INDEX record_arxiv_id ON record_arxiv(arxiv_id);
        CREATE TABLE passages (
            rowid INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            PRIMARY KEY (rowid, idx)
        ) WITHOUT ROWID;
        CREATE INDEX passages_hash ON passages(content_hash);
        CREATE TABLE vectors (
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, content_hash)
        ) WITHOUT ROWID;
        CREATE TABLE id_mentions (
            source TEXT NOT NULL,
            position INTEGER NOT NULL,
            arxiv_id TEXT,
            data TEXT NOT NULL,
            PRIMARY KEY (source, position)
        );
        CREATE INDEX id_mentions_arxiv ON id_mentions(arxiv_id);
    """,
    ),
    ("add the FTS5 lexical index and exact references, filled from existing records", _add_lexical_index),
    ("fold the lexical index and the references (NFKC, lower case), as queries are folded", _fold_lexical_index),
    ("count the records holding each trigram of the lexical index, and the records", _add_lexical_counts),
    ("keep vectors in a rowid table, each in its b-tree leaf", _M5_ROWID_VECTORS),
    (
        "add each figure's one spelling to the lexical index (10.7× adds 10.7x), as queries spell it",
        _add_figure_spellings,
    ),
    ("add each increment's caveats (警示) to its lexical index body, as a write now indexes them", _add_caveats),
    (
        "add each bare owner/repo a record marks as a repo (Repository: o/r, 开源在 o/r) to its references",
        _add_bare_repos,
    ),
    ("add each record's category as a column, from its stored JSON, to filter by it", _add_category_column),
    (
        "mark an index whose records may hold a doc section's first date and text (first_date, first_text); "
        "applied by the write that stores the first such record, not on open",
        "",
    ),
    (
        "mark an index whose records may hold a briefing's signing time (signed_at); "
        "applied by the write that stores the first such record, not on open",
        "",
    ),
    (
        "remember the DUPLICATEs 'check --accept --skip-duplicates' left out (skipped_items), so that "
        "'ingest' leaves them out too; applied by the accept that skips the first, not on open",
        _M12_SKIPPED_ITEMS,
    ),
]

FIRST_DATES = 10
"""The schema of an index holding a record with ``first_date``/``first_text``: a
kbsearch before them validates a stored record strictly and would fail on one,
so it must refuse the index in its own words (``schema 10, this one knows 9``).
The step changes no table; a write marks it (``mark_first_dates``) in the
transaction that stores the first such record. Opening, even for writing,
leaves an index at 9: one this version only read, or wrote no such record to,
stays readable by the version before (a rollback loses nothing)."""
SIGNED_TIMES = 11
"""The schema of an index holding a record with ``signed_at`` (the time of day a briefing's
signature gives): as ``FIRST_DATES``, an older kbsearch would fail on such a record, so the
write storing the first one marks the index (``mark_signed_times``) for it to be refused."""
SKIPPED_ITEMS = 12
"""The schema of an index that remembers a skipped DUPLICATE (``store.skips``): as
``FIRST_DATES``, only the accept that skips the first creates the table
(``mark_skipped_items``), so an index never given ``--skip-duplicates`` stays readable
by the version before; an older kbsearch refuses one that was (its ``ingest`` would
store the skipped items again)."""
ON_OPEN = FIRST_DATES - 1
"""The schema an open brings an older index to."""


def migrate(db: sqlite3.Connection, *, read_only: bool = False) -> None:
    """Apply the migrations this database has not seen, in one transaction."""
    applied = _version(db)
    require_known(applied)
    if applied >= ON_OPEN:
        return
    if read_only:
        raise KbError(
            f"the index needs a schema upgrade (schema {applied}, this kbsearch writes {ON_OPEN}), "
            "and this run does not write",
            hint="run any kbsearch command on it once with write access, such as 'kbsearch stats'",
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        # Read again under the write lock: two processes opening a new index
        # at once both saw version 0, and only the first may create tables.
        for number in range(_version(db), ON_OPEN):
            step = MIGRATIONS[number][1]
            if isinstance(step, str):
                for statement in _statements(step):
                    db.execute(statement)
            else:
                step(db)
            db.execute(f"PRAGMA user_version = {number + 1}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def require_known(applied: int, *, while_open: bool = False) -> None:
    """Refuse an index of a schema this kbsearch does not know; ``while_open``: one
    a newer kbsearch brought there after this program opened it (a server, the TUI)."""
    if applied <= len(MIGRATIONS):
        return
    if while_open:
        raise KbError(
            f"a newer kbsearch upgraded the index while this program had it open (schema {applied}, "
            f"this one knows {len(MIGRATIONS)}); nothing was read or written",
            hint="restart 'kbsearch serve' or the TUI with the newer kbsearch",
        )
    raise KbError(
        f"the index was written by a newer kbsearch (schema {applied}, this one knows {len(MIGRATIONS)})",
        hint="upgrade kbsearch, or restore the backup taken before the upgrade (see docs/reliability.md, Upgrading)",
    )


def mark_first_dates(db: sqlite3.Connection) -> None:
    """In a write's transaction storing a record with ``first_date``: bring the index to ``FIRST_DATES``."""
    if _version(db) < FIRST_DATES:
        db.execute(f"PRAGMA user_version = {FIRST_DATES}")


def mark_signed_times(db: sqlite3.Connection) -> None:
    """In a write's transaction storing a record with ``signed_at``: bring the index to ``SIGNED_TIMES``."""
    if _version(db) < SIGNED_TIMES:
        db.execute(f"PRAGMA user_version = {SIGNED_TIMES}")


def mark_skipped_items(db: sqlite3.Connection) -> None:
    """In the transaction remembering a first skipped DUPLICATE: the table, and the index at ``SKIPPED_ITEMS``."""
    if _version(db) < SKIPPED_ITEMS:
        for statement in _statements(str(MIGRATIONS[SKIPPED_ITEMS - 1][1])):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {SKIPPED_ITEMS}")


def schema(db: sqlite3.Connection) -> int:
    """The index's schema (its migrations applied), read in the caller's transaction."""
    return _version(db)


def _version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _statements(script: str) -> list[str]:
    """The statements of a script, one each, for execute() inside a transaction
    (executescript() would commit first)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements

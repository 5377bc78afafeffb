"""Lexical search: an SQLite FTS5 index of record text kept beside the vectors.

Dense vectors find paraphrases and the other language, but blur exact names,
numbers and ids (vLLM, 10.7x, TRIATTN_RUNTIME_KV_BUDGET). The FTS5 ``trigram``
tokenizer indexes every three-character substring, so Chinese needs no word
segmentation and a product name matches wherever it is written.

A trigram index cannot answer a term shorter than three characters (频域, KV).
A query made only of such terms falls back to a substring scan of the
filtered records, with a bounded number of results.

The FTS rows, the trigram counts (``lexical_counts``) and the exact
references (GitHub repos, URLs) are written by the store inside the
transaction that writes the record (``lexical_rows``), so they never drift apart. How much of
FTS5's postings one search reads is its plan (``lexical_plan``).

Both sides are folded (``kbsearch.text.folding``): the index holds each record's
text in NFKC and lower case, and every query term is folded the same way, so
``ＫＶ　ｃａｃｈｅ`` finds "KV cache" and ``c2kv`` finds C²KV. Whatever reads
the FTS columns back (term coverage, the short-term scan, the rarity of a
name) reads folded text. A figure is matched in any of its spellings
(``kbsearch.text.figures``): each column ends with the one spelling of the
figures it writes otherwise (``10.7×`` adds ``10.7x``), and a query's figures
are spelled so.
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass, field

import kbsearch.store.lexical_counts as lexical_counts
from kbsearch.store.lexical_plan import DEFAULT_PLAN, LexicalPlan, rarest_within
from kbsearch.text.figures import in_one_spelling
from kbsearch.text.folding import fold, normal_form
from kbsearch.text.function_words import content_words
from kbsearch.text.neutral import neutral_terms
from kbsearch.text.textsim import is_coined

FTS_TABLE = "records_fts"
# bm25 weights of the FTS columns (title, body, meta): a match in the title says
# more about the record than one in a source line.
COLUMN_WEIGHTS = (4.0, 1.0, 0.5)
# A long Chinese query yields one trigram per character; past this many terms
# the extra ones change the ranking little and only slow the query down.
MAX_TERMS = 128
# The short-term fallback scans records; this caps what it returns, not what it reads.
MAX_SHORT_HITS = 200
MIN_TRIGRAM = 3
# Query-time scoring (term coverage, a record's language, the idf of short
# terms) reads at most this many characters of each part of a record: ten
# times what is embedded, more than any briefing item or doc section holds,
# and a bound on a search's cost when one record is a line of megabytes. The
# FTS index itself still matches a term anywhere in the record.
SCORED_CHARS = 20_000
_ROWS_AT_ONCE = 500  # row ids bound in one query, well under SQLite's limit on parameters

CREATE_STATEMENTS = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(title, body, meta, tokenize = 'trigram')",
    """CREATE TABLE record_refs (
        rowid INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        PRIMARY KEY (rowid, ref)
    ) WITHOUT ROWID""",
    "CREATE INDEX record_refs_ref ON record_refs(ref)",
)

_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK_CHARS}]+")
# Anything that is neither CJK, space nor sentence punctuation stays in one
# token, so 10.7x, TensorRT-LLM and owner/repo are searched whole.
_TOKEN = re.compile(f"[{_CJK_CHARS}]+|[^\\s{_CJK_CHARS},，。;；:：!?！？()（）\\[\\]{{}}\"'“”‘’<>《》、|·…]+")
_EDGE_PUNCT = ".-_/+#@*~=`^$&"  # "%" stays: 29% is not 29
# A link is matched by what follows its scheme, and a GitHub repo by its
# owner/repo: records write "github.com/o/r", "GitHub o/r" and the bare "o/r",
# and all three hold "o/r". Without this the scheme alone ("https") would be a
# term, matching every record that carries a link.
_SCHEME = re.compile(r"\bhttps?://", re.IGNORECASE)
_GITHUB_HOST = re.compile(r"(?<![\w.])(?:www\.)?github\.com/", re.IGNORECASE)


# A name found in at most this many records, and in at most this share of a
# small index, singles them out as an id would.
RARE_NAME_RECORDS = 3
RARE_NAME_SHARE = 0.1
_NAME_MIN_CHARS = 4


@dataclass(frozen=True)
class QueryTerms:
    """What a query is matched by: trigram-searchable terms and shorter ones."""

    long: list[str]
    short: list[str]
    names: list[str] = field(default_factory=list)
    """Coined names among ``long`` (RingPose, ShardNet, SGLang, GPT-4o), folded."""
    words: list[str] = field(default_factory=list)
    """Other capitalised Latin words of a query holding Chinese (``Quill 量化掉了几分``), folded: likely names."""
    function: list[str] = field(default_factory=list)  # and, with: no terms; in the coverage's whole, never found
    neutral: list[str] = field(default_factory=list)  # B200, 57%: written alike in both languages (text.neutral)

    def all(self) -> list[str]:
        return self.long + self.short


def query_terms(query: str) -> QueryTerms:
    """Split a query into FTS terms.

    A run of Chinese characters becomes its overlapping three-character pieces,
    so a reworded sentence still matches on the phrases it shares; any other
    token is matched whole. Tokens of one or two characters go to ``short``; function words (and, with) are no terms.
    Terms are folded as the index's text is (``kbsearch.text.folding``), and
    figures are spelled as the index adds them (``10.7 倍`` is ``10.7x``:
    ``kbsearch.text.figures``).
    """
    long: list[str] = []
    short: list[str] = []
    names: list[str] = []
    words: list[str] = []
    text = in_one_spelling(_GITHUB_HOST.sub("", _SCHEME.sub("", normal_form(query))))
    tokens = [t if _CJK_RUN.fullmatch(t) else t.strip(_EDGE_PUNCT) for t in _TOKEN.findall(text)]
    tokens, function = content_words([t for t in tokens if t])  # and, with, the: no terms (text.function_words)
    for token in tokens:
        if _looks_coined(token):
            names.append(fold(token))
        elif _looks_named(token) and _CJK_RUN.search(text):
            words.append(fold(token))
        if len(token) < MIN_TRIGRAM:
            short.append(fold(token))
        elif _CJK_RUN.fullmatch(token):
            long += _trigrams(token)
        else:
            long.append(fold(token))
    if long:
        # A lone ASCII letter or digit (the "I" or "a" of a sentence) matches nearly every English record.
        short = [t for t in short if len(t) > 1 or not t.isascii()]
    long, short = _unique(long)[:MAX_TERMS], _unique(short)[:MAX_TERMS]
    neutral = [t for t in neutral_terms(tokens, bool(_CJK_RUN.search(text))) if t in long or t in short]
    return QueryTerms(long, short, _unique(names), _unique(words), _unique([fold(t) for t in function]), neutral)


def _looks_coined(token: str) -> bool:
    """A made-up name (SGLang, RingPose, GPT-4o, H100), as ``textsim.is_coined``
    judges it, of four or more Latin characters and not a quantity (10.7x)."""
    return len(token) >= _NAME_MIN_CHARS and token.isascii() and token[0].isalpha() and is_coined(token)


def _looks_named(token: str) -> bool:
    """A capitalised word of four or more Latin letters (Quill, Tidal)."""
    return len(token) >= _NAME_MIN_CHARS and token.isascii() and token[0].isupper() and token.isalpha()


def rowids_holding(db: sqlite3.Connection, term: str, limit: int, column: str | None = None) -> list[int]:
    """Up to ``limit`` + 1 records holding ``term`` (three characters or more,
    folded here) anywhere, or in one FTS column: enough to tell rare from
    common without reading every record that holds a common one."""
    expression = match_expression([fold(term)])
    if column is not None:
        expression = f"{column} : {expression}"
    return [
        r[0]
        for r in db.execute(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? LIMIT ?", (expression, limit + 1))
    ]


def records_with_names(
    db: sqlite3.Connection, names: list[str], where: list[str], params: list[object], plan: LexicalPlan = DEFAULT_PLAN
) -> dict[str, list[int]]:
    """Name → the records (passing ``where``) holding it, for the names held
    by at most ``RARE_NAME_RECORDS`` records of the whole index (and at most
    ``RARE_NAME_SHARE`` of them): such a name identifies what it names, while
    a common one (vLLM) only says the topic."""
    found: dict[str, list[int]] = {}
    total: int | None = None
    for name in names:
        rows = rowids_holding(db, name, RARE_NAME_RECORDS)
        if not rows or len(rows) > RARE_NAME_RECORDS:
            continue
        if total is None:  # the share only matters in a small index; read the count once, if at all
            total = record_total(db, plan)
        if len(rows) > max(1, int(total * RARE_NAME_SHARE)):
            continue
        marks = ",".join("?" * len(rows))
        kept = [
            r[0]
            for r in db.execute(
                f"SELECT rowid FROM records WHERE rowid IN ({marks}) AND {' AND '.join(where)}", [*rows, *params]
            )
        ]
        if kept:
            found[name] = kept
    return found


def match_expression(terms: list[str]) -> str:
    """An FTS5 query matching any of ``terms``, each quoted so that no query
    text is read as FTS syntax (AND, NEAR, column filters, ``*``)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def search(
    db: sqlite3.Connection,
    terms: QueryTerms,
    limit: int,
    where: list[str],
    params: list[object],
    plan: LexicalPlan = DEFAULT_PLAN,
) -> list[tuple[int, float]]:
    """(rowid, score) of the best lexical matches, best first, among the records
    passing ``where`` (SQL over ``records``): filters apply before the cut.

    The score is bm25 (negated, so higher is better) over the trigram terms
    the plan matches (``lexical_plan``: the rarest, at scale), and the count
    of short terms found (a title hit counting double) for the fallback.
    """
    if terms.long:
        return _fts_search(db, matched_terms(db, terms, plan), limit, where, params)
    if terms.short:
        return _short_search(db, terms.short, min(limit, MAX_SHORT_HITS), where, params)
    return []


def _fts_search(
    db: sqlite3.Connection, terms: list[str], limit: int, where: list[str], params: list[object]
) -> list[tuple[int, float]]:
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    filtered = [clause for clause in where if clause != "1"]
    # The join to records costs a third of the query; skip it when nothing is filtered.
    join = "JOIN records ON records.rowid = f.rowid " if filtered else ""
    sql = (
        f"SELECT f.rowid, -bm25({FTS_TABLE}, {weights}) AS score FROM {FTS_TABLE} f {join}"
        f"WHERE {' AND '.join([f'{FTS_TABLE} MATCH ?', *filtered])} ORDER BY score DESC LIMIT ?"
    )
    rows = db.execute(sql, [match_expression(terms), *params, limit])
    return [(int(rowid), float(score)) for rowid, score in rows]


def _short_search(
    db: sqlite3.Connection, terms: list[str], limit: int, where: list[str], params: list[object]
) -> list[tuple[int, float]]:
    # The FTS columns hold the folded text, so folded terms are found with a plain instr().
    found = " + ".join("(instr(f.title, ?) > 0) * 2 + (instr(f.body, ?) > 0)" for _ in terms)
    sql = (
        f"SELECT rowid, score FROM (SELECT f.rowid AS rowid, {found} AS score, length(f.body) AS size "
        f"FROM {FTS_TABLE} f JOIN records ON records.rowid = f.rowid WHERE {' AND '.join(where)}) "
        f"WHERE score > 0 ORDER BY score DESC, size, rowid LIMIT ?"
    )
    term_params = [t for term in terms for t in (term, term)]
    rows = db.execute(sql, [*term_params, *params, limit])
    return [(int(rowid), float(score)) for rowid, score in rows]


def matched_terms(db: sqlite3.Connection, terms: QueryTerms, plan: LexicalPlan = DEFAULT_PLAN) -> list[str]:
    """The long terms the plan puts into the candidate match."""
    if plan.posting_budget is None:
        return terms.long
    return rarest_within(term_counts(db, terms.long, plan), plan.posting_budget)


def term_counts(db: sqlite3.Connection, terms: list[str], plan: LexicalPlan = DEFAULT_PLAN) -> dict[str, int]:
    """Term → records holding its rarest trigram: an upper bound of the records
    holding the term, exact for a trigram."""
    counts = lexical_counts.counts(db, _all_trigrams(terms)) if plan.stored_counts else _trigram_counts(db, terms)
    return {term: min(counts.get(t, 0) for t in _trigrams(term)) for term in terms}


def record_total(db: sqlite3.Connection, plan: LexicalPlan = DEFAULT_PLAN) -> int:
    """The number of records: stored beside the counts, or counted."""
    if plan.stored_counts:
        return lexical_counts.total(db)
    return int(db.execute("SELECT count(*) FROM records").fetchone()[0])


def score_rows(
    db: sqlite3.Connection, terms: QueryTerms, rowids: list[int], plan: LexicalPlan = DEFAULT_PLAN
) -> list[tuple[int, float]]:
    """(rowid, score) of those of ``rowids`` that match a term, scored as
    ``search`` scores them: for records that must be shown whatever their
    rank (they carry the query's exact id), and the search cut them off."""
    scored: list[tuple[int, float]] = []
    for start in range(0, len(rowids), _ROWS_AT_ONCE):  # a repo can be carried by thousands
        chunk = rowids[start : start + _ROWS_AT_ONCE]
        where = [f"records.rowid IN ({','.join('?' * len(chunk))})"]
        scored += search(db, terms, len(chunk), where, list(chunk), plan)
    return scored


def term_weights(
    db: sqlite3.Connection, terms: QueryTerms, sample: list[str], plan: LexicalPlan = DEFAULT_PLAN
) -> dict[str, float]:
    """Term → inverse document frequency over the whole index.

    A term found in few records says more than one found in most, and a term
    found in none (an English word asked of Chinese records) still counts in
    the whole, so matching only a name out of a long query stays a weak sign.
    Terms shorter than a trigram have no count in the index, and counting them
    means reading every record: their frequency is estimated from ``sample``,
    the candidates' texts as the index holds them (folded). Candidates lean
    towards records holding the query's terms, so the estimate errs on the
    common side, never inflating a term.
    """
    total = record_total(db, plan)
    weights = {term: _idf(total, count) for term, count in term_counts(db, terms.long, plan).items()}
    for term in terms.short:
        share = sum(term in text for text in sample) / len(sample) if sample else 0.0
        weights.setdefault(term, _idf(total, round(share * total)))
    return weights


def _idf(total: int, found: int) -> float:
    return math.log(1.0 + (total - found + 0.5) / (found + 0.5))


def _trigrams(term: str) -> list[str]:
    return [term[i : i + MIN_TRIGRAM] for i in range(len(term) - MIN_TRIGRAM + 1)]


def _all_trigrams(terms: list[str]) -> list[str]:
    return sorted({t for term in terms for t in _trigrams(term)})


def _trigram_counts(db: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    """Trigram → number of records holding it, from FTS5's own vocabulary,
    which walks each trigram's postings to count them (the exhaustive plan)."""
    wanted = _all_trigrams(terms)
    if not wanted:
        return {}
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{FTS_TABLE}_vocab USING fts5vocab(main, {FTS_TABLE}, row)")
    counts: dict[str, int] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        counts.update(
            db.execute(f"SELECT term, doc FROM temp.{FTS_TABLE}_vocab WHERE term IN ({marks})", chunk).fetchall()
        )
    return counts


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))

"""Search quality of the dense, lexical and hybrid modes, side by side.

    python bench/search_quality.py            # the table (a few minutes on 2 cores)
    python bench/search_quality.py --sweep    # also compare fusion settings
    python bench/search_quality.py --plans    # also hybrid and lexical with the lexical plan before issue 28

Reads the evaluation sets from ../shared/eval at run time (they are never
copied into the project) and builds every index in a temporary folder:

* parallel sets (Tatoeba zh-en, WMT22 en-zh): index one language, query with
  the other, both ways; the i-th query's answer is the i-th sentence;
* the arXiv digest stream: each paper's first occurrence becomes a card (English
  title + Chinese summary ``tldr_zh``, the fields of a kbsearch paper card,
  carrying its arXiv id as a real card does); its later occurrences query it
  with their own, differently worded, Chinese summary, and with the English
  title alone. The ids are in no query text, except in the
  last task, which queries each card by its arXiv id;
* the cross-lingual digest views: a Chinese and an English run summarised
  the same papers; the English summary alone queries the paper's Chinese
  card, and the other way round, in corpora that hold both languages
  (see ``crosslingual``).

The hybrid column weighs the model's judge (models.txt ``judge=``) as ``kbsearch search``
does; "hybrid, no judge" beside it is the same search without it.

Recall@k is the share of queries whose answer is among the first k results;
MRR is the mean of 1/rank over the first 10 (0 when absent).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbsearch.embed import Encoder, load_encoder  # noqa: E402
from kbsearch.ingest import Judge, ingest_records  # noqa: E402
from kbsearch.models import resolve_judge, resolve_model  # noqa: E402
from kbsearch.records import Kind, Record  # noqa: E402
from kbsearch.search import DEFAULT_FUSION, SearchMode, gather, rank, search  # noqa: E402
from kbsearch.search.fusion import Fusion  # noqa: E402
from kbsearch.search.judge_side import JudgeQuery  # noqa: E402
from kbsearch.store import ChangeSet, SearchFilter, Store  # noqa: E402
from kbsearch.store.lexical import query_terms  # noqa: E402
from kbsearch.store.lexical_plan import DEFAULT_PLAN, EXHAUSTIVE, LexicalPlan  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
K = 10
MODES = (SearchMode.dense, SearchMode.lexical, SearchMode.hybrid)


class MemoEncoder:
    """Wraps the real encoder so a sentence used as a document and as a query is embedded once."""

    def __init__(self, inner: Encoder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.memo: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self.memo))
        for start in range(0, len(todo), 512):
            batch = todo[start : start + 512]
            self.memo.update(zip(batch, self.inner.encode(batch), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.memo[t] for t in texts])


@dataclass
class Task:
    """Queries against one corpus; ``answers[i]`` is the record id query i should find."""

    name: str
    corpus: str
    queries: list[str]
    answers: list[str]


# -- loading the evaluation sets ----------------------------------------------


def _sentences(ids: list[str], texts: list[str]) -> list[Record]:
    return [
        Record(id=i, kind=Kind.doc_section, text=t, position=n) for n, (i, t) in enumerate(zip(ids, texts, strict=True))
    ]


def parallel(file: str, zh_col: str, name: str) -> tuple[dict[str, list[Record]], list[Task]]:
    with open(EVAL / "parallel" / file, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    ids = [f"{name}/{r['id']}" for r in rows]
    zh, en = [r[zh_col] for r in rows], [r["en"] for r in rows]
    corpora = {f"{name}-en": _sentences(ids, en), f"{name}-zh": _sentences(ids, zh)}
    tasks = [Task(f"{name} zh→en", f"{name}-en", zh, ids), Task(f"{name} en→zh", f"{name}-zh", en, ids)]
    return corpora, tasks


def domain() -> tuple[dict[str, list[Record]], list[Task]]:
    with open(EVAL / "domain" / "arxiv-digest-dev.jsonl", encoding="utf-8") as handle:
        rows = sorted((json.loads(line) for line in handle), key=lambda r: r["date"])
    cards: dict[str, Record] = {}
    later: list[dict[str, str]] = []
    for row in rows:
        if row["paper"] in cards:
            later.append(row)
            continue
        cards[row["paper"]] = Record(
            id=f"card/{row['paper']}",
            kind=Kind.paper_card,
            title=row["title"],
            text=row["tldr_zh"],
            arxiv_ids=[row["paper"]],
            position=len(cards),
        )
    answers = [f"card/{r['paper']}" for r in later]
    tasks = [
        Task("arxiv zh summary→card", "arxiv", [r["tldr_zh"] for r in later], answers),
        Task("arxiv en title→card", "arxiv", [r["title"] for r in later], answers),
        Task("arxiv id→card", "arxiv", [f"arXiv:{p}" for p in cards], [c.id for c in cards.values()]),
    ]
    return {"arxiv": list(cards.values())}, tasks


def _first_per_paper(file: str) -> dict[str, dict[str, str]]:
    with open(EVAL / "domain" / file, encoding="utf-8") as handle:
        rows = sorted((json.loads(line) for line in handle), key=lambda r: r["date"])
    first: dict[str, dict[str, str]] = {}
    for row in rows:
        first.setdefault(row["paper"], row)
    return first


def _card(prefix: str, row: dict[str, str], summary: str, position: int) -> Record:
    return Record(
        id=f"{prefix}/{row['paper']}",
        kind=Kind.paper_card,
        title=row["title"],
        text=row[summary],
        arxiv_ids=[row["paper"]],
        position=position,
    )


def crosslingual() -> tuple[dict[str, list[Record]], list[Task]]:
    """A paper summarised in Chinese by one digest run and in English by another.

    Each corpus mixes the languages, as the team's knowledge base does: a card
    (English title + summary) per paper, in the answer's language for the
    papers both runs summarised, and in its only language for the others.
    A query is the other run's summary alone, with no title, so the answer
    is the only card of its paper and every other paper in the query's own
    language is a distractor: a search that favours records in the query's
    language pays for it here.
    """
    zh = _first_per_paper("arxiv-digest-dev.jsonl")
    en = _first_per_paper("arxiv-digest-en-dev.jsonl")
    both = sorted(zh.keys() & en.keys())
    corpora: dict[str, list[Record]] = {"zh cards + en": [], "en cards + zh": []}
    for n, paper in enumerate(sorted(zh.keys() | en.keys())):
        if paper in zh:
            corpora["zh cards + en"].append(_card("zh", zh[paper], "tldr_zh", n))
        else:
            corpora["zh cards + en"].append(_card("en", en[paper], "tldr_en", n))
        if paper in en:
            corpora["en cards + zh"].append(_card("en", en[paper], "tldr_en", n))
        else:
            corpora["en cards + zh"].append(_card("zh", zh[paper], "tldr_zh", n))
    tasks = [
        Task("arxiv en summary→zh card", "zh cards + en", [en[p]["tldr_en"] for p in both], [f"zh/{p}" for p in both]),
        Task("arxiv zh summary→en card", "en cards + zh", [zh[p]["tldr_zh"] for p in both], [f"en/{p}" for p in both]),
    ]
    return corpora, tasks


# -- running ------------------------------------------------------------------


def build(root: Path, records: list[Record], encoder: MemoEncoder, judge: MemoEncoder | None) -> Store:
    """The corpus's index, with its judge's whole-text vectors as ``ingest`` keeps them."""
    store = Store.open(root, create=True)
    kept = Judge(judge.model_id, lambda: judge) if judge is not None else None
    ingest_records(store, ChangeSet(upserts=records), model=encoder.model_id, load_encoder=lambda: encoder, judge=kept)
    return store


def ranks(
    task: Task,
    search_one: Callable[[str, np.ndarray, JudgeQuery | None], list[str]],
    vectors: np.ndarray,
    judged: list[JudgeQuery | None],
) -> list[int]:
    """1-based rank of each query's answer in its first K results, 0 when absent."""
    found = []
    for query, answer, vector, judge in zip(task.queries, task.answers, vectors, judged, strict=True):
        ids = search_one(query, vector, judge)
        found.append(ids.index(answer) + 1 if answer in ids else 0)
    return found


def metrics(found: list[int]) -> tuple[float, float, float]:
    n = len(found)
    return (sum(r == 1 for r in found) / n, sum(0 < r <= K for r in found) / n, sum(1 / r for r in found if r) / n)


def mode_search(
    store: Store, mode: SearchMode, fusion: Fusion, plan: LexicalPlan = DEFAULT_PLAN
) -> Callable[[str, np.ndarray, JudgeQuery | None], list[str]]:
    def one(query: str, vector: np.ndarray, judge: JudgeQuery | None) -> list[str]:
        store.lexical_plan = plan
        response = search(store, None, query, K, mode=mode, vector=vector, fusion=fusion, judge=judge)
        return [hit.id for hit in response.results]

    return one


@dataclass(frozen=True)
class Column:
    """One column of the table: a mode, with the fusion its hybrid search uses."""

    label: str
    mode: SearchMode
    fusion: Fusion = DEFAULT_FUSION
    plan: LexicalPlan = DEFAULT_PLAN


COLUMNS = [Column(mode.value, mode) for mode in MODES]
# Hybrid as it ranked before the judge model had a say (kbsearch.search.judge_side), side by side.
NO_JUDGE = Column("hybrid, no judge", SearchMode.hybrid, replace(DEFAULT_FUSION, judge_weight=0.0))
# The hybrid search before issue 13 item 7: across languages the coverage counted a tenth,
# meta words included, and no record took its score from a best hit of its item.
BEFORE = Column(
    "hybrid before",
    SearchMode.hybrid,
    replace(
        DEFAULT_FUSION,
        coverage_power=1.0,
        name_weight=0.1,
        cross_language=0.1,
        cross_language_meta=1.0,
        item_share=0.0,
    ),
)

# The lexical plan before issue 28: every term of the query in the FTS5 match,
# counts walked from the postings (kbsearch.store.lexical_plan).
PLANS = [
    Column("hybrid, old plan", SearchMode.hybrid, plan=EXHAUSTIVE),
    Column("lexical, old plan", SearchMode.lexical, plan=EXHAUSTIVE),
]

Row = tuple[str, int, dict[str, tuple[float, float, float]]]


def run_tasks(
    tasks: list[Task], stores: dict[str, Store], encoder: MemoEncoder, judge: MemoEncoder | None, columns: list[Column]
) -> list[Row]:
    table = []
    for task in tasks:
        vectors = encoder.encode(task.queries)
        judged: list[JudgeQuery | None] = [None] * len(task.queries)
        if judge is not None:
            judged = [JudgeQuery(judge.model_id, v) for v in judge.encode(task.queries)]
        row, spent = {}, []
        for column in columns:
            started = time.perf_counter()
            search_one = mode_search(stores[task.corpus], column.mode, column.fusion, column.plan)
            row[column.label] = metrics(ranks(task, search_one, vectors, judged))
            spent.append(f"{column.label} {(time.perf_counter() - started) / len(task.queries) * 1000:.1f}")
        print(f"{task.name}: ms per query: {', '.join(spent)}", file=sys.stderr)
        table.append((task.name, len(task.queries), row))
    return table


def print_table(table: list[Row], columns: list[Column]) -> None:
    head = " | ".join(f"{c.label:^20}" for c in columns)
    print(f"| {'task':26} | {'queries':>7} | {head} |")
    print(f"| {'':26} | {'':7} | " + " | ".join(f"{'R@1':>6} {'R@10':>6} {'MRR':>6}" for _ in columns) + " |")
    print("|" + "-" * 28 + "|" + "-" * 9 + ("|" + "-" * 22) * len(columns) + "|")
    for name, n, row in table:
        cells = " | ".join(" ".join(f"{v:6.3f}" for v in row[c.label]) for c in columns)
        print(f"| {name:26} | {n:7d} | {cells} |")


# -- fusion sweep -------------------------------------------------------------

SWEEP = (
    [Fusion("rrf", rrf_k=k, lexical_weight=w) for k in (10, 60) for w in (0.1, 0.25, 1.0)]
    + [Fusion("weighted", lexical_weight=w, coverage_power=p) for p in (1.0, 2.0) for w in (0.3, 0.7, 1.0)]
    + [Fusion("weighted", lexical_weight=0.7, coverage_power=2.0, name_weight=n) for n in (0.05, 0.1, 0.2, 0.4)]
    + [Fusion("weighted", lexical_weight=w, coverage_power=1.0, name_weight=0.1) for w in (0.5, 0.7)]
    + [replace(DEFAULT_FUSION, coverage_power=p, cross_language=x) for p in (1.0, 2.0) for x in (0.1, 0.5, 1.0)]
)


def sweep(tasks: list[Task], stores: dict[str, Store], encoder: MemoEncoder) -> None:
    """Hybrid R@1 / MRR per fusion setting; candidates are gathered once per query."""
    depth = max(f.depth for f in SWEEP)
    print("\nfusion sweep (hybrid R@1 / MRR; pinning left out, it is the same for all)")
    print(f"| {'fusion':36} | " + " | ".join(f"{t.name[:22]:^22}" for t in tasks) + " |")
    gathered = []
    for task in tasks:
        store = stores[task.corpus]
        store.lexical_plan = DEFAULT_PLAN  # --plans may have left the old plan set
        vectors = encoder.encode(task.queries)
        gathered.append(
            [
                (
                    query_terms(q),
                    v,
                    gather(
                        store,
                        query_terms(q),
                        v,
                        SearchFilter(),
                        SearchMode.hybrid,
                        K,
                        Fusion(depth=depth, name_weight=1.0),
                    ),
                )
                for q, v in zip(task.queries, vectors, strict=True)
            ]
        )
    for fusion in SWEEP:
        cells = []
        for task, rows in zip(tasks, gathered, strict=True):
            store = stores[task.corpus]
            found = []
            for (terms, vector, cands), answer in zip(rows, task.answers, strict=True):
                ids = [
                    store_ids(store, r.rowid) for r in rank(store, cands, terms, vector, SearchMode.hybrid, fusion)[:K]
                ]
                found.append(ids.index(answer) + 1 if answer in ids else 0)
            r1, _, mrr = metrics(found)
            cells.append(f"{r1:.3f} / {mrr:.3f}")
        shape = f"k={fusion.rrf_k:g}" if fusion.method == "rrf" else f"p={fusion.coverage_power:g}"
        label = f"{fusion.method} {shape} w={fusion.lexical_weight:g}"
        label += f" n={fusion.name_weight:g}" if fusion.name_weight else ""
        label += (
            f" x={fusion.cross_language:g}/{fusion.cross_language_meta:g}"
            if fusion.cross_language != 1 or not fusion.cross_language_meta
            else ""
        )
        print(f"| {label:36} | " + " | ".join(f"{c:^22}" for c in cells) + " |")


_ID_CACHE: dict[tuple[int, int], str] = {}


def store_ids(store: Store, rowid: int) -> str:
    key = (id(store), rowid)
    if key not in _ID_CACHE:
        _ID_CACHE[key] = store.db.execute("SELECT id FROM records WHERE rowid = ?", (rowid,)).fetchone()[0]
    return _ID_CACHE[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="model from models.txt (default: its first entry)")
    parser.add_argument("--sweep", action="store_true", help="also compare fusion settings")
    parser.add_argument(
        "--before", action="store_true", help="add a column: hybrid as it ranked before issue 13 item 7"
    )
    parser.add_argument(
        "--plans", action="store_true", help="add columns: hybrid and lexical with the old lexical plan"
    )
    parser.add_argument("--judge-weights", help="add columns: hybrid with these judge weights (comma-separated)")
    args = parser.parse_args()
    columns = COLUMNS + [NO_JUDGE] + ([BEFORE] if args.before else []) + (PLANS if args.plans else [])
    for weight in (float(w) for w in (args.judge_weights or "").split(",") if w):
        weighted = replace(DEFAULT_FUSION, judge_weight=weight)
        columns.append(Column(f"hybrid, judge {weight:g}", SearchMode.hybrid, weighted))
    started = time.perf_counter()
    spec = resolve_model(args.model)
    encoder = MemoEncoder(load_encoder(spec))
    judge_spec = resolve_judge(spec)
    judge = MemoEncoder(load_encoder(judge_spec)) if judge_spec is not None else None
    corpora: dict[str, list[Record]] = {}
    tasks: list[Task] = []
    for part in (
        parallel("tatoeba-zh-en.tsv", "zh", "tatoeba"),
        parallel("wmt22-en-zh.tsv", "zh_a", "wmt22"),
        domain(),
        crosslingual(),
    ):
        corpora.update(part[0])
        tasks += part[1]
    with tempfile.TemporaryDirectory(prefix="kbsearch-bench-") as tmp:
        stores = {name: build(Path(tmp) / name, records, encoder, judge) for name, records in corpora.items()}
        print(
            f"model {encoder.model_id}, judge {judge.model_id if judge else None}; fusion {DEFAULT_FUSION}; "
            f"indexes built in {time.perf_counter() - started:.0f}s\n"
        )
        print_table(run_tasks(tasks, stores, encoder, judge, columns), columns)
        if args.sweep:
            sweep([t for t in tasks if "id→" not in t.name], stores, encoder)
        for store in stores.values():
            store.close()
    print(f"\n({time.perf_counter() - started:.0f}s in all)")


if __name__ == "__main__":
    main()

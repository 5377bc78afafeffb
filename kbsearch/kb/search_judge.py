"""Whether a search of a knowledge base weighs its judge model, and the query as
the judge reads it, encoded beside the rest of the search.

The judge (models.txt ``judge=``) reads each record's whole text for check; an
index built with it keeps those vectors, so a hybrid search reads them for its
candidates (``kbsearch.search.judge_side``). The query's judge vector is
encoded on a thread of its own while the search encodes with the main model
and reads the lexical index, and a cold process loads the judge there beside
the main model (both loads run mostly outside the GIL).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from kbsearch.responses import SearchMode
from kbsearch.search.judge_side import JudgeQuery

if TYPE_CHECKING:
    from kbsearch.embed import Encoder
    from kbsearch.kb.facade import KnowledgeBase

_JUDGE_QUERY = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kbsearch-judge-query")


def weighs_judge(kb: KnowledgeBase) -> bool:
    """The index keeps the vectors of the judge this model's line names."""
    kept = kb.store.judge
    return kept is not None and kb.judge_spec is not None and kb.judge_spec.name == kept


def judge_to_warm(kb: KnowledgeBase) -> Encoder | None:
    """The judge a hybrid search will weigh, for the TUI to load and warm on a thread of its
    own beside the main model (a shared judge is handed out unloaded); None when it weighs none."""
    return kb.judge if weighs_judge(kb) else None


def judge_ready(kb: KnowledgeBase) -> bool:
    """A hybrid search will not wait for the judge: it weighs none, or the judge is loaded
    (a shared one says so). Until then the TUI searches by the words alone."""
    return not weighs_judge(kb) or bool(getattr(kb.judge, "ready", True))


def judge_query(kb: KnowledgeBase, query: str, mode: SearchMode) -> JudgeQuery | None:
    """The query's judge vector, being encoded (the judge loading first if it must); None when
    the search weighs no judge: not hybrid, or an index without the judge's vectors."""
    if mode is not SearchMode.hybrid or not weighs_judge(kb):
        return None
    assert kb.judge_spec is not None

    def encode() -> np.ndarray:
        judge = kb.judge
        assert judge is not None
        return judge.encode([query])[0]

    return JudgeQuery(kb.judge_spec.name, _JUDGE_QUERY.submit(encode))

"""English function words, which say nothing about what a record is about.

In a knowledge base written mostly in Chinese, ``with``, ``and`` or ``the``
are held by few records (an English title here and there), so their inverse
document frequency made them look like rare, telling terms: ``quantum error
correction with superconducting qubits`` ranked the Quill card first in
lexical mode for the ``with`` of its English title, and ``NEAR(KV cache) AND
*`` the ToolSmith card for its ``and`` (and, that dropped, for its ``near``). A query's function words are no
lexical terms (``kbsearch.store.lexical.query_terms``), unless the query is
made of nothing else (``the and``): then they are all it asks for. They
still count in the whole of hybrid search's term coverage, as before, but are
never found there: an English query's share of names held by a Chinese
sentence ("Tom") stays as small as it was.
"""

from __future__ import annotations

_ARTICLES_AND_LINKS = {"a", "an", "the", "and", "or", "than", "that", "this", "it", "its"}
_PREPOSITIONS = {"about", "after", "as", "at", "before", "between", "by", "for", "from", "in", "into", "near", "of"}
_MORE_PREPOSITIONS = {"on", "over", "per", "to", "under", "via", "with", "within"}
_VERBS_AND_QUESTIONS = {"are", "be", "do", "does", "is", "was", "were", "how", "what", "which"}
FUNCTION_WORDS = frozenset(_ARTICLES_AND_LINKS | _PREPOSITIONS | _MORE_PREPOSITIONS | _VERBS_AND_QUESTIONS)


def content_words(tokens: list[str]) -> tuple[list[str], list[str]]:
    """``tokens`` without the function words among them (or all of them when
    that would leave none), and the function words left out."""
    kept = [t for t in tokens if t.lower() not in FUNCTION_WORDS]
    return (kept, [t for t in tokens if t.lower() in FUNCTION_WORDS]) if kept else (tokens, [])

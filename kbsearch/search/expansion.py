"""A query's standard terms in their other forms (``kbsearch.text.terms``), on the lexical side.

``键值缓存 量化`` must find the card that writes ``KV 缓存量化``, and ``Mixture
of Experts`` the one that writes ``MoE``. The lexical side matches each
standard term of the query in all its forms, as ONE query term:

* the candidates: the lexical search also matches the term's other forms
  (``retrieval``). An abbreviation of three Latin letters or fewer (``rag``,
  ``llm``) is left out there: the trigram index finds it inside words
  (``storage``, ``vllm``); the coverage finds it as a word, the dense side
  finds its records;
* the coverage: the query's own terms of one form (the trigrams of
  ``键值缓存``; ``mixture``, ``experts``) count as found, with their whole
  weight, in a record holding any form of the term (``groups``); a record
  holding none counts them one by one as before. The whole is the query's
  own, so an expansion never outweighs the rest of the query.

A figure in Chinese number words (``百分之四十``, ``四成``, ``三倍``) is read as
the figure records write (``40%``, ``3x``: ``kbsearch.text.figure_words``): the
query's terms hold the figure as one term, and its words are its other forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kbsearch.store.lexical import QueryTerms, query_terms
from kbsearch.text.figure_words import figure_words, read_figures
from kbsearch.text.terms import Form, forms_in

SHORT_ABBREVIATION = 3
"""An ASCII form of at most this many characters is matched as a word only, never by the trigram index."""


@dataclass(frozen=True)
class FormedTerms(QueryTerms):
    """The query's terms, and the standard terms it writes (``kbsearch.text.terms``)."""

    forms: list[Form] = field(default_factory=list)


def with_forms(terms: QueryTerms, query: str) -> QueryTerms:
    """``terms`` with the standard terms ``query`` writes; ``terms`` itself when it writes none.
    Of a query writing a figure in Chinese number words, the terms of the query with the figure read."""
    figures = [form for _, form in figure_words(query)]
    if figures:
        terms = query_terms(read_figures(query))
    forms = forms_in(query) + list(figures)
    if not forms:
        return terms
    return FormedTerms(**{name: getattr(terms, name) for name in terms.__dataclass_fields__}, forms=forms)


def retrieval(terms: QueryTerms) -> QueryTerms:
    """What the lexical search matches: the query's terms and its standard terms' other forms."""
    if not isinstance(terms, FormedTerms):
        return terms
    long, short = list(terms.long), list(terms.short)
    for form in terms.forms:
        for other in form.others():
            if other.isascii() and len(other) <= SHORT_ABBREVIATION:
                continue
            for spelled in _spellings(other):
                (long if len(spelled) >= 3 else short).append(spelled)
    return QueryTerms(list(dict.fromkeys(long)), list(dict.fromkeys(short)), terms.names, terms.words, terms.function)


def groups(terms: QueryTerms) -> list[tuple[frozenset[str], re.Pattern[str]]]:
    """For each standard term of the query: its own terms in the query, and any of its forms."""
    if not isinstance(terms, FormedTerms):
        return []
    wanted = set(terms.all())
    found: list[tuple[frozenset[str], re.Pattern[str]]] = []
    taken: set[str] = set()
    for form in terms.forms:
        own = frozenset(t for t in query_terms(form.written).all() if t in wanted and t not in taken)
        if own:
            taken |= own
            found.append((own, form.pattern))
    return found


def _spellings(form: str) -> list[str]:
    """A form as records write it: a space also as a hyphen or nothing (``kv cache``, ``kv-cache``, ``kvcache``)."""
    if " " not in form and "-" not in form:
        return [form]
    words = re.split(r"[ \-]", form)
    return list(dict.fromkeys([form, " ".join(words), "-".join(words), "".join(words)]))

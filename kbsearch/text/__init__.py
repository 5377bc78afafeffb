"""Text helpers every layer may use, importing nothing of kbsearch but errors.

``folding`` (the one folded form, NFKC and lower case, that lexical matching
and exact ids compare in), ``ids`` (arXiv ids, GitHub repos and URLs found in
text), ``textsim`` (word overlap, rare names, result numbers, language),
``snippet`` (a hit's snippet and its highlighted spans) and ``terminal``
(text made safe to print on a terminal).
"""

"""kbsearch's benchmarks: one entry point, ``python -m bench NAME [ARGS]``.

``python -m bench`` lists them, each with the first line of its docstring;
``make bench-*`` calls them. Each bench is one module whose numbers a page of
docs/ cites, with the command that reproduces them. The pieces they share sit
beside them, once each: ``benchlib`` (child processes that report their own
peak memory, timers' percentiles, JSONL inputs), ``corpus`` (the 1M-record
corpus of real text and its vector cache), ``corpus_encoder`` and
``cached_encoder`` (an encoder answering from those caches), ``dev_stream``
(the labelled dev stream) and ``index_recall`` (held-apart queries, recall
against an exact scan).

The modules import each other by their bare names (``import corpus``), as
scripts do: ``python bench/NAME.py`` runs each one as well, and the runner
puts this folder first on ``sys.path`` to the same effect.
"""

"""How one kbsearch process runs beside others.

``cancel`` (a request's time budget and the ``checkpoint()`` long work calls),
``timings`` (where a command spent its time, on ``KBSEARCH_TIMINGS=1``),
``cores`` (the cores left free by the load average), ``server_entry`` (the
file a running ``kbsearch serve`` leaves in the index folder, so that other
processes find it and its tokens) and ``tracebacks`` (a bug's traceback, on
``KBSEARCH_TRACEBACK=1``).
"""

"""Result objects as terminal text, shared by the CLI and the TUI.

Record text comes from files nobody vetted, so every string is stripped of
escape sequences and control characters before it reaches the terminal.

- ``cells``: cutting to terminal cells (CJK is two wide), counted nouns.
- ``records``: search results, listings, one record.
- ``dedupe``: check, audit, similar, explain.
- ``reports``: stats, ingest, reindex, models, doctor, calibrate, remove.
"""

from kbsearch.render.cells import MATCH_STYLE, counted, fit
from kbsearch.render.dedupe import (
    audit_scope,
    audit_text,
    check_text,
    check_warnings,
    cluster_heading,
    explanation_text,
    held_text,
    item_text,
    neighbours_text,
    same_as_text,
    same_day_text,
    warn_unnamed,
)
from kbsearch.render.records import (
    listing_ids,
    listing_text,
    listing_tsv,
    missing_lines,
    record_text,
    score_text,
    search_text,
    snippet_text,
    unknown_filters_text,
    why_empty,
)
from kbsearch.render.reports import (
    calibration_text,
    doctor_text,
    ingest_text,
    ingest_warnings,
    models_text,
    refused_text,
    reindex_text,
    removal_text,
    stats_text,
)
from kbsearch.text.terminal import clean

__all__ = [
    "MATCH_STYLE",
    "audit_scope",
    "audit_text",
    "calibration_text",
    "check_text",
    "check_warnings",
    "clean",
    "cluster_heading",
    "counted",
    "doctor_text",
    "explanation_text",
    "fit",
    "held_text",
    "ingest_text",
    "ingest_warnings",
    "item_text",
    "listing_ids",
    "listing_text",
    "listing_tsv",
    "missing_lines",
    "models_text",
    "neighbours_text",
    "record_text",
    "refused_text",
    "reindex_text",
    "removal_text",
    "same_as_text",
    "same_day_text",
    "score_text",
    "search_text",
    "snippet_text",
    "stats_text",
    "unknown_filters_text",
    "warn_unnamed",
    "why_empty",
]

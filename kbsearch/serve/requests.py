"""The bodies of the server's calls: one typed model per operation, mirroring
the CLI's flags. Unknown fields are refused, so a misspelt flag is an error
rather than silently ignored, and so is a string that is not Unicode text.
The MCP tools take the same fields."""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from kbsearch.filters import SearchFilter, empty_text_filter
from kbsearch.limits import UNICODE_HINT, unicode_problem
from kbsearch.records import Kind
from kbsearch.responses import SearchMode

MAX_K = 1000
CONFIG = (
    "a whole dedupe config (a 'kbsearch calibrate --out' file's fields), validated as 'check --config FILE' "
    "reads it, or numbers that override the model's config (candidates, claim_hits …: fields of DedupeConfig)"
)
CONFIG_PATH = "the file the whole config was read from: names it in errors and notes; never opened by the server"
# As the CLI refuses an empty --instance, --topic, --category or --section, in a caller's words.
EMPTY_NAME = str(empty_text_filter("instance", "", part="field"))
EMPTY_SECTION = str(empty_text_filter("section", "", part="field"))


MISSING = {"text": "send the file's content as text: path only names it, and the server never opens it"}
"""What to send for a required field left out, where its name alone does not say it."""


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _unicode(cls, value: Any) -> Any:
        # A JSON "\ud800" decodes to a lone surrogate, which SQLite and the
        # models cannot encode: refuse it here, naming the field.
        for text in value if isinstance(value, list) else [value]:
            problem = unicode_problem(text) if isinstance(text, str) else None
            if problem is not None:
                raise ValueError(f"{problem} ({UNICODE_HINT})")
        return value


def problem(err: ValidationError, fields: Iterable[str] = ()) -> tuple[str, str | None]:
    """A validation error as (message, hint), as the JSON API and the MCP tools say it: the
    field, then what is wrong with it, a bound or a choice in the CLI's words (``k must be at
    most 1000, not 5000``; ``ask for fewer``), not pydantic's (``k: Input should be less
    than or equal to 1000``).
    ``fields``: the body's, to name the one a misspelt field is close to (``sinse``: since)."""
    errors = err.errors()
    # A field taking one value or a list (``kind``) fails both ways: say what is
    # wrong with the value (not one of the kinds), not that it is not a list.
    field = errors[0]["loc"][:1]
    first = next((e for e in errors if e["loc"][:1] == field and not e["type"].endswith("_type")), errors[0])
    # The field's name: no list index, no union member's tag (``list[str-enum[Kind]]``).
    names = [str(part) for part in first["loc"] if not isinstance(part, int) and "[" not in str(part)]
    where = ".".join(names) or "body"
    ctx, value = first.get("ctx") or {}, first.get("input")
    if first["type"] == "value_error":
        said = ctx["error"]
        whole = not names or isinstance(said, FieldsInOrder)  # said in full, naming its field itself
        return (str(said), getattr(said, "hint", None)) if whole else (f"{where}: {said}", None)
    if first["type"] == "missing":
        return f"{where} is missing", MISSING.get(where)
    if first["type"] == "less_than_equal":
        return f"{where} must be at most {ctx['le']}, not {value}", "ask for fewer"
    if first["type"] == "greater_than_equal":
        return f"{where} must be at least {ctx['ge']}, not {value}", None
    if first["type"] == "enum":
        choices = ", ".join(choice.strip("'") for choice in ctx["expected"].replace(" or ", ", ").split(", "))
        return f"{where}: {value!r} is not one of {choices}", None
    if first["type"].startswith("date"):
        why = f" ({ctx['error']})" if "error" in ctx else ""
        return f"{where}: {value!r} is not a date{why}", "write YYYY-MM-DD, like 2026-09-19"
    if first["type"] == "extra_forbidden" and len(names) == 1:
        return unknown_field(where, fields)
    return f"{where}: {first['msg']}", None


def unknown_field(name: str, fields: Iterable[str]) -> tuple[str, str | None]:
    """A field the call does not take, as (message, hint): the one it is close to, else all of them."""
    known = list(fields)
    meant = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"did you mean {meant[0]}?" if meant else ("its fields are " + ", ".join(known) if known else None)
    return f"{name}: no such field", hint


class FieldsInOrder(ValueError):
    """A body whose fields contradict each other, or a field refused in words naming it (``id is
    empty``), said with what to do (``problem``'s hint)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


class Filters(Body):
    """``--kind``, ``--instance``, ``--topic``, ``--category``, ``--section``, ``--since``, ``--until``."""

    kind: list[Kind] = Field(default_factory=list, description="only these kinds (one kind, or a list)")
    instance: str | None = Field(
        default=None, description="only records by this writer (an instance, as stats lists this index's writers)"
    )
    topic: str | None = Field(default=None, description="only this topic (inference, llm-infra, …)")
    category: str | None = Field(
        default=None, description="only this category, any case: a paper card's primary category (inference, cs.CL)"
    )
    section: str | None = Field(default=None, description="only records whose section contains this text")
    since: dt.date | None = Field(default=None, description="only records dated on or after this day")
    until: dt.date | None = Field(default=None, description="only records dated on or before this day")

    @field_validator("kind", mode="before")
    @classmethod
    def _one_kind(cls, value: Any) -> Any:
        # "kind": "increment" as --kind increment takes it: a list of one.
        return [value] if isinstance(value, str) else value

    @field_validator("instance", "topic", "category", "section", mode="after")
    @classmethod
    def _not_empty(cls, value: str | None, info: ValidationInfo) -> str | None:
        # An empty text would filter nothing, silently: the CLI refuses it too.
        problem = empty_text_filter(info.field_name or "", value, part="field")
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _dates_in_order(self) -> Filters:
        # The CLI says --since/--until (``SearchFilter``); a body has fields.
        if self.since and self.until and self.since > self.until:
            raise FieldsInOrder(
                f"since {self.since} is later than until {self.until}, so no record can match",
                "swap the two dates, or leave one out",
            )
        return self

    def search_filter(self) -> SearchFilter:
        return SearchFilter(
            kinds=self.kind,
            instance=self.instance,
            topic=self.topic,
            category=self.category,
            section=self.section,
            since=self.since,
            until=self.until,
        )


class SearchRequest(Filters):
    """``kbsearch search QUERY [-k N] [--mode M] [filters]``."""

    query: str = Field(description="words, a title, a sentence (Chinese or English) or an arXiv id")
    k: int = Field(default=10, ge=1, le=MAX_K, description="number of results")
    mode: SearchMode = Field(
        default=SearchMode.hybrid, description="dense (by meaning), lexical (exact words and numbers) or hybrid"
    )


class CheckRequest(Body):
    """``kbsearch check INPUT [--as-of D] [--accept] [--config F]``, with the input's text in the body."""

    text: str = Field(description="a briefing, a paper card, JSONL, or the text of one increment")
    path: str | None = Field(
        default=None,
        description="the file the text was read from: picks the format by its extension and labels the records "
        "(an item accepted before with this very text is not compared with itself); never opened by the server; "
        "a relative one names the file there from the server's working directory, else from the folder holding "
        "the index, else the one stored file ending with it (docs/serve.md); "
        "a bare item (a title and key points) takes its writer and day from a path inbox/WRITER/YYYY-MM-DD-….md. "
        "Without it the text is read as 'check -' reads stdin",
    )
    input: str | None = Field(default=None, description="how the result names the input (default: path, else '-')")
    as_of: dt.date | None = Field(
        default=None, description="compare only with records dated on or before this day, and undated ones"
    )
    accept: bool = Field(
        default=False,
        description="then store every item, or none when any is a DUPLICATE (needs write access)",
    )
    replace: bool = Field(
        default=False, description="with accept: let an item overwrite a stored record of another item under its id"
    )
    skip_duplicates: bool = Field(
        default=False,
        description="with accept: store the other items and leave out the DUPLICATEs, listed in the answer's "
        "skipped with what each repeats",
    )
    config: dict[str, Any] = Field(default_factory=dict, description=CONFIG)
    config_path: str | None = Field(default=None, description=CONFIG_PATH)
    detail: Literal["full", "summary"] = Field(
        default="full",
        description="full: the whole result, as 'check --json' prints it; summary: per item the verdict, reason, "
        "first seen, best match and new claims (CheckSummary, what the MCP tools answer)",
    )


class ShowRequest(Body):
    """``kbsearch show ID``."""

    id: str = Field(description="a record id, as search and list print it")

    @field_validator("id", mode="after")
    @classmethod
    def _an_id(cls, value: str) -> str:
        if not value.strip():
            raise FieldsInOrder("id is empty", "give a record id, as search and list give them")
        return value


class SimilarRequest(Filters):
    """``kbsearch similar ID [-k N] [filters]``."""

    id: str = Field(description="a stored record's id")
    k: int = Field(default=10, ge=1, le=MAX_K, description="number of records")
    config: dict[str, Any] = Field(default_factory=dict, description=CONFIG)
    config_path: str | None = Field(default=None, description=CONFIG_PATH)


class ExplainRequest(Body):
    """``kbsearch explain A B``."""

    a: str = Field(description="the first record's id")
    b: str = Field(description="the second record's id")
    config: dict[str, Any] = Field(default_factory=dict, description=CONFIG)
    config_path: str | None = Field(default=None, description=CONFIG_PATH)
    as_of: dt.date | None = Field(
        default=None, description="judge as a check that day did: records dated later, and A, hidden"
    )
    claim: int | None = Field(
        default=None, ge=1, description="why check calls A's claim N (from 1, as n in new_claims) known or new"
    )


class ListRequest(Filters):
    """``kbsearch list [filters] [--limit N]``."""

    limit: int | None = Field(default=None, ge=1, description="at most this many records, oldest first")


class StatsRequest(Body):
    """``kbsearch stats`` (an empty body)."""

"""``GET /api/openapi.json``: the JSON API described from its own pydantic models."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic.json_schema import models_json_schema

from kbsearch.dedupe.results import CheckResult, Explanation, Neighbours
from kbsearch.records import Record
from kbsearch.responses import Listing, SearchResponse, Stats
from kbsearch.serve.operations import Operation
from kbsearch.serve.summary import CheckSummary

REF = "#/components/schemas/{model}"
ERRORS = {
    "400": "bad input (the body is not JSON, is nested too deeply, or the operation refused it)",
    "401": "missing or wrong bearer token",
    "403": "the token may not do this (accept needs the write token)",
    "404": "no record with that id",
    "413": "the body, or an input in it, is over a limit; the error names the limit",
    "422": "a field is unknown, missing, of the wrong type, or a string that is not Unicode text",
    "503": "busy (another writer holds the index, or the check queue is full): retry after Retry-After "
    "seconds; or the request ran over its time budget and was stopped (no Retry-After)",
}


def openapi_document(operations: Iterable[Operation]) -> dict[str, Any]:
    operations = list(operations)
    responses = [SearchResponse, CheckResult, CheckSummary, Record, Neighbours, Explanation, Listing, Stats]
    models = [(op.request, "validation") for op in operations] + [(m, "serialization") for m in responses]
    _, schemas = models_json_schema(models, ref_template=REF)  # type: ignore[arg-type]
    error = {
        "type": "object",
        "properties": {
            "error": {"type": "string", "description": "what is wrong, one line"},
            "hint": {"type": ["string", "null"], "description": "what to do about it, one line"},
            "path": {"type": "string", "description": "the input file the error is in"},
            "line": {"type": "integer", "description": "the line of that file"},
        },
        "required": ["error"],
    }
    paths = {f"/api/{op.name}": {"post": _operation(op)} for op in operations}
    summary = "status, records, model, generation and the pid that answered; needs no token"
    paths["/health"] = {"get": {"summary": summary, "security": [], "responses": {}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "kbsearch", "version": "1", "description": "The JSON API of 'kbsearch serve --http'."},
        "paths": paths,
        "components": {
            "schemas": {**schemas.get("$defs", {}), "Error": error},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


def _operation(op: Operation) -> dict[str, Any]:
    json_of = lambda name: {"application/json": {"schema": {"$ref": REF.format(model=name)}}}  # noqa: E731
    answers = [{"$ref": REF.format(model=name)} for name in op.response.split(" | ")]  # check: full or summary
    answer = {"application/json": {"schema": answers[0] if len(answers) == 1 else {"oneOf": answers}}}
    responses: dict[str, Any] = {"200": {"description": "the document --json prints", "content": answer}}
    responses |= {code: {"description": text, "content": json_of("Error")} for code, text in ERRORS.items()}
    return {
        "summary": op.summary,
        "operationId": op.name,
        "requestBody": {"required": True, "content": json_of(op.request.__name__)},
        "responses": responses,
    }

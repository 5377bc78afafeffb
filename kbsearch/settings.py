"""Every ``KBSEARCH_*`` environment variable, read and checked in one place.

A pydantic-settings ``BaseSettings``: the prefix, the parsing and the
validation are its own. ``settings()`` reads the environment each time it is
called (well under a millisecond), so a test or a long-lived process that
changes a variable is heard. An empty variable counts as unset, except one
naming a folder or file (``KBSEARCH_INDEX``, ``KBSEARCH_MODELS``,
``KBSEARCH_CACHE``, ``KBSEARCH_TOKEN_CACHE``): set but empty is a shell
variable that expanded to nothing (``KBSEARCH_INDEX=$TEAM_INDEX``), and the
default (``./index``) standing in for it silently would read, or create, the
wrong index; it is a bad value like any other. A value that
does not fit raises one ``KbError`` naming the variable and what it accepts,
whichever command runs, rather than a traceback or a silent fallback deep
inside one.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kbsearch.errors import KbError

PREFIX = "KBSEARCH_"


class Settings(BaseSettings):
    """The variables, by field name: ``index`` is ``KBSEARCH_INDEX``, and so on."""

    # No .env file and no secrets folder: the environment alone, as documented.
    model_config = SettingsConfigDict(env_prefix=PREFIX, env_ignore_empty=True, frozen=True, extra="ignore")

    index: Path | None = None
    """The index folder used when a command gets no ``--index`` (else ``./index``)."""
    model: str | None = None
    """The model, by its models.txt name, used when a command gets no ``--model``
    (else the first entry of models.txt)."""
    models: Path | None = None
    """The models.txt file listing the models (else the checkout's, else the packaged copy)."""
    cache: Path | None = None
    """Where models rebuilt on first use (multilingual-e5-small, its ONNX
    exports) are kept (else ``~/.cache/kbsearch``)."""
    token_cache: Path | None = None
    """Where check keeps the judge's token vectors between processes (else
    ``token-vectors`` in the model cache)."""
    token_cache_rows: int = Field(default=1_000_000, ge=0)
    """Token rows kept there (float16; e5: 768 bytes each); 0 keeps none."""
    token_fill: int = Field(default=20_000, ge=0)
    """After an ingest, a background process keeps on disk the token vectors of
    at most this many of the newest records, as many as fit in most of the disk
    tier (``kbsearch/kb/token_fill.py``); 0: none."""
    lock_timeout: float = Field(default=600.0, ge=0)
    """Seconds a writer waits for another writer's lock on the index before giving up."""
    use_threads: int | None = Field(default=None, ge=1)
    """BLAS threads of the default model (USE); else as many as there are free
    cores when it loads (by the load average), at least one: when the cores
    are shared the threads only wait on each other, and on idle cores a bulk
    ingest gains from each."""
    audit_threads: int | None = Field(default=None, ge=1)
    """Threads of ``audit``'s neighbour search (else every core)."""
    judge_threads: int | None = Field(default=None, ge=1)
    """Threads of one run of the judge (e5 on onnxruntime; else every core).
    ``kbsearch serve`` runs it on one: its requests run side by side, and a
    check's model runs then leave the other cores to the searches."""
    timings: bool = False
    """``1`` prints where one command spent its time (phases) on stderr."""
    traceback: bool = False
    """``1`` prints the whole traceback of an unexpected error (a bug in
    kbsearch) before the one line that names it."""
    server: str | None = None
    """A running ``kbsearch serve --http`` (its URL) that ``search``, ``check``,
    ``show``, ``similar``, ``explain``, ``list`` and ``stats`` ask instead of
    opening the index themselves (else they run locally)."""
    server_wait: float | None = Field(default=None, gt=0)
    """Seconds a command waits for a server's answer to a request it took (else 120: twice a
    server's default ``--budget``, which bounds every request it answers, waiting included)."""
    token: str | None = None
    """The bearer token for ``server``: the content of ``serve-read.token`` (or
    ``serve-write.token`` to accept) from the server's index folder."""
    milvus_token: str | None = None
    """The token of the Milvus server an index keeps its vectors in
    (``--vectors milvus://HOST:PORT``): ``user:password``, or an API key.
    Read when the collection is opened; never stored in the index."""

    @field_validator("lock_timeout", "server_wait")
    @classmethod
    def _a_number(cls, value: float | None) -> float | None:
        if value is not None and math.isnan(value):  # inf is fine: wait as long as it takes
            raise ValueError("not a number")
        return value

    @field_validator("cache", "token_cache")
    @classmethod
    def _home(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else value


ALLOWED = {
    "index": "a folder",
    "model": "a model name from models.txt",
    "models": "a models.txt file",
    "cache": "a folder",
    "token_cache": "a folder",
    "token_cache_rows": "a whole number, 0 or more (0 keeps none)",
    "token_fill": "a whole number of records, 0 or more (0 fills none)",
    "lock_timeout": "a number of seconds, 0 or more (e.g. 600)",
    "use_threads": "a whole number, 1 or more",
    "audit_threads": "a whole number, 1 or more",
    "judge_threads": "a whole number, 1 or more",
    "timings": "1 to print phase times, 0 not to",
    "traceback": "1 to print the traceback of an internal error, 0 not to",
    "server": "a URL such as http://127.0.0.1:8765",
    "server_wait": "a number of seconds, more than 0 (e.g. 300)",
    "token": "the content of a serve-read.token or serve-write.token file",
    "milvus_token": "a Milvus token: user:password, or an API key",
}
"""What each variable accepts, in the words of its error message."""


PATHS = ("index", "models", "cache", "token_cache")
"""The variables naming a folder or file: empty is a bad value, not "unset"."""


def env_name(field: str) -> str:
    return PREFIX + field.upper()


def settings() -> Settings:
    """The settings the environment gives, checked; a bad value is a ``KbError``."""
    for field in PATHS:
        value = os.environ.get(env_name(field))
        if value is not None and not value.strip():
            raise KbError(
                f"{env_name(field)}={value!r} is set but empty: it takes {ALLOWED[field]}",
                hint=f"set it to one, or unset it ('unset {env_name(field)}') for the default",
            )
    try:
        return Settings()
    except ValidationError as err:
        problem = err.errors()[0]
        field = str(problem["loc"][0])
        raise KbError(
            f"{env_name(field)}={problem['input']!r} is not valid: it takes {ALLOWED[field]}",
            hint=f"fix or unset {env_name(field)}",
        ) from err

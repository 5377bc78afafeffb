"""Replaying a labelled stream through ``check``, day by day, as a user would.

A labelled stream is JSON Lines: each line is a record (the fields of
``kbsearch ingest``'s JSONL) plus two keys kbsearch never reads when it
checks: ``item``, the truth (say, the arXiv id a summary is about), and
``role``:

- ``known``: ingested on its day, before that day's checks;
- ``check``: checked on its day with ``check --as-of DAY``, never ingested;
- ``both``: checked on its day, then ingested (one feed checked against its
  own earlier days);
- ``after``: ingested on its day after that day's checks, never checked (the
  form a checked record is stored in when that differs from the form it was
  checked in: an increment checked with all its key points, stored with some).

A checked row may also carry ``claims_known``, the truth for each of its
claims (要点): known when a record of the same item ingested earlier holds it;
and ``claims_clear``, which of those labels are beyond doubt. The replay
keeps what ``check`` said of each claim beside them.

An item is *seen before* when a known record of the same ``item`` was
ingested before it was checked. The replay goes through ``KnowledgeBase`` (as a ``Gate``),
the code the CLI runs, and keeps every compared pair's features and label,
so ``kbsearch calibrate`` can fit the same-item decision on it and the
benchmark can score the verdicts.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from kbsearch.dedupe.config import DedupeConfig
from kbsearch.dedupe.results import CheckResult, ClaimEvidence, ClaimStatus, Rule, Verdict
from kbsearch.errors import KbError


class Gate(Protocol):
    """What a replay needs of a knowledge base: ``kbsearch.kb.KnowledgeBase``,
    whose ingest and check are the CLI's (dedupe sits below the facade, so
    it is handed one rather than importing it)."""

    def ingest(self, paths: list[Path]) -> object: ...

    def check(
        self, source: str, *, as_of: dt.date | None = None, config: DedupeConfig | None = None
    ) -> CheckResult: ...

    def __enter__(self) -> Gate: ...

    def __exit__(self, *exc: object) -> None: ...


class StreamRow(BaseModel):
    """One line of a labelled stream: a record plus its truth and role."""

    item: str
    role: Literal["known", "check", "both", "after"]
    date: dt.date
    record: dict[str, object]
    claims_known: list[bool] | None = None
    """Per claim of a checked record: whether an earlier record of its item holds it."""
    claims_clear: list[bool] | None = None
    """Per claim: whether its label is beyond doubt (a soft "new" may be said in the other's text)."""


class Checked(BaseModel):
    """One checked record: its truth and what check said."""

    id: str
    date: dt.date
    seen_before: bool
    verdict: Verdict
    candidate_found: bool
    """Whether a known record of the same item was among the compared candidates."""
    claims: list[ClaimOutcome] = Field(default_factory=list)
    """Each claim's truth beside what check said, when the stream gives the truth."""


class ClaimOutcome(BaseModel):
    """One claim of a checked record: the truth and what check said."""

    known: bool
    clear: bool
    said_known: bool
    features: dict[str, float] = Field(default_factory=dict)
    """What the claim decision read of the passage it judged by (refits read these)."""
    evidence: list[ClaimEvidence] = Field(default_factory=list)
    """The passages ``claim_said`` weighed (a refit re-decides from these and ``cosine_known``)."""
    cosine_known: bool = False
    """The judge's cosine decision on its own, which a refit of ``claim_said`` keeps."""


class PairExample(BaseModel):
    """One compared (item, known record) pair: its features and whether it is one item."""

    item: str
    """The checked record's id."""
    known: str = ""
    """The known record's id (empty in replays saved before it was kept)."""
    date: dt.date
    features: dict[str, float]
    same: bool
    """The truth: both are about one ``item``."""
    rule: Rule
    """What decided the pair in the replay (exact evidence, or learned)."""
    exact_same: bool
    """The replay's decision, which exact evidence fixes whatever the scorer says."""


class ReplayResult(BaseModel):
    checked: list[Checked] = Field(default_factory=list)
    pairs: list[PairExample] = Field(default_factory=list)


def read_stream(path: Path) -> list[StreamRow]:
    """The rows of a labelled stream file; a bad line is an error naming it."""
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise KbError(f"cannot read the stream: {err}", path=str(path)) from err
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            truth = ("item", "role", "claims_known", "claims_clear")
            record = {k: v for k, v in data.items() if k not in truth}
            labels = {k: data[k] for k in truth[2:] if k in data}
            rows.append(
                StreamRow(item=data.get("item"), role=data.get("role"), date=data.get("date"), record=record, **labels)
            )
        except (json.JSONDecodeError, ValidationError, AttributeError) as err:
            raise KbError(
                "a labelled stream line needs a record with a date plus 'item' and 'role' "
                "(known, check, both or after)",
                path=str(path),
                line=number,
                hint="docs/dedupe.md, 'Calibrating a model of your own', has the format and an example",
            ) from err
    return rows


def replay(
    kb: Gate,
    rows: list[StreamRow],
    workdir: Path,
    config: DedupeConfig,
    on_day: Callable[[dt.date, int, int], None] | None = None,
) -> ReplayResult:
    """Ingest and check ``rows`` day by day into ``kb`` (a fresh index).

    ``on_day(day, ingested, checked)`` follows each day: a stream whose checked
    feed starts later than its known one ingests for days before checking any."""
    by_day: dict[dt.date, list[StreamRow]] = defaultdict(list)
    for row in rows:
        by_day[row.date].append(row)
    item_of = {str(r.record["id"]): r.item for r in rows}
    every = config.model_copy(update={"matches_shown": 10_000})  # keep every compared pair
    seen: set[str] = set()
    result = ReplayResult()
    workdir.mkdir(parents=True, exist_ok=True)
    for day in sorted(by_day):
        today = by_day[day]
        _ingest(kb, [r for r in today if r.role == "known"], workdir / f"known-{day}.jsonl", seen)
        checks = [r for r in today if r.role in ("check", "both")]
        if checks and seen:
            _check(kb, checks, workdir / f"check-{day}.jsonl", day, every, seen, item_of, result)
        elif checks:
            result.checked += [
                Checked(
                    id=str(r.record["id"]),
                    date=day,
                    seen_before=False,
                    verdict=Verdict.NEW,
                    candidate_found=False,
                    claims=_claim_outcomes(r, None),
                )
                for r in checks
            ]
        _ingest(kb, [r for r in today if r.role in ("both", "after")], workdir / f"later-{day}.jsonl", seen)
        if on_day:
            on_day(day, sum(r.role != "check" for r in today), len(checks))
    return result


def _write(path: Path, rows: list[StreamRow]) -> None:
    path.write_text("".join(json.dumps(r.record, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _ingest(kb: Gate, rows: list[StreamRow], path: Path, seen: set[str]) -> None:
    if not rows:
        return
    _write(path, rows)
    kb.ingest([path])
    seen.update(r.item for r in rows)


def _check(
    kb: Gate,
    rows: list[StreamRow],
    path: Path,
    day: dt.date,
    config: DedupeConfig,
    seen: set[str],
    item_of: dict[str, str],
    result: ReplayResult,
) -> None:
    _write(path, rows)
    checked = kb.check(str(path), as_of=day, config=config)
    for row, outcome in zip(rows, checked.items, strict=True):
        same = [item_of.get(m.id) == row.item for m in outcome.matches]
        result.checked.append(
            Checked(
                id=outcome.id,
                date=day,
                seen_before=row.item in seen,
                verdict=outcome.verdict,
                candidate_found=any(same),
                claims=_claim_outcomes(row, outcome.claims),
            )
        )
        result.pairs += [
            PairExample(
                item=outcome.id, known=m.id, date=day, features=m.features, same=s, rule=m.rule, exact_same=m.same_item
            )
            for m, s in zip(outcome.matches, same, strict=True)
        ]


def _claim_outcomes(row: StreamRow, said: list[ClaimStatus] | None) -> list[ClaimOutcome]:
    """The truth of each claim beside check's word on it (``said`` None: nothing was known, so
    every claim is new); none when the stream gives no truth, or when check judged another
    number of claims than the row has."""
    if row.claims_known is None or (said is not None and len(said) != len(row.claims_known)):
        return []
    clear = row.claims_clear or [True] * len(row.claims_known)
    if said is None:
        return [ClaimOutcome(known=k, clear=c, said_known=False) for k, c in zip(row.claims_known, clear, strict=True)]
    return [
        ClaimOutcome(
            known=known,
            clear=sure,
            said_known=status.known,
            features=status.features,
            evidence=status.evidence,
            cosine_known=bool(status.cosine_known),
        )
        for known, sure, status in zip(row.claims_known, clear, said, strict=True)
    ]

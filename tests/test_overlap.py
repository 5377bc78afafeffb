"""A cold check loads the judge on a thread while USE loads (``runtime/overlap.py``):
both loads spend their time outside the GIL. The timings keep the main thread's
phases summing to the run; the thread's are shown apart."""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.files import write_jsonl
from test_judge import ITEM, KNOWN, judged_models  # noqa: F401 (a fixture)

import kbsearch.kb.opened as opened
import kbsearch.runtime.timings as timings
from kbsearch.kb import KnowledgeBase
from kbsearch.runtime.overlap import side_by_side
from kbsearch.store import Store


def test_the_second_load_runs_while_the_first_does() -> None:
    """Each waits for the other: run one after the other, both would time out."""
    here_started, beside_started = threading.Event(), threading.Event()

    def here() -> bool:
        here_started.set()
        return beside_started.wait(5)

    def beside() -> bool:
        beside_started.set()
        return here_started.wait(5)

    assert side_by_side(here, beside, "wait") == (True, True)


def test_an_error_beside_is_raised_here() -> None:
    def broken() -> None:
        raise ValueError("no judge")

    with pytest.raises(ValueError, match="no judge"):
        side_by_side(lambda: 1, broken, "wait")


def test_a_phase_on_another_thread_is_shown_apart_from_the_sum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KBSEARCH_TIMINGS", "1")
    timings.reset()

    def beside() -> None:
        with timings.phase("judge load"):
            pass

    with timings.phase("model load"):
        side_by_side(lambda: None, beside, "judge wait")
    out = io.StringIO()
    timings.report(10.0, out)
    phases = json.loads(out.getvalue().removeprefix(timings.PREFIX))
    assert "beside: judge load" in phases and "judge load" not in phases
    main_thread = sum(v for k, v in phases.items() if k not in ("total",) and not k.startswith("beside: "))
    assert main_thread == pytest.approx(10.0, abs=1e-3)


def judge_loads_seen(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """The thread of each judge load from now on."""
    loaded_on: list[threading.Thread] = []
    load_judge = opened.load_judge

    def spy(*args: object) -> object:
        loaded_on.append(threading.current_thread())
        return load_judge(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(opened, "load_judge", spy)
    return loaded_on


@pytest.mark.usefixtures("judged_models")
def test_check_and_ingest_load_the_judge_off_the_main_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded_on = judge_loads_seen(monkeypatch)
    with KnowledgeBase.open(tmp_path / "idx", create=True) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    assert len(loaded_on) == 1 and loaded_on[0] is not threading.main_thread()
    with KnowledgeBase.open(tmp_path / "idx") as kb:
        result = kb.check_text(json.dumps(ITEM))
    assert result.items and len(loaded_on) == 2 and loaded_on[1] is not threading.main_thread()


def test_the_modules_beside_would_import_are_imported_here_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-X importtime keeps one tally for all threads: imports on two threads at once corrupt it."""
    (tmp_path / "overlap_probe.py").write_text("import threading\nIMPORTED_ON = threading.current_thread()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "overlap_probe", raising=False)

    def beside() -> object:
        import overlap_probe  # type: ignore[import-not-found]

        return overlap_probe.IMPORTED_ON

    _, imported_on = side_by_side(lambda: None, beside, "wait", imports=("overlap_probe",))
    assert imported_on is threading.main_thread()


def test_e5_builds_its_session_while_its_tokenizer_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime

    import kbsearch.embed.e5_onnx as e5_onnx

    started: dict[str, threading.Thread] = {}
    both = threading.Barrier(2, timeout=5)  # each waits for the other: one after the other, both would time out

    def tokenizer(folder: Path) -> object:
        started["tokenizer"] = threading.current_thread()
        both.wait()
        return object()

    class Session:
        def __init__(self, *args: object, **kwargs: object) -> None:
            started["session"] = threading.current_thread()
            both.wait()

        def get_outputs(self) -> list[object]:
            return [type("Output", (), {"shape": ["batch", 384]})()]

    monkeypatch.setattr(e5_onnx.E5Tokenizer, "in_folder", staticmethod(tokenizer))
    monkeypatch.setattr(onnxruntime, "InferenceSession", Session)
    model = e5_onnx.OnnxE5("e5", tmp_path)
    assert model.dim == 384 and started["tokenizer"] is not started["session"]


def test_the_work_beside_obeys_the_caller_s_cancellation() -> None:
    """A server's request runs under a ``Cancellation`` (a context variable): the work
    beside it must stop at its checkpoints too, or a large check ran on past its budget."""
    from kbsearch.errors import Stopped
    from kbsearch.runtime.cancel import Cancellation, checkpoint, watching

    cancellation = Cancellation()
    cancellation.cancel("the caller has gone")
    with watching(cancellation), pytest.raises(Stopped):
        side_by_side(lambda: None, checkpoint, "wait")


def test_a_pipeline_left_by_an_error_stops_its_work_and_drops_what_has_not_begun() -> None:
    """A check that failed part-way must not go on encoding claims nobody will read."""
    from kbsearch.runtime.overlap import Pipeline

    began, steps, second, stopped = threading.Event(), [], [], []
    with pytest.raises(ValueError), Pipeline() as beside:

        def long_work() -> None:
            began.set()
            for step in range(200):
                if beside.stopping():
                    stopped.append(step)
                    return
                steps.append(step)
                time.sleep(0.01)

        beside.start(long_work, "waiting")
        beside.start(lambda: second.append(True), "waiting")
        assert began.wait(timeout=5)
        raise ValueError("the check failed")
    assert stopped and 0 < len(steps) < 200 and not second


def test_a_pipeline_piece_s_result_is_waited_for_where_it_is_read() -> None:
    from kbsearch.runtime.overlap import Pipeline

    with Pipeline() as beside:
        first = beside.start(lambda: 1, "waiting")
        failing = beside.start(lambda: 1 / 0, "waiting")
        assert first.result() == 1
        with pytest.raises(ZeroDivisionError):
            failing.result()


def test_a_thread_s_pipelines_one_after_another_run_on_one_kept_thread() -> None:
    """A warm process's checks each opened a pipeline, and each started and joined a thread."""
    from kbsearch.runtime.overlap import Pipeline

    def ran_on() -> threading.Thread:
        with Pipeline() as beside:
            return beside.start(threading.current_thread, "waiting").result()

    first, second = ran_on(), ran_on()
    assert first is second and first is not threading.current_thread()


def test_a_pipeline_inside_another_runs_beside_the_outer_s_running_piece() -> None:
    """Queued behind the outer's piece on one thread, the inner piece would never run:
    the outer piece waits for what the inner one sets."""
    from kbsearch.runtime.overlap import Pipeline

    inner_ran = threading.Event()
    with Pipeline():
        pass  # this thread now keeps an idle worker: the outer pipeline takes it
    with Pipeline() as outer:
        waiting = outer.start(lambda: inner_ran.wait(timeout=5), "waiting")
        with Pipeline() as inner:
            inner.start(inner_ran.set, "waiting").result()
        assert waiting.result()


@pytest.mark.usefixtures("judged_models")
def test_a_check_searches_its_candidates_while_the_judge_reads_the_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The candidates' search reads USE's vectors only: it runs during the
    judge's run over the item, not after it (had it waited, the judge's run,
    waiting in turn for a search, would give up after 5 s)."""
    with KnowledgeBase.open(tmp_path / "idx", create=True) as kb:
        kb.ingest([write_jsonl(tmp_path / "known.jsonl", KNOWN)])
    searched = threading.Event()
    search_records = Store.search_records

    def search_seen(self: Store, *args: Any, **kwargs: Any) -> Any:
        searched.set()
        return search_records(self, *args, **kwargs)

    monkeypatch.setattr(Store, "search_records", search_seen)
    with KnowledgeBase.open(tmp_path / "idx") as kb:
        judge = kb.judge
        encode = judge.encode
        searched_first: list[bool] = []

        def encode_after_a_search(texts: Any) -> Any:
            searched_first.append(searched.wait(5))
            return encode(texts)

        monkeypatch.setattr(judge, "encode", encode_after_a_search)
        result = kb.check_text(json.dumps(ITEM))
    assert result.items[0].matches and searched_first[:1] == [True]

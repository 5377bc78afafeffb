"""Quiet unless asked: ``serve`` prints no faiss loader lines and the model
libraries draw no progress bars, unless ``-v`` asks for them."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from serve_support import ROOT, build_index, running_server

from kbsearch.cli import main

FAISS_LOADER = "Loading faiss"
"""faiss's loader logs which CPU build it loads, and each it could not (AVX512, AVX2), on every start."""


def test_serve_says_nothing_of_faiss_unless_verbose(fake_models: Path, tmp_path: Path) -> None:
    index = build_index(tmp_path)
    for extra, shown in (((), False), (("-v",), True)):
        with running_server(index, dict(os.environ), *extra) as server:
            said = "".join(server.log)
        assert (FAISS_LOADER in said) is shown, said
        assert "listening on" in said


BARS = (
    "import logging, sys\n"
    "if sys.argv[1] == 'verbose': logging.getLogger('kbsearch').setLevel(logging.DEBUG)\n"
    "from kbsearch.embed.base import quiet_libraries\n"
    "quiet_libraries()\n"  # what loading any model does first
    "from transformers.utils import logging as transformers_logging\n"
    "print(transformers_logging.is_progress_bar_enabled())"
)


@pytest.mark.parametrize(("verbosity", "bars"), [("quiet", "False"), ("verbose", "True")])
def test_the_model_libraries_draw_progress_bars_only_when_verbose(verbosity: str, bars: str) -> None:
    # "Loading weights" and "Writing model shards" are transformers' bars, on by default.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", BARS, verbosity], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == bars, done.stderr


def test_v_is_what_makes_a_command_verbose(fake_models: Path, tmp_path: Path) -> None:
    index = str(build_index(tmp_path))
    kbsearch = logging.getLogger("kbsearch")
    assert main(["stats", "-v", "--index", index]) == 0 and kbsearch.isEnabledFor(logging.DEBUG)
    assert main(["stats", "--index", index]) == 0 and not kbsearch.isEnabledFor(logging.DEBUG)

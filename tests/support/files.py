"""Writing test inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write(path: Path, content: str | bytes) -> Path:
    """``content`` into ``path`` (text as UTF-8), creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    """One JSON value per line, non-ASCII kept as is, as writers produce it; a
    string row is written as the line itself (for broken lines)."""
    lines = (row if isinstance(row, str) else json.dumps(row, ensure_ascii=False) for row in rows)
    return write(path, "".join(line + "\n" for line in lines))

"""The model cache: folders kbsearch derives once from a packaged model's files.

It lives in ``$KBSEARCH_CACHE``, else ``~/.cache/kbsearch``, outside any index.
A folder is named by a digest of the files it was built from, so a new
package version builds a new folder. It is built in a temporary directory
beside its final place and renamed into it, so a crash mid-build leaves no
half-written folder, and two processes building it at once both end with one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from kbsearch.errors import KbError
from kbsearch.settings import settings

BUILD_INFO = "kbsearch-build.json"
"""Written last into every built folder: its presence marks a finished one."""
DIGESTS = "source-digests.json"
"""In the cache: the digests already computed, so a cold start names its
folder without reading the sources again (about 0.2 s for e5's 90 MB)."""


def cache_root() -> Path:
    """Where rebuilt models live: $KBSEARCH_CACHE, else ~/.cache/kbsearch."""
    return settings().cache or Path.home() / ".cache" / "kbsearch"


def files_digest(tag: str, paths: Sequence[Path]) -> str:
    """A sha256 of ``tag`` and the files' bytes, remembered in the cache by
    their paths, sizes and mtimes so later processes do not read them."""
    key = "|".join([tag, *(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in paths)])
    known = _read_digests()
    if key not in known:
        digest = hashlib.sha256(tag.encode())
        for path in paths:
            with path.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 22), b""):
                    digest.update(chunk)
        known[key] = digest.hexdigest()[:16]
        _write_digests(known)
    return known[key]


def _read_digests() -> dict[str, str]:
    try:
        known = json.loads((cache_root() / DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return known if isinstance(known, dict) else {}


def _write_digests(known: dict[str, str]) -> None:
    # Best effort: without the file, the next start hashes again.
    try:
        cache_root().mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{DIGESTS}.", dir=cache_root())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(known, handle)
        os.replace(temp, cache_root() / DIGESTS)
    except OSError:
        pass


def build_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Run ``write`` on a temporary sibling of ``target``, then rename it into place.

    ``write`` must leave a ``BUILD_INFO`` file behind, last: its presence
    marks a finished folder.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as err:
        raise KbError(
            f"cannot create the model cache: {err.strerror}",
            path=str(target.parent),
            hint="set KBSEARCH_CACHE to a writable folder",
        ) from err
    try:
        write(work)
        try:
            work.rename(target)
        except OSError:
            # Another process finished the same build first; its folder is as good.
            if not (target / BUILD_INFO).is_file():
                raise
    except OSError as err:
        raise KbError(
            f"cannot write the rebuilt model: {err.strerror}",
            path=str(target),
            hint="free disk space or set KBSEARCH_CACHE to another folder",
        ) from err
    finally:
        shutil.rmtree(work, ignore_errors=True)

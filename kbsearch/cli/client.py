"""The CLI as a client of ``kbsearch serve``: ``--server URL``, ``$KBSEARCH_SERVER``,
or the server that runs for the index (its ``serve.json``).

A ``kbsearch serve --http`` writes its address and pid into the index folder
(``serve.json``, mode 0600) and removes it on exit. The commands that have a
server form use it when it answers, with the user's token ($KBSEARCH_TOKEN,
--token-file) or else one from the same folder, so a user gets the warm
server's speed without a flag; ``--local`` opts out. An
entry whose process is gone is stale: ignored, and named by ``doctor``; one whose
process runs but does not answer ``/health`` quickly (hung) is skipped with a note.

The server answers with the very document ``--json`` prints, so the CLI
prints it as it is, or renders it as text with the same code as a local
run: output is the same either way. Kept light (httpx, the result models,
no SQLite, FAISS, numpy or model), so that a whole ``kbsearch search
--server`` process takes a fraction of a second.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbsearch.errors import KbError
from kbsearch.runtime.server_entry import READ_TOKEN, SERVER_FILE, WRITE_TOKEN, ServerEntry, read_entry
from kbsearch.settings import settings

SERVER_ENV = "KBSEARCH_SERVER"
TOKEN_ENV = "KBSEARCH_TOKEN"
TIMEOUT = 120.0
"""Seconds to wait for the answer to a request a server took, unless $KBSEARCH_SERVER_WAIT says:
twice a server's default ``--budget`` (60 s), within which it answers every request (the largest
check its input limits allow, or an accept queued behind another writer, included) or stops it
with a 503. Silence past it is a server that stopped answering (hung, or stopped with SIGSTOP)."""


def found_server(index: str | None, given: str | None = None) -> tuple[str, str] | None:
    """(url, token) of the live server that runs for the index folder, when it left its
    entry. The token is ``given`` (the user's: ``given_token``) when there is one, so a
    read token never accepts; else one from the folder that this user can read: the
    write token, else the read token."""
    root = Path(index or settings().index or "index")
    entry = read_entry(root)
    if entry is None or not entry.alive() or not _found_answers(entry, root):
        return None
    if given:
        return entry.url.rstrip("/"), given
    for name in (WRITE_TOKEN, READ_TOKEN):
        try:
            value = (root / name).read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if value:
            return entry.url.rstrip("/"), value
    return None


FOUND_WAIT = 2.0
"""Seconds a found server has to answer ``/health`` before the command runs locally."""
NAMED_WAIT = 10.0
"""Seconds a named server has to answer ``/health`` before the command says it does not."""


def health(url: str, wait: float, *, direct: bool) -> str:
    """``GET URL/health`` within ``wait`` seconds: "ok", "refused" (nothing listens), "silent"
    (connected, no answer: hung, stopped with SIGSTOP, or swamped) or "other" (not a kbsearch
    server's answer). ``direct``: past any proxy (a found server runs on this machine)."""
    import httpx

    try:
        answer = httpx.get(f"{url}/health", timeout=wait, trust_env=not direct, verify=_verify(url))
        body = answer.json()
    except httpx.ConnectError:
        return "refused"
    except httpx.TimeoutException:
        return "silent"
    except (httpx.HTTPError, ValueError):
        return "other"
    return "ok" if isinstance(body, dict) and body.get("status") == "ok" else "other"


def _verify(url: str) -> bool:
    """Check certificates for https only: httpx builds its TLS context (50-90 ms, the CA
    bundle read) for every request that may verify, and a plain http URL never uses it."""
    return not url.lower().startswith("http://")


def _found_answers(entry: ServerEntry, root: Path) -> bool:
    """Whether the server a folder's entry names answers as a kbsearch server, quickly: a hung
    one (its pid runs) would hold the command for the whole answer's wait. One that does not
    is skipped with a note (one refusing connections has just stopped: no note)."""
    url = entry.url.rstrip("/")
    heard = health(url, FOUND_WAIT, direct=True)
    if heard in ("silent", "other"):
        import sys

        why = f"did not answer within {FOUND_WAIT:.0f} s" if heard == "silent" else "answers as no kbsearch server"
        print(
            f"kbsearch: note: the server in {root / SERVER_FILE} (pid {entry.pid}, {url}) {why}; "
            "running on the local index",
            file=sys.stderr,
        )
    return heard == "ok"


def require_answer(url: str) -> None:
    """A named server (--server, $KBSEARCH_SERVER) that takes a connection but answers nothing
    is said to within NAMED_WAIT seconds, not after the whole answer's wait (TIMEOUT)."""
    if health(url, NAMED_WAIT, direct=False) == "silent":
        raise KbError(
            f"the kbsearch server at {url} does not answer: no answer to /health within {NAMED_WAIT:.0f} s "
            "(hung, stopped, or swamped); nothing was sent",
            hint="look at the server's log or restart it, or drop --server and $" + SERVER_ENV + " to run locally",
        )


def server_url(given: str | None) -> str | None:
    """--server, else $KBSEARCH_SERVER, else None (run locally)."""
    url = given or settings().server
    return url.rstrip("/") if url else None


def given_token(token_file: str | None) -> str | None:
    """The token the user gave: --token-file's content, else $KBSEARCH_TOKEN; None for neither."""
    if token_file:
        try:
            value = Path(token_file).read_text(encoding="utf-8").strip()
        except OSError as err:
            raise KbError(f"cannot read the token file: {err.strerror}", path=token_file) from err
    else:
        value = (settings().token or "").strip()
    return value or None


def token(token_file: str | None) -> str:
    """The bearer token for a named server: the one the user gave (``given_token``)."""
    value = given_token(token_file)
    if not value:
        raise KbError(
            "the server needs a token",
            hint=f"set {TOKEN_ENV}, or pass --token-file with serve-read.token "
            "(serve-write.token to accept) from the server's index folder",
        )
    return value


class Unreachable(KbError):
    """No server listens at the address (a found entry's server may have just stopped)."""


def call(url: str, operation: str, body: dict[str, Any], bearer: str, *, found: bool = False) -> str:
    """POST the body to ``URL/api/OPERATION``; the answer's JSON text, or a KbError saying why not.
    ``found``: the server came from the index folder's serve.json, not from a flag the user gave."""
    import httpx

    payload = json.dumps(body, ensure_ascii=False, default=str).encode("utf-8")
    # The server says an error in the CLI's words for it (``serve.words``; the header's
    # name is spelt here: the client imports nothing of the server), as a local run does.
    headers = {"Authorization": f"Bearer {bearer}", "Content-Type": "application/json", "X-Kbsearch-Words": "cli"}
    wait = settings().server_wait or TIMEOUT
    try:
        answer = httpx.post(
            f"{url}/api/{operation}",
            content=payload,
            headers=headers,
            timeout=None if wait == float("inf") else wait,
            verify=_verify(url),
        )
    except httpx.ConnectError as err:
        raise Unreachable(f"cannot reach the kbsearch server at {url}: {err}", hint=_again(found)) from err
    except httpx.TransportError as err:
        if isinstance(err, httpx.TimeoutException):  # it took the request and went silent: hung, not gone
            said, again = f"took the request and sent no answer within {wait:g} s", _stuck(found, wait)
        else:
            said, again = f"stopped answering mid-way ({str(err).rstrip('.')})", _again(found)
        if operation == "accept" or body.get("accept"):
            raise KbError(
                f"the kbsearch server at {url} {said}: the accept may or may not have been stored",
                hint=again + "; sending the same input again is safe: an accept already stored is a "
                "resubmission and changes nothing",
            ) from err
        raise KbError(f"the kbsearch server at {url} {said}", hint=again) from err
    if answer.status_code == 200:
        return answer.text
    raise _refusal(answer.status_code, answer.text, url)


def _again(found: bool) -> str:
    """What to do when the server stopped answering: it depends on how it was chosen."""
    if found:
        return "the server was found through the index folder's serve.json: run the command again, or pass --local"
    return "start it with 'kbsearch serve --http HOST:PORT', or drop --server and $" + SERVER_ENV


def _stuck(found: bool, wait: float) -> str:
    """What to do when the server took the request and went silent: it is hung, not gone."""
    if found:
        instead = (
            "pass --local to run on the local index, or stop the server (its pid is in the index folder's serve.json)"
        )
    else:
        instead = f"pass --local (or drop --server and ${SERVER_ENV}) to run on a local index, or restart the server"
    return f"{instead}; ${SERVER_ENV}_WAIT ({wait:g} s now) waits longer, for a server run with a longer --budget"


def _refusal(status: int, text: str, url: str) -> KbError:
    said: dict[str, Any] = {}
    try:
        said = json.loads(text)
        reason = str(said["error"])
    except (ValueError, KeyError, TypeError):
        said = {}
        reason = text.strip().splitlines()[0] if text.strip() else "no reason given"
    if status == 401:
        return KbError(
            f"the server at {url} refused the token",
            hint=f"{TOKEN_ENV} or --token-file must hold serve-read.token from its index folder",
        )
    if status >= 500 and status != 503:
        return KbError(f"the server answered {status}: {reason}")
    # The server's own error, said as a local run says it: message, hint and file apart.
    hint, path, line = (said.get(name) for name in ("hint", "path", "line"))
    return KbError(
        reason,
        hint=str(hint) if hint else None,
        path=str(path) if path else None,
        line=line if isinstance(line, int) else None,
    )


def check_body(source: str, stdin_text: str | None) -> tuple[str, str | None]:
    """(text, resolved path) of what ``check INPUT`` reads: the server gets the
    text, and the path only names the file (it never opens it)."""
    if stdin_text is not None:
        return stdin_text, None
    from kbsearch.dedupe.check_input import read_input_file

    return read_input_file(source)


def config_fields(path: str) -> dict[str, Any]:
    """The fields a ``calibrate --out`` file sets, for the server to apply and check."""
    try:
        fields = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise KbError(f"cannot read the dedupe config: {err}", path=path) from err
    if not isinstance(fields, dict):
        raise KbError("the dedupe config must be a JSON object", path=path)
    return fields

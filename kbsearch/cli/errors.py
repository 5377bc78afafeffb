"""How the command line reports what went wrong.

An error is one line on stderr (``kbsearch: what; what to do``), or under
``--json`` one JSON object there, so that a script reading stdout as JSON can
read a failure the same way. A usage error (an unknown option, a bad date)
gets the same treatment, and so does an unexpected exception (a bug), with
an exit code of its own: a pipeline must not read a crash as a verdict. A
reader that goes away before the output is read (``kbsearch list | head``)
ends the run quietly, with the status a process killed by SIGPIPE has, as
other Unix tools do.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shlex
import signal
import sys
import traceback
from typing import Any, NoReturn

from kbsearch.errors import KbError
from kbsearch.runtime import tracebacks
from kbsearch.text.terminal import clean, inert_json

EXIT_USAGE = 2
EXIT_INTERNAL = 3
"""An unexpected exception: a bug in kbsearch. Distinct from 1 (``check``
found a DUPLICATE, ``ingest`` refused some files) and from 2 (the input or
the index is wrong), which a pipeline acts on."""
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 128 + 15
"""128 + SIGTERM: what a shell reports for a process stopped with ``kill``."""
EXIT_BROKEN_PIPE = 128 + 13
"""128 + SIGPIPE: what a shell reports for ``yes | head``."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where it lands as Ctrl-C's ``KeyboardInterrupt`` is, so that
    an unfinished write is rolled back the same way and said the same way."""


def stop_on_sigterm() -> None:
    """SIGTERM ends the command as Ctrl-C does (``Terminated``), not silently mid-write."""

    def terminated(signum: int, frame: object) -> None:
        raise Terminated

    signal.signal(signal.SIGTERM, terminated)


class UsageError(Exception):
    """The command line itself is wrong (raised instead of argparse's exit),
    with what to do about it when kbsearch can tell (``hint``). ``usage`` is
    None for a bad value of an option: the message names the option and what
    it takes, in one line, as every other error is said."""

    def __init__(self, message: str, usage: str | None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage
        self.hint = hint

    def with_hint(self, hint: str) -> UsageError:
        """The same error, saying ``hint`` too (after any hint it has)."""
        return UsageError(self.message, self.usage, f"{self.hint}; {hint}" if self.hint else hint)


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors reach ``main``, which reports
    them as text or JSON, and which takes an option only as spelt in full:
    argparse would read ``--prun`` as ``--prune``, and a shortening that is
    harmless today becomes another option when one is added."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.format_usage())

    # argparse's own hooks (no public ones): a bad value of an option is said in one line.
    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as err:
            raise bad_value(action, arg_string, err) from None

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as err:
            raise bad_value(action, value, err) from None


def bad_value(action: argparse.Action, value: Any, err: argparse.ArgumentError) -> Exception:
    """A bad value of an option as one line: the option, the value, what it takes; argparse's
    error (with the usage) for a positional argument or a command, whose usage is the help."""
    if not action.option_strings:
        return err
    option = max(action.option_strings, key=len)
    if action.choices is not None and value not in action.choices:
        choices = [str(choice) for choice in action.choices]
        meant = closest(str(value), choices)
        message = f"{option}: {value!r} is not one of {', '.join(choices)}"
        return UsageError(message, None, f"did you mean {meant}?" if meant else None)
    if action.type in (int, float):
        return UsageError(f"{option}: {value!r} is not a {'whole ' if action.type is int else ''}number", None)
    return UsageError(f"{option}: {err.message}", None)  # a type of kbsearch's own says what it takes


def closest(word: str, known: list[str]) -> str | None:
    """What ``word`` is a shortening or a misspelling of: the only one of ``known`` starting with it,
    else the nearest by difflib, their dashes aside, when near enough (0.7: --bogus is no --verbose)."""
    bare = word.lstrip("-")
    starting = [name for name in known if name.startswith(word)] if len(bare) > 1 else []
    if len(starting) == 1:
        return starting[0]
    names = {name.lstrip("-"): name for name in known}
    close = difflib.get_close_matches(bare, list(names), n=1, cutoff=0.7)
    return names[close[0]] if close else None


class CommandParser(Parser):
    """A command's parser (``kbsearch check …``): it refuses an unknown option
    itself, with its own usage and the option meant, where argparse hands the
    leftovers up to ``kbsearch``'s parser, whose usage names no option of the
    command."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        parsed, extras = super().parse_known_args(*args, **kwargs)
        if extras:
            message = f"unrecognized arguments: {' '.join(extras)}"
            raise UsageError(message, self.format_usage(), meant_options(extras, self))
        return parsed, extras


def meant_options(extras: list[str], parser: argparse.ArgumentParser) -> str | None:
    """The options of ``parser`` that the unknown ones are close to, else where its options are listed;
    None when the leftovers are its options spelt right (after ``--``, which makes them text)."""
    known = [option for action in parser._actions for option in action.option_strings]  # no public list
    names = [word.split("=", 1)[0] for word in extras]
    meant: dict[str, str] = {}
    for name in names:
        if name.startswith("-") and name not in known and (close := closest(name, known)):
            meant[name] = close
    if len(meant) == 1:
        return f"did you mean {next(iter(meant.values()))}?"
    if meant:
        return "did you mean " + ", ".join(f"{right} for {wrong}" for wrong, right in meant.items()) + "?"
    if any(name in known for name in names):
        return None
    return f"'{parser.prog} --help' lists its options"


def with_hints(err: UsageError, argv: list[str], parser: argparse.ArgumentParser) -> UsageError:
    """The error, plus what a misplaced option, a misspelt command or text
    starting with a dash calls for."""
    return with_dash_hint(with_command_hint(err, argv, parser), argv, parser)


def with_command_hint(err: UsageError, argv: list[str], parser: argparse.ArgumentParser) -> UsageError:
    """The error, plus the command meant when none is named (``serch``), or,
    when options of the command stand before it (``kbsearch --json stats``),
    the command line with them after it: argparse reads them as
    ``kbsearch``'s own, which has none but ``--version``."""
    if err.usage != parser.format_usage():
        return err  # a command's own error (or an option's bad value): the command was found
    commands = _commands(parser)
    words = argv[: argv.index("--")] if "--" in argv else argv
    typed = _first_word(words, _option_arities(parser))
    if typed not in commands and (close := difflib.get_close_matches(typed, list(commands), n=1)):
        return err.with_hint(f"did you mean {close[0]}?")
    at = next((i for i, word in enumerate(words) if word in commands), None)
    if at is None:
        return err
    takes = _option_arities(commands[words[at]])
    meant = {word: _spelt_right(word, takes) for word in words[:at] if word.startswith("-")}
    if not meant or None in meant.values():
        return err
    before = [meant.get(word) or word for word in words[:at]]
    moved = shlex.join(["kbsearch", words[at], *before, *argv[at + 1 :]])
    hint = f"put {' '.join(w for w in before if w.startswith('-'))} after the command: {moved}"
    misspelt = [word for word, right in meant.items() if right != word]
    if misspelt:
        hint = f"{meant_options(misspelt, commands[words[at]])} {hint}"
    return err.with_hint(hint)


def _first_word(words: list[str], takes_value: dict[str, bool]) -> str:
    """The first word that is neither an option nor an option's value: the command typed. In
    ``kbsearch --index idx stats`` it is ``stats``; ``idx`` is no misspelt ``reindex``."""
    value_next = False
    for word in words:
        if value_next:
            value_next = False
        elif word.startswith("-"):
            value_next = "=" not in word and takes_value.get(_spelt_right(word, takes_value) or word, False)
        else:
            return word
    return ""


def _spelt_right(word: str, options: dict[str, bool]) -> str | None:
    """``word`` (``--jsn``, ``--indx=DIR``) with the option it is close to, if it is not one already; None
    when it is close to none. A short option is never respelt: ``-k5`` is ``-k`` with its value."""
    name, equals, value = word.partition("=")
    if name in options or _is_option(word, options):
        return word
    close = closest(name, list(options)) if word.startswith("--") else None
    return close + equals + value if close else None


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse offers no public list of a parser's commands
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def with_dash_hint(err: UsageError, argv: list[str], parser: argparse.ArgumentParser) -> UsageError:
    """The error, plus how to pass text that starts with a dash when the
    command line holds some: argparse reads ``-vLLM`` as an unknown option
    and then says only that the query is missing."""
    takes_value = _option_arities(parser)
    end = argv.index("--") if "--" in argv else len(argv)
    command = next((word for word in argv[:end] if not word.startswith("-")), "search")
    # One dash only: --something is a misspelt option rather than text.
    stray = next((w for w in argv[:end] if _looks_like_text(w) and not _is_option(w, takes_value)), None)
    if stray is not None:
        hint = f"to pass text that starts with '-', put '--' before it: kbsearch {command} -- {stray}"
        if _caused_by(err, stray):
            # argparse's words (``ignored explicit argument 'LLM'``) and its usage say nothing more
            return UsageError(f"{stray} is not an option", None, hint)
        hint = f"{stray} is not an option; {hint}"
    elif any(word in takes_value for word in argv[end + 1 :]):
        hint = "everything after '--' is text: put the options before it"
    else:
        return err
    return err.with_hint(hint)


def _caused_by(err: UsageError, stray: str) -> bool:
    """Whether argparse refused the command line for ``stray`` alone: read as a short option
    with a value it does not take (``-vLLM``), left over, or leaving the text missing."""
    said = err.message
    return (
        "ignored explicit argument" in said
        or said.startswith("the following arguments are required")
        or said == f"unrecognized arguments: {stray}"
    )


def _option_arities(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Every option of the parser and its commands → whether it takes a value."""
    found: dict[str, bool] = {}
    for action in parser._actions:  # argparse offers no public list of a parser's options
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                found.update(_option_arities(command))
        found.update(dict.fromkeys(action.option_strings, action.nargs != 0))
    return found


def _looks_like_text(word: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and len(word) > 1


def _is_option(word: str, takes_value: dict[str, bool]) -> bool:
    """An option as written: ``-k``, or a short one with its value attached
    (``-k5``); ``-vLLM`` is neither."""
    return word in takes_value or takes_value.get(word[:2], False)


def report_error(err: KbError, *, as_json: bool, exit_code: int = EXIT_USAGE) -> None:
    if as_json:
        payload = {"error": err.message, "hint": err.hint, "path": err.path, "line": err.line, "exit_code": exit_code}
        print(inert_json(json.dumps(payload, ensure_ascii=False)), file=sys.stderr)
    else:
        # Messages quote file names and file contents: strip what a terminal would obey.
        print(f"kbsearch: {clean(err.one_line(), one_line=True)}", file=sys.stderr)


def report_internal_error(err: Exception, *, as_json: bool) -> int:
    """A bug, not the user's mistake: one line naming the exception (the
    traceback above it only on request, as it tells a user nothing)."""
    if tracebacks.wanted():
        traceback.print_exception(err, file=sys.stderr)
        hint = "a bug in kbsearch, not in the input: please report it with the traceback above"
    else:
        hint = (
            f"a bug in kbsearch, not in the input: re-run with {tracebacks.TRACEBACK_ENV}=1 to see where, and report it"
        )
    report_error(
        KbError(f"internal error: {tracebacks.described(err)}", hint=hint), as_json=as_json, exit_code=EXIT_INTERNAL
    )
    return EXIT_INTERNAL


def report_usage_error(err: UsageError, *, as_json: bool) -> int:
    usage = err.usage.strip() if err.usage is not None else None
    if as_json:
        payload = {"error": err.message, "hint": err.hint, "usage": usage, "exit_code": EXIT_USAGE}
        print(inert_json(json.dumps(payload, ensure_ascii=False)), file=sys.stderr)
    else:
        said = clean(f"{err.message}; {err.hint}" if err.hint else err.message, one_line=True)
        print(f"{usage}\nkbsearch: error: {said}" if usage else f"kbsearch: {said}", file=sys.stderr)
    return EXIT_USAGE


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of the
    buffered output does not fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor behind stdout (a test's capture)
        pass

"""Pull requests a text names by number, with or without their project ("vLLM PR #18234",
"vllm-project/vllm#18234", "PR #881"): what ``stages`` keys a claim's merge or release to, so
that a record's stage of another pull request does not tell it."""

from __future__ import annotations

import re

PULL = re.compile(
    r"(?<![A-Za-z])(?:PR|MR|pull request|merge request|合并请求)\s*#?\s*(\d{2,7})(?!\w|\.\d)", re.IGNORECASE
)
"""A pull request by its number: "PR #18234", "pull request 881", "合并请求 #42"."""
_NAMED_PULL = re.compile(
    r"(?<![\w./-])[\w.-]+/(?P<repo>[\w.-]+)#(?P<in_repo>\d{2,7})(?!\w|\.\d)"
    r"|(?<![A-Za-z0-9_.+-])(?P<project>[A-Za-z][A-Za-z0-9_.+-]*)(?:\s*的|'s)?\s*"
    r"(?:PR|MR|pull request|merge request|合并请求)\s*#?\s*(?P<number>\d{2,7})(?!\w|\.\d)",
    re.IGNORECASE,
)
"""A pull request keyed by the project named next to its number: "vllm-project/vllm#18234",
"vLLM PR #18234", "SGLang 的 PR #18234"."""
_NOT_A_PROJECT = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "its", "their", "our", "my", "your", "his", "her", "see"}
    | {"same", "one", "another", "new", "open", "draft", "merged", "upstream", "each", "every", "which"}
)
"""Words that begin a sentence before "PR #…" ("The PR #881 …"), which name no project."""


def named_pulls(text: str) -> tuple[set[tuple[str, str]], str]:
    """The pull requests ``text`` names with their project, as (project, number) with the
    project lower-cased, and the text left when those are cut out (where a number is bare)."""
    named: set[tuple[str, str]] = set()
    rest = text
    for match in _NAMED_PULL.finditer(text):
        word = match["project"]
        # A project's name: "vLLM", "TensorRT-LLM", "llama.cpp"; a lower-case word is an
        # English one ("merged in PR #881"), and so are "The", "This", "Our".
        if word is None or ((not word.isalpha() or not word.islower()) and word.lower() not in _NOT_A_PROJECT):
            project = (match["repo"] or word).lower()
            named.add((project, match["in_repo"] or match["number"]))
            rest = rest.replace(match[0], " ")
    return named, rest


def unnamed_pulls(claim: str, records: list[str]) -> bool:
    """Whether the claim names a pull request by a number none of ``records`` names. Where
    both name a project beside the number, the projects must agree ("SGLang PR #18234" is
    no record of "vLLM PR #18234"); where either names none, the number alone decides."""
    named, rest = named_pulls(claim)
    pulls = [(project, number) for project, number in named] + [(None, n) for n in PULL.findall(rest)]
    return bool(pulls) and not any(names_pull(project, number, text) for project, number in pulls for text in records)


def names_pull(project: str | None, number: str, text: str) -> bool:
    """Whether ``text`` names pull request ``number`` of ``project`` (None: of any project)."""
    named, rest = named_pulls(text)
    bare = re.search(rf"(?<!\d){number}(?!\d)", rest) is not None
    if project is None:
        return bare or any(n == number for _, n in named)
    return bare or (project, number) in named

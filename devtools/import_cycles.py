"""An import-linter contract that fails on any import cycle between two modules.

import-linter's own contracts see cycles between sibling packages; this one
sees them between any two modules of the listed packages, a package's
``__init__`` counted as a module of its own, and counts:

- imports inside functions (a lazy import still closes a loop, it only
  closes it later);
- ``from P import name`` as an import of ``P`` (its ``__init__``) as well as
  of ``P.name`` when that is a module: the statement reads ``P`` first;
- not imports under ``if TYPE_CHECKING:``, which never run.

``pyproject.toml`` registers it (``contract_types``) and ``lint-imports``
checks it with the other contracts; ``tests/test_layout.py`` runs
``lint-imports``, so ``make test`` sees a cycle too.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from pathlib import Path

from importlinter import Contract, ContractCheck, fields, output


def module_files(package: str) -> dict[str, Path]:
    """Every module of ``package`` (found as Python finds it) by dotted name."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{package!r} is not an importable package (run lint-imports from the project root)")
    root = Path(next(iter(spec.submodule_search_locations)))
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for branch in node.body for inner in ast.walk(branch)}
    return skipped


def imports_of(name: str, path: Path, modules: set[str]) -> Iterator[tuple[str, int]]:
    """(imported module, line) for each import of one of ``modules`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            if base in modules:
                yield base, node.lineno
            yield from ((f"{base}.{a.name}", node.lineno) for a in node.names if f"{base}.{a.name}" in modules)


def import_graph(packages: list[str]) -> dict[str, dict[str, int]]:
    """Each module's imports of the others: {importer: {imported: first line}}."""
    files = {name: path for package in packages for name, path in module_files(package).items()}
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        edges: dict[str, int] = {}
        for imported, line in imports_of(name, path, set(files)):
            if imported != name:
                edges.setdefault(imported, line)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


class NoCyclesContract(Contract):
    """``type = "no_cycles"``; ``packages``: the root packages whose modules may not import in a circle."""

    type_name = "no_cycles"
    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: object, verbose: bool) -> ContractCheck:
        edges = import_graph(list(self.packages))  # type: ignore[call-overload]
        found = cycles(edges)
        described = [
            [f"{a} -> {b} (line {edges[a][b]})" for a in loop for b in loop if b in edges[a]] for loop in found
        ]
        output.verbose_print(verbose, f"{len(edges)} modules, {len(found)} import cycles")
        return ContractCheck(kept=not found, metadata={"cycles": described})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for number, loop in enumerate(check.metadata["cycles"], 1):
            output.print_error(f"Import cycle {number}; break one of these imports:", bold=True)
            for line in loop:
                output.indent_cursor()
                output.print_error(line)
            output.new_line()

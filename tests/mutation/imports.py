"""Which modules of the tree a test's process may import: the tests that can notice a
mutant of a module's top level.

A line of a module's top level (a constant, a class body, a default, a decorator) runs
once, when the module is imported. A test can notice a change there only if the module
is imported in the test's process: otherwise the line never runs and nothing it makes
exists. Running alone (as the fork server runs the tests chosen for a mutant), a test's
process imports its test file, the `conftest.py` files above it, what those import, and
what the code the test runs imports. So a test may notice a top-level mutant of M only
if M is reachable, in the graph of imports below, from its test file, its conftests or a
module some line of which the test ran (the record). The graph over-approximates, so
that no test that may import M is left out:

- every `import` and `from ... import` anywhere in a module (a function's too, an `if
  TYPE_CHECKING:` one too), with the packages above each module (importing
  `reconciler.a.b` runs `reconciler/__init__.py` and `reconciler/a/__init__.py`);
- a string naming a module (`"reconciler.cli.plan"`, `"reconciler.x:Name"`, a
  `monkeypatch.setattr("tests.x.y.name", ...)` target) is an import of it by the module
  it is written in, for the tests; in the package, a module that imports by name
  (`importlib.import_module`) may import every module named by a string of a module
  connected to it (one it reaches, whose function may return the name, or one reaching
  it, which may pass the name), and an f-string `f"reconciler.resources.{name}"` names
  every module below its prefix (the table of kinds names the resources and exporters
  that way);
- a test-side module that imports by a name it computes, runs a module (`runpy`), or
  reads the package's source (`ast.parse`, `*.py`, `getsource`) may reach every module.

Tests that start child processes are another matter (see `Selection.tests_for`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "reconciler"
_IMPORTERS = {"import_module", "__import__"}
# The package's imports by name, and the modules each may import: checked against the
# tables they import from by tests/mutation/test_imports.py. An importer by name not
# listed here may import what any string of a module connected to it names (below).
BY_NAME = {
    "reconciler.cli.lazy": "reconciler.cli.",  # the commands' table, `COMMANDS`
    "reconciler.sandbox.start": "",  # the sandbox extra's libraries: none of the tree's
    "reconciler.sandbox": "reconciler.sandbox.",  # its lazy names, `_LAZY`
    "reconciler.sandbox.helpdesk": "reconciler.sandbox.helpdesk.",  # its `MODULES`
}
# A test-side module with one of these may import (or read) any module of the package.
_ANYTHING = re.compile(
    r"\b(import_module|__import__|runpy|pkgutil|ast\.parse|getsource\w*)\b|\*\.py"
)
_NAME = re.compile(r"[A-Za-z_][\w.]*(:[\w.]+)?")


def module_name(path: Path) -> str:
    """`reconciler/a/b.py` -> `reconciler.a.b`; a package's `__init__.py` -> the package."""
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


@dataclass
class Imports:
    """The graph: each module's name -> the names of the modules it may import."""

    edges: dict[str, set[str]]
    anything: set[str] = field(default_factory=set)  # test-side modules reaching all
    by_name: set[str] = field(default_factory=set)  # package modules importing by name
    _importers: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def scan(cls, root: Path, folders: Iterable[str] = (PACKAGE, "tests")) -> Imports:
        files = {
            module_name(p.relative_to(root)): p
            for folder in folders
            for p in sorted((root / folder).rglob("*.py"))
        }
        edges: dict[str, set[str]] = {}
        named: dict[str, set[str]] = {}  # in the package: the modules its strings name
        dynamic: list[str] = []  # package modules importing by name
        anything: set[str] = set()
        for name, path in files.items():
            source = path.read_text(encoding="utf-8")
            scan = _Scan(name, path.name == "__init__.py", files)
            scan.visit(ast.parse(source))
            edges[name] = scan.imports | set(_parents(name))
            if name.split(".")[0] == PACKAGE:
                named[name] = scan.named
                if scan.imports_by_name:
                    dynamic.append(name)
            else:
                edges[name] |= scan.named
                if _ANYTHING.search(source):
                    anything.add(name)
        for name in [d for d in dynamic if d in BY_NAME]:
            prefix = BY_NAME[name]
            edges[name] |= {m for m in files if prefix and m.startswith(prefix)}
        graph = cls(edges, anything, by_name=set(dynamic))
        dynamic = [d for d in dynamic if d not in BY_NAME]
        # A name reaches `import_module` in D from a module D imports (a value it
        # returns) or from one that imports D (an argument): from any module connected
        # to D, until no importer by name gains a module.
        while dynamic:
            grown = []
            for name in dynamic:
                connected = graph.reachable(name) | graph.importers(name)
                more = set().union(*(named.get(m, set()) for m in connected)) - edges[name]
                if more:
                    edges[name] |= more
                    grown.append(name)
            graph._importers.clear()
            dynamic = grown
        for name in anything:
            edges[name] |= set(files)
        return graph

    def reachable(self, module: str) -> set[str]:
        """Every module reachable from `module` (itself included)."""
        found, todo = {module}, [module]
        while todo:
            for name in self.edges.get(todo.pop(), ()):
                if name not in found:
                    found.add(name)
                    todo.append(name)
        return found

    def importers(self, module: str) -> set[str]:
        """Every module from which `module` is reachable (itself included)."""
        if module not in self._importers:
            reverse: dict[str, set[str]] = {}
            for name, targets in self.edges.items():
                for target in targets:
                    reverse.setdefault(target, set()).add(name)
            found, todo = {module}, [module]
            while todo:
                for name in reverse.get(todo.pop(), ()):
                    if name not in found:
                        found.add(name)
                        todo.append(name)
            self._importers[module] = found
        return self._importers[module]


class _Scan(ast.NodeVisitor):
    def __init__(self, name: str, package: bool, files: dict[str, Path]) -> None:
        self.name, self.package, self.files = name, package, files
        self.imports: set[str] = set()
        self.named: set[str] = set()
        self.imports_by_name = False

    def _add(self, name: str) -> None:
        if name in self.files:
            self.imports.add(name)
        self.imports |= {p for p in _parents(name) if p in self.files}

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            here = self.name.split(".")
            package = here if self.package else here[:-1]
            above = package[: len(package) - node.level + 1]
            base = ".".join([*above, *([base] if base else [])])
        self._add(base)
        for alias in node.names:
            self._add(f"{base}.{alias.name}")

    def visit_Call(self, node: ast.Call) -> None:
        called = node.func
        name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
        if name in _IMPORTERS:
            self.imports_by_name = True
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _NAME.fullmatch(node.value):
            dotted = node.value.split(":")[0].split(".")
            for n in range(len(dotted), 0, -1):  # the longest prefix naming a module
                if ".".join(dotted[:n]) in self.files:
                    self.named.add(".".join(dotted[:n]))
                    break

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        first = node.values[0] if node.values else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            prefix = first.value
            if "." in prefix and _NAME.fullmatch(prefix.rstrip(".")):
                self.named |= {m for m in self.files if m.startswith(prefix)}
        self.generic_visit(node)

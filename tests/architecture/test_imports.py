"""The import rules of docs/architecture.md (issue 20), measured on the source:

- The top level of `reconciler/` is the pipeline: at most five modules stay there
  (`__init__`, `__main__`, `errors`, `masking` and the `plan` facade); everything else is
  in a stage's package, and each package says in its `__init__.py` docstring what it takes
  and gives.
- Imports go down the pipeline: a package imports only packages of a lower stage
  (`STAGES`), never one of its own stage or above; the `plan` facade is imported by nobody
  inside the package.
- No import cycle between modules, counting every import a module makes: at the top,
  inside functions (lazy imports) and under `if TYPE_CHECKING:` alike.

An import of `reconciler.a.b` is an edge to the module `a/b.py` (or the package
`a/b/__init__.py`); `from reconciler.a import b` is an edge to `a/b.py` when that is a
module, else to `a/__init__.py`. The implicit import of a parent package's `__init__` is
not counted: it is how Python loads a submodule, not a dependency the code chose.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import reconciler

PACKAGE = Path(reconciler.__file__).parent
TOP_LEVEL_MODULES = {"__init__", "__main__", "errors", "masking", "plan"}

# The stages, bottom to top. A package may import from a lower stage only; the packages of
# one stage are independent of each other. The top-level modules are stages of their own.
STAGES: tuple[frozenset[str], ...] = tuple(
    frozenset(stage.split())
    for stage in (
        "__init__ errors",  # the version; the exception tree
        "masking",  # secrets out of every output, and the one writer of output files
        "manifest clients",  # the desired state; the services' HTTP clients
        "changes",  # the plan's data
        "applied",  # the applied mark (git refs), drift and pending labels of plans' dicts
        "resources",  # one module per kind: read live objects, plan changes
        "live",  # read the live state; coverage; look-alikes
        "render",  # plan -> text, Markdown, JSON
        "report",  # plan and problems -> CI annotations, summaries, HTML, JUnit, drift issue
        "planfile",  # a saved plan: written, read, validated
        "planning",  # the planner and the steps around it
        "applying",  # execute a plan safely
        "project",  # reconciler.yaml: environments, and plans over many of them
        "terminal",  # what a person sees while a command runs
        "export",  # live state -> manifests
        "sandbox",  # the local imitation of both services
        "cli plan",  # the command line; the planner's public facade
        "__main__",  # python -m reconciler
    )
)
RANK = {name: rank for rank, stage in enumerate(STAGES) for name in stage}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(["reconciler", *parts]) if parts != ["__init__"] else "reconciler"


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The module of the package `name` denotes, or the nearest enclosing one."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _package_of(module: str) -> str:
    """The stage a module belongs to: its first package, or its own top-level name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(module: str) -> set[str]:
    """Every reconciler module `module` imports, wherever the import statement stands."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a import b`: b's module if it is one, else the package a itself.
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        for name in names:
            if name == "reconciler" or name.startswith("reconciler."):
                target = _resolve(name)
                if target is not None and target != module:
                    found.add(target)
    return found


GRAPH: dict[str, set[str]] = {module: imports_of(module) for module in MODULES}


def test_the_top_level_holds_at_most_five_modules() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top <= TOP_LEVEL_MODULES, (
        f"move these into a stage's package: {sorted(top - TOP_LEVEL_MODULES)}"
    )


def test_every_package_is_a_stage_with_a_docstring() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert packages <= set(RANK), f"packages missing from STAGES: {sorted(packages - set(RANK))}"
    for name in packages:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
        assert doc and len(doc) > 80, (
            f"reconciler/{name}/__init__.py: say what the stage takes and gives"
        )


def test_imports_go_down_the_pipeline() -> None:
    upward: dict[str, list[str]] = defaultdict(list)
    for module, targets in GRAPH.items():
        here = _package_of(module)
        for target in targets:
            there = _package_of(target)
            if here != there and RANK[there] >= RANK[here]:
                upward[module].append(target)
    assert dict(upward) == {}, "imports up the pipeline or across one stage (see STAGES)"


def test_nothing_inside_imports_the_plan_facade() -> None:
    importers = sorted(m for m, targets in GRAPH.items() if "reconciler.plan" in targets)
    assert importers == []


def test_no_import_cycle_between_modules() -> None:
    try:
        tuple(TopologicalSorter(GRAPH).static_order())
    except CycleError as cycle:
        pytest.fail(f"import cycle: {' -> '.join(cycle.args[1])}")


def test_the_graph_sees_each_kind_of_import() -> None:
    # Guards the measure itself: a lazy import, a type-checking import, `from a import
    # module` and `from a import name` are all edges.
    assert "reconciler.changes.coverage" in GRAPH["reconciler.changes"]
    assert "reconciler.cli.extras" in GRAPH["reconciler.cli.options"]  # inside a function too
    assert "reconciler.planning.plan" in GRAPH["reconciler.plan"]
    assert "reconciler.clients.activity" in GRAPH["reconciler.clients.sender"]

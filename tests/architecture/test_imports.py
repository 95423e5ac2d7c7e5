"""The import rules of docs/architecture.md (issue 20), measured on the source:

- The top level of `reconciler/` is the pipeline: at most five modules stay there
  (`__init__`, `__main__`, `errors`, `masking` and the `plan` facade); everything else is
  in a stage's package, and each package says in its `__init__.py` docstring what it takes
  and gives.
- Imports go down the pipeline: a package imports only packages of a lower stage
  (`STAGES`), never one of its own stage or above; the `plan` facade is imported by nobody
  inside the package.
- A kind's package (`kinds/<kind>/`) spans the pipeline: each of its modules stands at the
  stage of its role (`KIND_ROLES`): its row and entry model with the manifest, its reader
  and planner with the resources, its converter with export's conversion. The table of
  kinds stands with the manifest, the register of kinds with the converters.
- The planner is pure: no module of `planning/` imports the clients or a module of I/O
  (network, files, processes) or opens a file; `run/` does that around it.
- `export` reads the live state and writes manifests without the planner: it imports
  nothing of `planning/`.
- Kinds are registered by imports the check sees: no module builds an import from a
  string (`importlib`, `__import__`) outside the few named in `IMPORTS_BY_NAME`.
- The sandbox stands beside the pipeline: only `cli/` imports it.
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
        # The desired state (with each kind's row and entry model, and the table of kinds);
        # the services' HTTP clients.
        "manifest kinds clients",
        "project",  # reconciler.yaml: the environments and what a run for one needs
        # Beside the pipeline, not in it: the local imitation of both services, which
        # speaks the clients' connection settings and only the CLI starts.
        "sandbox",
        "applied",  # the applied mark (git refs), drift and pending labels of plans' dicts
        "plans",  # the plan's data, its addresses and the saved plan file
        "resources",  # each kind's reader and planner, and what they share
        # Live objects as manifest entries: each kind's converter, export's pure conversion
        # pieces they share, and the register of kinds (each kind's resource and converter).
        "convert",
        "live",  # read the live state; coverage; look-alikes
        "render",  # plan -> text, Markdown, JSON
        "report",  # plan and problems -> CI annotations, summaries, HTML, JUnit, drift issue
        "planning",  # the pure planner
        "session",  # a session with the services: clients opened, authenticated, read, planned
        "applying",  # execute a plan safely
        "terminal",  # what a person sees while a command runs
        "export",  # live state -> manifests
        "run",  # one command run for one environment: typed flags in, output and exit code out
        "fleet",  # a command run for the environments of reconciler.yaml, one or several
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


# A module of a kind's package stands at the stage of its role (its last name); the
# package's `__init__` (the kind's entry model and row) and the modules below at the
# manifest's.
KIND_ROLES = {
    "reader": "resources",
    "planner": "resources",
    "export": "convert",
}
# Modules that stand at another stage than their package's.
MODULE_STAGES = {
    "reconciler.kinds.table": "manifest",
    "reconciler.kinds.register": "convert",
    "reconciler.export.entries": "convert",
    "reconciler.export.selection": "convert",
}


def _package_of(module: str) -> str:
    """The stage a module belongs to: its first package, or its own top-level name; a
    kind's module by its role (`KIND_ROLES`), and the few of `MODULE_STAGES`."""
    if module in MODULE_STAGES:
        return MODULE_STAGES[module]
    parts = module.split(".")
    if parts[1:2] == ["kinds"]:
        return KIND_ROLES.get(parts[-1], "manifest") if len(parts) > 3 else "manifest"
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
    assert "reconciler.plans.coverage" in GRAPH["reconciler.plans"]
    assert "reconciler.sandbox.start" in GRAPH["reconciler.cli.options"]  # inside a function too
    assert "reconciler.planning.plan" in GRAPH["reconciler.plan"]
    assert "reconciler.clients.activity" in GRAPH["reconciler.clients.sender"]


# What a pure stage may not import: the services' clients, and the standard library's and
# the dependencies' ways to reach the network, the file system or another process.
IO_MODULES = frozenset(
    {
        "reconciler.clients", "httpx", "httpcore", "asyncio", "socket", "ssl", "subprocess",
        "tempfile", "shutil", "os", "io", "pathlib", "urllib", "http",
    }
)  # fmt: skip
# Calls that read or write a file whatever module they come from.
IO_CALLS = frozenset(
    {
        "open", "read_text", "read_bytes", "write_text", "write_bytes", "mkdir", "unlink",
        "rename", "print", "input",
    }
)  # fmt: skip


def io_of(path: Path) -> list[str]:
    """The I/O a module's source shows: imports of IO_MODULES (or their submodules), calls
    named in IO_CALLS, and coroutines (nothing pure waits)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        found += [
            f"import {name}"
            for name in names
            if any(name == io or name.startswith(f"{io}.") for io in IO_MODULES)
        ]
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called in IO_CALLS:
                found.append(f"{called}() on line {node.lineno}")
        if isinstance(node, ast.AsyncFunctionDef):
            found.append(f"async def {node.name}")
    return found


def test_planning_does_no_io() -> None:
    impure = {
        module: io_of(MODULES[module])
        for module in MODULES
        if _package_of(module) == "planning" and io_of(MODULES[module])
    }
    assert impure == {}, "planning/ is pure: move the I/O to run/"


def test_the_io_check_sees_each_form(tmp_path: Path) -> None:
    source = tmp_path / "impure.py"
    source.write_text(
        "import subprocess\nfrom reconciler.clients.helpdesk import X\nfrom httpx import Y\n"
        "import os.path\nPath('a').read_text()\nopen('b')\nasync def f(): pass\n"
        "from reconciler.manifest import Z\nimport heapq\nsorted([])\n"
    )
    assert sorted(io_of(source)) == [
        "async def f",
        "import httpx",
        "import os.path",
        "import reconciler.clients.helpdesk",
        "import subprocess",
        "open() on line 6",
        "read_text() on line 5",
    ]


def test_export_does_not_import_the_planner() -> None:
    found = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if module.startswith(("reconciler.export.", "reconciler.kinds."))
        for target in targets
        if _package_of(target) == "planning"
    )
    assert found == []


# Imports by name the import check cannot see, each for a reason that is not a kind: the
# CLI imports a command's module only when it runs (the start-up figure of `validate`),
# and checks the sandbox extra's third-party libraries without importing the sandbox.
# The sandbox, beside the pipeline, loads its optional web server the same way.
IMPORTS_BY_NAME = frozenset({"reconciler.cli.group"})


def imports_by_name(path: Path) -> bool:
    """Whether a module imports `importlib` or calls `import_module` or `__import__`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == "importlib" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "importlib":
            return True
        if isinstance(node, ast.Name) and node.id == "__import__":
            return True
    return False


def test_kinds_are_registered_by_imports_the_check_sees() -> None:
    # A kind's row is imported by name in the table (kinds/table.py), its resource and
    # converter in the register (kinds/register.py), never built from an import string.
    found = {
        module
        for module, path in MODULES.items()
        if _package_of(module) != "sandbox" and imports_by_name(path)
    }
    assert found <= IMPORTS_BY_NAME, f"import by name: {sorted(found - IMPORTS_BY_NAME)}"


def test_the_import_by_name_check_sees_each_form(tmp_path: Path) -> None:
    forms = ["import importlib\n", "from importlib import import_module\n", "__import__('x')\n"]
    for number, text in enumerate(forms):
        source = tmp_path / f"by_name_{number}.py"
        source.write_text(text)
        assert imports_by_name(source), text
    plain = tmp_path / "plain.py"
    plain.write_text("from reconciler.kinds.users.planner import UsersResource\n")
    assert not imports_by_name(plain)


def test_only_the_cli_imports_the_sandbox() -> None:
    importers = sorted(
        module
        for module, targets in GRAPH.items()
        if _package_of(module) not in {"sandbox", "cli"}
        and any(_package_of(t) == "sandbox" for t in targets)
    )
    assert importers == []


def test_the_table_and_the_register_import_each_kind_by_name() -> None:
    # The two lists that name every kind: the rows (kinds/table.py) and each kind's
    # resource and converter (kinds/register.py), each an import the check sees.
    kinds = sorted(p.parent.name for p in (PACKAGE / "kinds").glob("*/__init__.py"))
    assert "users" in kinds
    for kind in kinds:
        if kind != "custom_fields":
            assert f"reconciler.kinds.{kind}" in GRAPH["reconciler.kinds.table"], kind
            assert f"reconciler.kinds.{kind}.export" in GRAPH["reconciler.kinds.register"], kind
        assert f"reconciler.kinds.{kind}.planner" in GRAPH["reconciler.kinds.register"], kind

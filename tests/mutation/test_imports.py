"""Which tests may notice a mutant of a module's top level: those whose process may import
the module (tests/mutation/imports.py), and the tables the package imports by name from
are what the graph says they are."""

from __future__ import annotations

from pathlib import Path

from reconciler.cli import COMMANDS
from reconciler.manifest.kinds import KINDS
from reconciler.sandbox import _LAZY
from reconciler.sandbox.helpdesk import MODULES
from reconciler.sandbox.start import SANDBOX_MODULES
from tests.mutation.contexts import IMPORT
from tests.mutation.imports import BY_NAME, Imports, module_name
from tests.mutation.mutants import mutants_of
from tests.mutation.run import ROOT
from tests.mutation.workers import Selection

TREE = {
    "reconciler/__init__.py": "",
    "reconciler/limits.py": "LIMIT = 3\n",
    "reconciler/lazy.py": "def limit(n: int = 0) -> int:\n    from reconciler.limits import LIMIT\n"
    "    return LIMIT + n\n",
    "reconciler/table.py": 'MODULES = ["reconciler.limits:LIMIT"]\n',
    "reconciler/loader.py": "import importlib\n\nfrom reconciler.table import MODULES\n\n\n"
    "def load(n: int) -> object:\n    return importlib.import_module(MODULES[n])\n",
    "reconciler/kinds/__init__.py": "",
    "reconciler/kinds/users.py": "from . import base\n",
    "reconciler/kinds/base.py": "NAME = 'x'\n",
    "reconciler/other.py": "X = 1\n",
    "tests/__init__.py": "",
    "tests/conftest.py": "",
    "tests/a/__init__.py": "",
    "tests/a/conftest.py": "from reconciler.other import X\n",
    "tests/a/test_lazy.py": "from reconciler.lazy import limit\n",
    "tests/a/test_loader.py": "from reconciler.loader import load\n",
    "tests/b/test_users.py": "import reconciler.kinds.users\n",
    "tests/b/test_patch.py": 'TARGET = "reconciler.other.X"\n',
    "tests/b/test_every.py": 'import importlib\n\nNAMES = "*.py"\n',
    "tests/b/test_nothing.py": "import json\n",
}


def _graph(root: Path) -> Imports:
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Imports.scan(root)


def test_a_module_is_imported_by_any_import_a_string_naming_it_or_an_import_by_name(
    tmp_path: Path,
) -> None:
    graph = _graph(tmp_path)
    tests = lambda module: {m for m in graph.importers(module) if m.startswith("tests.")}  # noqa: E731
    # A function's import; a name imported by `importlib` from a table of names; the
    # conftest of a test's folder (tests/a); a test reading the source of every module.
    assert tests("reconciler.limits") == {
        "tests.a.test_lazy",
        "tests.a.test_loader",
        "tests.b.test_every",
    }
    assert graph.by_name == {"reconciler.loader"}
    # `from . import base` in a package; a package's __init__ runs for its modules.
    assert tests("reconciler.kinds.base") == {"tests.b.test_users", "tests.b.test_every"}
    assert "tests.b.test_users" in tests("reconciler.kinds")
    assert "tests.b.test_users" in tests("reconciler")
    # A string naming a module's attribute (monkeypatch.setattr's target) imports it.
    assert tests("reconciler.other") == {
        "tests.a.conftest",
        "tests.b.test_patch",
        "tests.b.test_every",
    }
    assert "tests.b.test_nothing" not in tests("reconciler")


def test_a_top_level_mutant_runs_only_the_tests_whose_process_may_import_its_module(
    tmp_path: Path,
) -> None:
    graph = _graph(tmp_path)
    module = Path("reconciler/limits.py")
    (mutant,) = [m for m in mutants_of(module, TREE[str(module)].encode()) if m.what == "`4`"]
    durations = {
        "tests/a/test_lazy.py::test_it": 0.3,  # imports `lazy`, which imports it in a call
        "tests/b/test_nothing.py::test_it": 0.1,  # imports nothing of the tree
        "tests/b/test_every.py::test_it": 5.0,  # reads every module
        "tests/b/test_users.py::test_it": 0.2,  # runs a line of `loader`, which imports it
        "tests/b/test_users.py::test_failed": 0.0,  # failed under the record
        "tests/b/test_patch.py::test_it": 1.0,  # runs `limits` (its line 1 below)
    }
    lines = {
        module: {1: {IMPORT, "tests/b/test_patch.py::test_it"}},
        Path("reconciler/loader.py"): {7: {"tests/b/test_users.py::test_it"}},
    }
    selection = Selection(lines, durations, failed={"tests/b/test_users.py::test_failed"})
    selection.imports = graph
    assert selection.tests_for(mutant) == [
        "tests/b/test_patch.py::test_it",  # the tests that run the module first
        "tests/b/test_users.py::test_it",
        "tests/a/test_lazy.py::test_it",
        "tests/b/test_every.py::test_it",
    ]
    selection.imports = None  # without the graph: every test that did not fail
    assert len(selection.tests_for(mutant)) == 5


def test_the_package_imports_by_name_only_from_the_tables_the_graph_knows() -> None:
    """BY_NAME says which modules each import by name may import: each is checked here
    against the table it imports from, and a new import by name fails this test until
    BY_NAME says what it imports."""
    graph = Imports.scan(ROOT)
    assert graph.by_name == set(BY_NAME)
    for kind in KINDS:
        assert kind.resource.startswith(BY_NAME["reconciler.resources"])
        assert kind.exporter.startswith(BY_NAME["reconciler.export.run"])
    assert all(c.module.startswith(BY_NAME["reconciler.cli.lazy"]) for c in COMMANDS.values())
    assert all(m.startswith(BY_NAME["reconciler.sandbox"]) for m in _LAZY.values())
    assert all("." not in m for m in MODULES)  # reconciler.sandbox.helpdesk.NAME
    libraries = {name for names in SANDBOX_MODULES for name in names}
    assert not {module_name(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")} & libraries
    # What the tables name is in the graph: a kind's resource and exporter are imported
    # by a module that imports the table of kinds' users.
    users = module_name(Path("reconciler/resources/users.py"))
    assert "reconciler.resources" in graph.importers(users)
    assert "tests.planning.test_cases" in graph.importers(users)


def test_a_top_level_line_of_a_module_imported_during_a_test_is_judged_as_one() -> None:
    """The CLI imports a command's module when it runs the command, the export a kind's
    exporter when it converts the kind: such a module's top level is recorded under the
    test that imported it first (in its own process or in its children), not at import.
    It is judged by those, then by every in-process test whose process may import it."""
    module = Path("reconciler/lazy.py")
    found = mutants_of(module, TREE[str(module)].encode())
    (in_body,) = [m for m in found if m.what == "`return None`"]
    assert not in_body.at_import
    assert all(m.at_import for m in mutants_of(Path("x.py"), b"A = 1 + 2\nB = [A]\n"))
    default = b"@cache(3)\ndef limit(n: int = 3) -> int:\n    return n\n"
    at_import = sorted(m.line for m in mutants_of(module, default) if m.at_import)
    assert at_import == [1, 2]  # the decorator, the default; not the body
    (at_import,) = [m for m in found if m.line == 1 and m.what == "`1`"]
    first, cli = "tests/a/test_lazy.py::test_first", "tests/e2e/test_cli.py::test_x"
    durations = {
        first: 1.0,
        cli: 0.5,
        "tests/a/test_lazy.py::test_later": 0.1,  # imports the module, ran none of it
        "tests/b/test_nothing.py::test_it": 0.1,
    }
    lines = {module: {1: {first, cli}, 3: {first}}}
    selection = Selection(lines, durations, spawning={cli})
    selection.imports = Imports(
        {"tests.a.test_lazy": {"reconciler.lazy"}, "tests.b.test_nothing": set()}
    )
    assert selection.tests_for(at_import) == [cli, first, "tests/a/test_lazy.py::test_later"]
    assert selection.tests_for(in_body) == [first]

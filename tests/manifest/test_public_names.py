"""The public names of the manifest's modules that list them, and of the table of kinds
(what the other packages and a script import), are what `__all__` says, and all of it:
every listed name exists, every public name the module defines is listed, and `from ...
import *` gives each of them. The `reconciler.manifest` package hands no name on (a kind's
model imports the manifest's modules, and the package's imports would reach the table of
kinds, which imports the models, first)."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import types
from typing import TypeVar

import pytest

MODULES = ["reconciler.manifest.kinds", "reconciler.manifest.renames", "reconciler.kinds.table"]


def public_names(name: str) -> set[str]:
    """The public names `name` binds at its top level: what it defines, and for a package
    (its `__init__`) what it imports too. Type variables are for annotations only."""
    module = importlib.import_module(name)
    tree = ast.parse(inspect.getsource(module))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom) and module.__name__ == module.__package__:
            found.update(alias.asname or alias.name for alias in node.names)
    found.discard("annotations")  # `from __future__ import annotations`
    return {
        n for n in found if not n.startswith("_") and not isinstance(getattr(module, n), TypeVar)
    }


# mutmut's copy of a module (`mutants/`, docs/mutation-testing.md) defines each function's
# mutants beside it: the source read here is then not the module's own.
@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="reads mutmut's copy")
@pytest.mark.parametrize("name", MODULES)
def test_all_lists_every_public_name_and_nothing_else(name: str) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__) == sorted(public_names(name))
    assert len(set(module.__all__)) == len(module.__all__)


@pytest.mark.parametrize("name", MODULES)
def test_a_star_import_gives_each_listed_name(name: str) -> None:
    module = importlib.import_module(name)
    names: dict[str, object] = {}
    exec(f"from {name} import *", names)
    for listed in module.__all__:
        assert names[listed] is getattr(module, listed), listed


def test_the_manifest_package_hands_on_no_name_but_its_modules() -> None:
    module = importlib.import_module("reconciler.manifest")
    public = {
        n
        for n, value in vars(module).items()
        if not n.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public - {"annotations"} == set()
    assert not hasattr(module, "__all__")

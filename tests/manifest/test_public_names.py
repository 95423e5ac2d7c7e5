"""The public names of `reconciler.manifest` and of its modules that list them (what the
other packages and a script import) are what `__all__` says, and all of it: every listed
name exists, every public name the module defines (or, for the package, imports) is
listed, and `from ... import *` gives each of them."""

from __future__ import annotations

import ast
import importlib
import inspect
from typing import TypeVar

import pytest

MODULES = ["reconciler.manifest", "reconciler.manifest.kinds", "reconciler.manifest.renames"]


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

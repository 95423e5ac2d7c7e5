"""What each module's `__all__` promises an embedder (`from reconciler.render import *`):
every name it lists exists, and a star import gives exactly those names. Data-driven over
every module of the package that has an `__all__` (outside the sandbox and the CLI)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "reconciler"


def _modules_with_all() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "sandbox" in parts or "cli" in parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            for node in tree.body
        ):
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found.append(name)
    return found


MODULES = _modules_with_all()


def _only_names(module: str) -> bool:
    """Whether the module's top level holds no function or class (only imports and names)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    return not any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for node in tree.body
    )


def _listed(module: str) -> list[str]:
    """The names `__all__` lists, as written in the source (not as imported)."""
    source = importlib.util.find_spec(module)
    assert source is not None and source.origin is not None
    tree = ast.parse(Path(source.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return value
    raise AssertionError(f"{module} has no __all__")


def test_the_modules_with_public_names_are_found() -> None:
    for expected in [
        "reconciler",
        "reconciler.plan",
        "reconciler.kinds.table",
        "reconciler.render",
    ]:
        assert expected in MODULES


@pytest.mark.parametrize("module", MODULES)
def test_a_star_import_gives_exactly_the_names_listed(module: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {module} import *", namespace)
    namespace.pop("__builtins__", None)
    listed = _listed(module)
    assert sorted(namespace) == sorted(listed)
    imported = importlib.import_module(module)
    for name in listed:
        assert namespace[name] is getattr(imported, name)


@pytest.mark.parametrize("module", [m for m in MODULES if _only_names(m)])
def test_a_module_of_names_only_runs_again_to_the_same_names(module: str) -> None:
    """A module that only gathers names (a package's `__init__`, the `reconciler.plan`
    facade) run again from its source, apart from the one imported: the same names."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    code = compile(Path(spec.origin).read_text(encoding="utf-8"), spec.origin, "exec")
    fresh: dict[str, object] = {"__name__": f"{module}.__again__"}
    exec(code, fresh)
    imported = importlib.import_module(module)
    assert fresh["__all__"] == _listed(module)
    for name in _listed(module):
        assert fresh[name] == getattr(imported, name)

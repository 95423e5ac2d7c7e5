"""The public surface of `reconciler.render` (what the CLI and a script import) is what
`__all__` lists, and all of it: a star import gives every name. The export package hands
no name on: its modules are its surface (the kinds' converters import its helpers, and
the package's own imports would reach the register of kinds first)."""

from __future__ import annotations

import types

import pytest

import reconciler.export as export
import reconciler.render as render
import reconciler.render.markdown as markdown


def test_the_export_package_hands_on_no_name_but_its_modules() -> None:
    public = {
        n
        for n, value in vars(export).items()
        if not n.startswith("_") and not isinstance(value, types.ModuleType)
    }
    public.discard("annotations")
    assert public == set()
    assert not hasattr(export, "__all__")


@pytest.mark.parametrize("package", [render, markdown])
def test_a_star_import_gives_exactly_the_listed_names_as_the_package_holds_them(
    package: types.ModuleType,
) -> None:
    listed = package.__all__
    assert len(set(listed)) == len(listed)
    names: dict[str, object] = {}
    exec(f"from {package.__name__} import *", names)
    names.pop("__builtins__")
    assert set(names) == set(listed)
    assert all(names[name] is getattr(package, name) for name in listed)


def test_the_packages_list_their_own_public_names() -> None:
    assert set(render.__all__) == {
        "format_diagnostics",
        "format_json",
        "format_markdown",
        "format_text",
        "markdown_parts",
    }
    assert set(markdown.__all__) == {
        "DEFAULT_LIMIT",
        "diff_block",
        "format_markdown",
        "markdown_parts",
    }

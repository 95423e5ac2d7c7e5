"""The public surface of `reconciler.export` and `reconciler.render` (what the CLI and a
script import) is what `__all__` lists, and all of it: a star import gives every name."""

from __future__ import annotations

import types

import pytest

import reconciler.export as export
import reconciler.render as render
import reconciler.render.markdown as markdown


@pytest.mark.parametrize("package", [export, render, markdown])
def test_every_listed_name_exists_and_every_public_name_is_listed(
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
    public = {
        n
        for n, value in vars(export).items()
        if not n.startswith("_") and not isinstance(value, types.ModuleType)
    }
    public.discard("annotations")
    assert public == set(export.__all__)
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

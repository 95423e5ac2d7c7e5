"""The public surface of `reconciler.render` is what `__all__` says, all of it callable."""

from __future__ import annotations

import reconciler.render as render


def test_exports_are_complete_and_real() -> None:
    assert sorted(render.__all__) == [
        "format_diagnostics",
        "format_json",
        "format_markdown",
        "format_text",
        "markdown_parts",
    ]
    assert all(callable(getattr(render, name)) for name in render.__all__)
    public = {n for n in vars(render) if not n.startswith("_") and callable(getattr(render, n))}
    assert public == set(render.__all__)

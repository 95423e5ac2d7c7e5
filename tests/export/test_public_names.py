"""The public surface of `reconciler.export` is what `__all__` lists, and all of it."""

from __future__ import annotations

import reconciler.export as export


def test_every_listed_name_exists_and_every_public_name_is_listed() -> None:
    assert all(hasattr(export, name) for name in export.__all__)
    modules = {
        "assets",
        "clone",
        "entries",
        "output",
        "people",
        "result",
        "run",
        "selection",
        "snapshot",
        "values",
        "yamlout",
    }
    public = {n for n in vars(export) if not n.startswith("_") and n not in modules}
    public.discard("annotations")
    assert public == set(export.__all__)

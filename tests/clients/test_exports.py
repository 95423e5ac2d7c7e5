"""The public surface of `reconciler.clients` is exactly its `__all__`."""

from __future__ import annotations

import types

import reconciler.clients as clients


def test_all_resolves_without_duplicates() -> None:
    assert len(set(clients.__all__)) == len(clients.__all__)
    for name in clients.__all__:
        assert getattr(clients, name) is not None


def test_every_public_name_is_exported() -> None:
    public = {
        name
        for name, value in vars(clients).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"
    }
    assert public == set(clients.__all__)

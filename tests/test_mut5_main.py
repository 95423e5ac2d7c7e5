"""Which process `python -m reconciler` ends quickly (reconciler/__main__.py): only the one
started as the program (`python -m reconciler`, `__main__` being this module), not one in
which another program runs the module (a test's `runpy` without `alter_sys`, pytest)."""

from __future__ import annotations

import sys
import types
from importlib.machinery import ModuleSpec

import pytest

from reconciler.__main__ import _is_program


@pytest.mark.parametrize(
    ("spec", "program"),
    [
        (ModuleSpec("reconciler.__main__", None), True),  # python -m reconciler
        (ModuleSpec("reconciler", None), False),
        (ModuleSpec("pytest.__main__", None), False),  # python -m pytest
        (None, False),  # python script.py, python -c
    ],
)
def test_only_the_process_started_as_the_program_ends_quickly(
    spec: ModuleSpec | None, program: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = types.ModuleType("__main__")
    main.__spec__ = spec
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert _is_program() is program


def test_no_main_module_is_not_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "__main__")
    assert _is_program() is False

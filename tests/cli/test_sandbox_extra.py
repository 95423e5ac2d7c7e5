"""`--sandbox` and `sandbox serve` need the `sandbox` extra: they refuse in one line naming
what is missing and the install command, and accept python-multipart under either of its
import names (`python_multipart`, or `multipart` before 0.0.13, which pyproject.toml still
allows)."""

from __future__ import annotations

import sys
import types

import pytest

from reconciler.errors import UsageError
from reconciler.sandbox.start import require_sandbox_extra


def test_python_multipart_under_its_old_import_name_is_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "python_multipart", None)  # import fails
    monkeypatch.setitem(sys.modules, "multipart", types.ModuleType("multipart"))
    require_sandbox_extra()


def test_without_it_the_sandbox_is_refused_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "python_multipart", None)
    monkeypatch.setitem(sys.modules, "multipart", None)
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(UsageError) as refused:
        require_sandbox_extra()
    assert str(refused.value) == (
        "the sandbox needs the 'sandbox' extra (uvicorn, python_multipart not installed): "
        "pip install 'helpdesk-reconciler[sandbox]'"
    )

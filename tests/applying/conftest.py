"""The end-to-end fixtures of tests/e2e (a sandbox process, a copy of examples/acme),
shared with the end-to-end tests of apply's safety rules here."""

from __future__ import annotations

from tests.e2e.conftest import serve
from tests.e2e.test_apply_cli import start, workdir

__all__ = ["serve", "start", "workdir"]

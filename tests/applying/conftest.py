"""The end-to-end fixtures of tests/e2e (a sandbox process, a copy of examples/acme),
shared with the end-to-end tests of apply's safety rules here; and a local time zone far
from UTC, for the times an apply records."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import serve
from tests.e2e.test_apply_cli import start, workdir

__all__ = ["local_time_far_from_utc", "serve", "start", "workdir"]


@pytest.fixture
def local_time_far_from_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time 14 hours ahead of UTC: no stamp in local time can pass for UTC."""
    monkeypatch.setenv("TZ", "UTC-14")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()

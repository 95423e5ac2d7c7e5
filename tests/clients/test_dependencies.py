"""What the clients' speed depends on being installed."""

from __future__ import annotations

import asyncio
import sys
from importlib.machinery import ModuleSpec
from typing import Any

from httpcore._synchronization import current_async_library


class _SearchSpy:
    """A meta path finder that finds nothing and records what was searched for."""

    def __init__(self) -> None:
        self.searched: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        self.searched.append(name)
        return None


def test_httpcore_tells_the_event_loop_without_an_import_search() -> None:
    # httpcore imports sniffio on every request (several times) to tell asyncio from trio;
    # when sniffio is missing, each of those imports fails after a search of sys.path,
    # about a millisecond per request: most of apply's CPU time before (issue 13).
    async def library() -> str:
        return current_async_library()

    spy = _SearchSpy()
    sys.meta_path.insert(0, spy)
    try:
        assert asyncio.run(library()) == "asyncio"
    finally:
        sys.meta_path.remove(spy)
    assert spy.searched == [], "sniffio is missing: pip install -e '.[dev]' (pyproject.toml)"

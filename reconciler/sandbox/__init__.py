"""A local server of both APIs (DESIGN §6), used by the tests and the quick start.

`create_app(state)` builds the ASGI application; `SandboxState` holds the store, the
configuration, the limiters and the request log; `SandboxServer` runs it under uvicorn on
a loopback port (in a thread) for tests and for `--sandbox`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reconciler.sandbox.config import QUIRKS, FaultConfig, SandboxConfig

if TYPE_CHECKING:
    from reconciler.sandbox.app import create_app
    from reconciler.sandbox.server import SandboxServer
    from reconciler.sandbox.state import SandboxState

# Imported when first used: the web server (the `sandbox` extra) is not needed to read the
# quirks and seeds that the CLI's --help lists (config.py), on a base install.
_LAZY = {
    "create_app": "reconciler.sandbox.app",
    "SandboxServer": "reconciler.sandbox.server",
    "SandboxState": "reconciler.sandbox.state",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["QUIRKS", "FaultConfig", "SandboxConfig", "SandboxServer", "SandboxState", "create_app"]

"""A local server of both APIs (DESIGN §6), used by the tests and the quick start.

`create_app(state)` builds the ASGI application; `SandboxState` holds the store, the
configuration, the limiters and the request log; `SandboxServer` runs it under uvicorn on
a loopback port (in a thread) for tests and for `--sandbox`.
"""

from __future__ import annotations

from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import QUIRKS, FaultConfig, SandboxConfig
from reconciler.sandbox.server import SandboxServer
from reconciler.sandbox.state import SandboxState

__all__ = ["QUIRKS", "FaultConfig", "SandboxConfig", "SandboxServer", "SandboxState", "create_app"]

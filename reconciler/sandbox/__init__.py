"""A local server of both APIs (DESIGN §6), used by the tests and the quick start.

`app.create_app(state)` builds the ASGI application; `state.SandboxState` holds the store,
the configuration, the limiters and the request log; `server.SandboxServer` runs it under
uvicorn on a loopback port (in a thread) for tests and for `--sandbox`. This package
imports none of them: the web server (the `sandbox` extra) is not needed to read the
quirks and seeds that the CLI's --help lists (`config.py`), on a base install.
"""

"""A synchronous httpx transport that calls an ASGI app in-process.

httpx ships `ASGITransport` for async clients only; this wraps it so that a plain
`httpx.Client(transport=InProcessTransport(app))` talks to the sandbox without a socket.
Each request runs on a fresh event loop, so it must not be used from async code.
"""

from __future__ import annotations

import asyncio

import httpx
from starlette.types import ASGIApp


class InProcessTransport(httpx.BaseTransport):
    def __init__(self, app: ASGIApp, client: tuple[str, int] = ("127.0.0.1", 50000)) -> None:
        self._inner = httpx.ASGITransport(app=app, client=client)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return asyncio.run(self._send(request))

    async def _send(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        # Raw bytes: the outer client decodes a gzip answer itself.
        content = b"".join([chunk async for chunk in response.aiter_raw()])
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            content=content,
            extensions=response.extensions,
        )

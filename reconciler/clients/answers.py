"""Receiving one answer whole, bounded in time and in size.

httpx's timeouts bound each read, not the answer: a server that sends a byte a second, its
head slowly, or `100 Continue` forever is never timed out by them. So each attempt runs
under one deadline (`--timeout`, the whole answer: connecting, the head and the body),
whose expiry is an `httpx.ReadTimeout` the retry policy treats as any other timeout.

The body is streamed and its decoded bytes counted: past `MAX_ANSWER_BYTES` reading stops
(a gzip bomb is decompressed no further than one chunk past the bound) and the answer is
refused, `AnswerTooLarge`, naming the endpoint and the limit. The largest answers the APIs
give, a page of 500 users or a listing of every company, are a few MiB."""

from __future__ import annotations

import asyncio

import httpx

MAX_ANSWER_BYTES = 64 * 1024 * 1024  # 64 MiB, decoded
_DECODED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class AnswerTooLarge(Exception):
    """An answer's decoded body passed `MAX_ANSWER_BYTES`; nothing of it is kept."""


async def receive(
    http: httpx.AsyncClient, request: httpx.Request, *, deadline: float | None
) -> httpx.Response:
    """The answer to `request`, its body read and decoded, within `deadline` seconds
    (raises `httpx.ReadTimeout`) and `MAX_ANSWER_BYTES` (raises `AnswerTooLarge`)."""
    try:
        async with asyncio.timeout(deadline):
            response = await http.send(request, stream=True)
            try:
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_ANSWER_BYTES:
                        raise AnswerTooLarge()
                    chunks.append(chunk)
            finally:
                await response.aclose()
    except TimeoutError:
        raise httpx.ReadTimeout(f"no whole answer within {deadline:g} s", request=request) from None
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _DECODED]
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=b"".join(chunks),
        request=request,
        extensions=response.extensions,
    )

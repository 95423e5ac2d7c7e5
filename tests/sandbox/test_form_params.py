"""The sandbox reads a small url-encoded form itself (params.py), not through starlette's
form parser: what it reads must be exactly what starlette reads, for any body."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.requests import Request

from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.params import Params

FORM = "application/x-www-form-urlencoded"


def request(body: bytes, content_type: str = FORM) -> Request:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/helpdesk/api/Company",
        "query_string": b"",
        "headers": [(b"content-type", content_type.encode())],
    }
    return Request(scope, receive)


def read(body: bytes, content_type: str = FORM) -> list[tuple[str, Any]]:
    return asyncio.run(Params.from_request(request(body, content_type))).items()


def starlette_reads(body: bytes, content_type: str = FORM) -> list[tuple[str, Any]]:
    async def parse() -> list[tuple[str, Any]]:
        form = await request(body, content_type).form()
        return Params(list(form.multi_items())).items()

    return asyncio.run(parse())


# Bytes that matter to the form syntax, a few others, and non-ASCII UTF-8.
PIECES = st.sampled_from(
    [b"&", b"=", b";", b"+", b"%", b"%2", b"%20", b"%26", b"%3D", b"%C3%A9", b"%zz", b"a",
     b"Name", b"name", b"x y", b"\xc3\xa9", b"\xff", b"\r\n", b" ", b"0", b"&&", b"=="]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=20).map(b"".join))
def test_any_body_reads_as_starlette_reads_it(body: bytes) -> None:
    assert read(body) == starlette_reads(body)


def test_the_content_type_may_carry_options_and_any_case() -> None:
    body = b"Name=Acme+Corp&notes=caf%C3%A9&empty="
    for content_type in (f"{FORM}; charset=UTF-8", "Application/X-WWW-Form-Urlencoded"):
        assert read(body, content_type) == starlette_reads(body, content_type)
    assert read(body, FORM) == [("name", "Acme Corp"), ("notes", "café"), ("empty", "")]


def test_a_large_form_meets_starlettes_limits() -> None:
    body = b"&".join(b"f%d=%s" % (n, b"v" * 100) for n in range(900))  # over 64 KiB
    assert len(body) > 64 * 1024
    assert read(body) == starlette_reads(body)
    with pytest.raises(HttpError, match="Too many fields"):
        read(b"&".join(b"f%d=1" % n for n in range(1001)))

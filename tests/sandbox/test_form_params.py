"""How the sandbox reads url-encoded form parameters (params.py): names in lower case, every
value kept, whatever the content type's options and case, within the form parser's limits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
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


def test_the_content_type_may_carry_options_and_any_case() -> None:
    body = b"Name=Acme+Corp&notes=caf%C3%A9&empty=&notes=again"
    expected = [("name", "Acme Corp"), ("notes", "café"), ("notes", "again"), ("empty", "")]
    for content_type in (FORM, f"{FORM}; charset=UTF-8", "Application/X-WWW-Form-Urlencoded"):
        assert read(body, content_type) == expected


def test_a_large_form_is_read_whole_within_the_form_parsers_limits() -> None:
    body = b"&".join(b"f%d=%s" % (n, b"v" * 100) for n in range(900))  # over 64 KiB
    assert read(body) == [(f"f{n}", "v" * 100) for n in range(900)]
    with pytest.raises(HttpError) as refused:
        read(b"&".join(b"f%d=1" % n for n in range(1001)))
    # After the prefix, the form parser's own words (starlette's, which may change).
    assert refused.value.status == 400
    assert refused.value.message.startswith("Malformed form body: ")

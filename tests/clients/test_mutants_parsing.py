"""Answers in the shapes servers really send, as the client hands them on: JSON in a
charset other than UTF-8 is read in that charset (an accented name intact), an empty or
broken body labelled JSON in such a charset is nothing or its text, and a text answer
that only starts like JSON stays text, and one that is JSON is read as JSON whatever its
label; NaN is never taken for a number."""

from __future__ import annotations

from typing import Any

import pytest

from tests.clients.test_requests import Recorder, mock_client

pytestmark = pytest.mark.anyio

LATIN = "application/json; charset=iso-8859-1"


@pytest.mark.parametrize(
    ("response", "parsed"),
    [
        ({"content": '{"name": "Société"}'.encode("latin-1"), "headers": {"content-type": LATIN}},
         {"name": "Société"}),
        ({"content": b"  ", "headers": {"content-type": LATIN}}, None),
        ({"content": b"{broken", "headers": {"content-type": LATIN}}, "{broken"),
        ({"content": b"[not json] said the proxy", "headers": {"content-type": "text/plain"}},
         "[not json] said the proxy"),
        ({"content": b'{"id": 4}', "headers": {"content-type": "text/html"}}, {"id": 4}),
        # NaN is no JSON (Python's reader would take it): the answer stays text.
        ({"content": b'{"id": NaN}', "headers": {"content-type": LATIN}}, '{"id": NaN}'),
        ({"content": b'{"id": NaN}', "headers": {"content-type": "text/html"}}, '{"id": NaN}'),
    ],
    ids=["latin-1", "latin-1-empty", "latin-1-broken", "text-like-json", "object-as-html",
         "latin-1-nan", "html-nan"],
)  # fmt: skip
async def test_answers_in_other_charsets_and_text_like_json(
    response: dict[str, Any], parsed: Any
) -> None:
    recorder = Recorder(status_code=200, **response)
    async with mock_client("http://h", recorder) as client:
        assert await client.request("GET", "Anything", write=False) == parsed

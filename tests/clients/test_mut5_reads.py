"""Each read of the helpdesk client (clients/helpdesk.py) as it goes on the wire: the whole
request line of every call, after the authorization, for each kind the plan reads."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from reconciler.clients import HelpdeskClient
from tests.clients.test_requests import Recorder, mock_client

pytestmark = pytest.mark.anyio

Read = Callable[[HelpdeskClient], Awaitable[Any]]


@pytest.mark.parametrize(
    ("read", "sent"),
    [
        (lambda hd: hd.companies(), ["GET /api/Companies"]),
        (lambda hd: hd.departments(), ["GET /api/Departments"]),
        (lambda hd: hd.categories(), ["GET /api/categories"]),
        (lambda hd: hd.techs_for_category(7), ["GET /api/TechsForCategory?id=7"]),
        (lambda hd: hd.custom_fields(4), ["GET /api/CustomFields?type=4"]),
        (lambda hd: hd.company_custom_fields(3), ["GET /api/CompanyCustomFields?id=3"]),
        (lambda hd: hd.user_custom_fields(5), ["GET /api/UserCustomFields?id=5"]),
        (lambda hd: hd.users(page_size=2), ["GET /api/Users?count=2&page=1"]),
        (lambda hd: hd.assets(True), ["GET /api/Assets?page=1&includeDisabled=true"]),
        (lambda hd: hd.assets(False), ["GET /api/Assets?page=1&includeDisabled=false"]),
    ],
)  # fmt: skip
async def test_each_list_read_is_one_request_line(read: Read, sent: list[str]) -> None:
    recorder = Recorder(answer=[])
    async with mock_client("https://acme.example.com/helpdesk", recorder) as hd:
        assert await read(hd) == []
    lines = [f"{r.method} {r.url.raw_path.decode()}" for r in recorder.requests]
    assert lines == ["POST /helpdesk/api/Authorization"] + [
        line.replace(" /api/", " /helpdesk/api/") for line in sent
    ]


async def test_one_user_and_one_rule_are_read_by_their_ids() -> None:
    recorder = Recorder(answer={"UserID": 5, "Email": "ann@example.com"})
    async with mock_client("https://acme.example.com", recorder) as hd:
        assert await hd.user(5) == {"UserID": 5, "Email": "ann@example.com"}
    rule = (
        "<AutomationRule><RuleID>9</RuleID><Name>Route</Name>"
        "<Enabled>true</Enabled></AutomationRule>"
    )
    xml = Recorder(status_code=200, text=rule)
    async with mock_client("https://acme.example.com", xml) as hd:
        assert await hd.rule_xml(9) == rule
        found = await hd.rule(9)
    assert (found.id, found.name, found.enabled) == (9, "Route", True)
    lines = [f"{r.method} {r.url.raw_path.decode()}" for r in recorder.requests + xml.requests]
    assert lines == [
        "POST /api/Authorization",
        "GET /api/User?userId=5",
        "POST /api/Authorization",
        "GET /api/Rule/9",
        "GET /api/Rule/9",
    ]

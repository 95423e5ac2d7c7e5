"""Reading answers: created ids in every shape, rule documents, error texts."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from reconciler.clients import RuleInfo, created_id, parse_rule
from reconciler.clients.parsing import error_message
from reconciler.errors import ApiError


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"id": 5}, 5),
        ({"Id": 6}, 6),
        ({"userId": 7}, 7),
        ({"UserID": 8, "Username": "x"}, 8),
        ({"ItemID": 9}, 9),
        ({"CompanyID": 10, "Name": "Acme"}, 10),
        ({"id": "11"}, 11),
        ({"data": {"id": 12}}, 12),
        ({"newCategoryId": 13}, 13),
        (14, 14),
        ("15", 15),
        (" 16\n", 16),
        ('"17"', 17),
    ],
)
def test_created_id_accepts_every_shape(body: Any, expected: int) -> None:
    assert created_id(body) == expected


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (None, " null"), (True, " true"), ("OK", " OK"), ("", ""), ([], " []"), ([1], " [1]"),
        ({}, " {}"), ({"name": "x"}, ' {"name": "x"}'),
        ({"aId": 1, "bId": 2}, ' {"aId": 1, "bId": 2}'),
        ({"id": None}, ' {"id": null}'), (1.5, " 1.5"),
    ],
)  # fmt: skip
def test_created_id_refuses_what_holds_no_id(body: Any, shown: str) -> None:
    with pytest.raises(ApiError) as refused:
        created_id(body, path="/api/Asset")
    assert str(refused.value) == (
        "POST /api/Asset failed: the answer carries no id of the created object:" + shown
    )


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("OK", "OK"),
        ({"name": "x" * 300}, '{"name": "' + "x" * 189 + "…"),  # 200 characters shown
        ("y" * 200, "y" * 200),
        ([1], "[1]"),
    ],
)
def test_the_answer_without_an_id_is_shown_shortened(body: Any, shown: str) -> None:
    with pytest.raises(ApiError) as refused:
        created_id(body, path="/api/Asset")
    assert str(refused.value) == (
        f"POST /api/Asset failed: the answer carries no id of the created object: {shown}"
    )


FULL = """<?xml version="1.0" encoding="utf-8"?>
<AutomationRule>
<RuleID>101</RuleID>
<Name>Escalate critical tickets</Name>
<Enabled>false</Enabled>
<conditions><condition field="Priority">2</condition></conditions>
<actions><action type="notify"/></actions>
</AutomationRule>"""


@pytest.mark.parametrize(
    ("xml", "expected"),
    [
        (FULL, RuleInfo(101, "Escalate critical tickets", False)),
        (
            "<AutomationRule><conditions/><actions/></AutomationRule>",
            RuleInfo(None, None, None),
        ),
        (
            "<automationrule><ruleid>7</ruleid><NAME>x</NAME><ENABLED>True</ENABLED>"
            "</automationrule>",
            RuleInfo(7, "x", True),
        ),
        ('<AutomationRule ID="8" Name="attr" Enabled="1"/>', RuleInfo(8, "attr", True)),
        (
            '<r:AutomationRule xmlns:r="urn:x"><r:Name>ns</r:Name><r:Disabled>true</r:Disabled>'
            "</r:AutomationRule>",
            RuleInfo(None, "ns", False),
        ),
        ("<AutomationRule><Enabled>maybe</Enabled></AutomationRule>", RuleInfo(None, None, None)),
        ("\n  <Rule><Id>3</Id><IsEnabled>yes</IsEnabled></Rule>", RuleInfo(3, None, True)),
    ],
)
def test_parse_rule_tolerates_variants(xml: str, expected: RuleInfo) -> None:
    assert parse_rule(xml) == expected


@pytest.mark.parametrize(
    "xml",
    [
        "",
        "not xml",
        "<AutomationRule><Name>unclosed</AutomationRule>",
        '<!DOCTYPE r [<!ENTITY a "aaaa">]><AutomationRule>&a;</AutomationRule>',
    ],
)
def test_parse_rule_refuses_what_is_no_xml(xml: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_rule(xml, rule_id=5)
    assert caught.value.path == "/api/Rule/5"
    # After the colon, the XML parser's own words (expat's or defusedxml's).
    assert re.fullmatch(
        r"GET /api/Rule/5 failed: the answer is not a valid rule document: .+", str(caught.value)
    ), str(caught.value)


def test_parse_rule_refuses_a_document_of_another_kind() -> None:
    with pytest.raises(ApiError) as caught:
        parse_rule("<html><body>Sign in</body></html>", rule_id=5)
    assert str(caught.value) == (
        "GET /api/Rule/5 failed: the answer is not a rule document (root <html>)"
    )


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            httpx.Response(400, text="Parameter 'email' is required"),
            "Parameter 'email' is required",
        ),
        (
            httpx.Response(422, json={"error": "email is required", "status": 422}),
            "email is required",
        ),
        (httpx.Response(409, json={"message": "duplicate"}), "duplicate"),
        (httpx.Response(400, json={"error": {"message": "nested"}}), "nested"),
        (httpx.Response(422, json={"errors": [{"message": "a"}, "b"]}), "a; b"),
        (httpx.Response(404, text=""), "Not Found"),
        (httpx.Response(400, json={"code": 7}), '{"code": 7}'),
        (httpx.Response(400, json={"error": " ", "detail": "why"}), "why"),
        (httpx.Response(400, json={"title": "Bad", "Message": "m"}), "Bad"),
        (httpx.Response(500, json={"Message": "An error", "ExceptionMessage": "x"}), "An error"),
        (httpx.Response(500, json={"ExceptionMessage": "Object reference"}), "Object reference"),
        (
            httpx.Response(400, json={"error": {"code": 3}, "errors": []}),
            '{"error": {"code": 3}, "errors": []}',
        ),
        (httpx.Response(400, json=[1, "a"]), '[1, "a"]'),
        (httpx.Response(400, json=[]), "Bad Request"),
        (httpx.Response(599, text="  "), "HTTP 599"),
        (httpx.Response(500, text="x" * 500), "x" * 500),  # at the limit: whole
        (httpx.Response(500, text=" " + "y" * 501 + " "), "y" * 499 + "…"),  # 500 shown
        (httpx.Response(500, json={"list": "z" * 600}), '{"list": "' + "z" * 489 + "…"),
    ],
)
def test_error_messages_are_the_apis_own(response: httpx.Response, message: str) -> None:
    assert error_message(response) == message

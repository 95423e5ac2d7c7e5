from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

import httpx
import pytest
from defusedxml.ElementTree import fromstring

from reconciler.sandbox import records
from tests.sandbox.conftest import Api, api_with

CONDITIONS = '<condition field="Priority" op="equals">Critical</condition>'
ACTIONS = '<action type="assign"><user>tina</user></action><action type="notify"/>'


def add_rule(
    api: Api,
    name: str = "Escalate critical tickets",
    *,
    enabled: bool = True,
    conditions: str = CONDITIONS,
    actions: str = ACTIONS,
) -> int:
    rec = records.rule(name, enabled=enabled, conditions=conditions, actions=actions)
    return int(api.state.store.insert("rules", rec)["id"])


def stored(api: Api, table: str, rid: int) -> dict[str, Any]:
    rec = api.state.store.get(table, rid)
    assert rec is not None
    return rec


def parse(resp: httpx.Response) -> Element:
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].split(";")[0] == "application/xml"
    root = fromstring(resp.content)
    assert root.tag == "AutomationRule"
    return root


def children(root: Element) -> list[str]:
    return [child.tag for child in root]


def test_a_rule_is_served_as_xml(api: Api) -> None:
    rid = add_rule(api)
    root = parse(api.get(f"Rule/{rid}"))
    assert children(root) == ["RuleID", "Name", "Enabled", "conditions", "actions"]
    assert root.findtext("RuleID") == str(rid)
    assert root.findtext("Name") == "Escalate critical tickets"
    assert root.findtext("Enabled") == "true"
    condition = root.find("conditions/condition")
    assert condition is not None
    assert condition.attrib == {"field": "Priority", "op": "equals"}
    assert condition.text == "Critical"
    actions = root.findall("actions/action")
    assert [a.get("type") for a in actions] == ["assign", "notify"]
    assert root.findtext("actions/action/user") == "tina"


def test_rule_is_reachable_every_way(api: Api) -> None:
    rid = add_rule(api)
    expected = api.get(f"Rule/{rid}").content
    assert api.post(f"Rule/{rid}").content == expected
    assert api.get("Rule", id=rid).content == expected
    assert api.post("Rule", id=rid).content == expected
    assert api.get(f"rule/{rid}").content == expected  # paths are case-insensitive


def test_rule_name_is_escaped_and_empty_fragments_allowed(api: Api) -> None:
    rid = add_rule(api, "Tom & Jerry <VIP> ]]> \x01", conditions="", actions="")
    root = parse(api.get(f"Rule/{rid}"))
    assert root.findtext("Name") == "Tom & Jerry <VIP> ]]> "
    for tag in ("conditions", "actions"):
        element = root.find(tag)
        assert element is not None
        assert len(element) == 0 and not element.text


@pytest.mark.parametrize(
    "fragment",
    [
        "a < b & c",
        "<open>",
        "</conditions><conditions>",
        "<a:b>namespaced</a:b>",
        '<?xml version="1.0"?><x/>',
        "&unknown;",
    ],
)
def test_fragment_that_is_not_xml_becomes_text(api: Api, fragment: str) -> None:
    rid = add_rule(api, conditions=fragment)
    root = parse(api.get(f"Rule/{rid}"))
    assert children(root) == ["RuleID", "Name", "Enabled", "conditions", "actions"]
    assert root.findtext("conditions") == fragment
    assert len(root.findall("actions/action")) == 2


def test_rule_xml_minimal_quirk() -> None:
    with api_with("rule-xml-minimal") as api:
        rid = add_rule(api)
        root = parse(api.get(f"Rule/{rid}"))
        assert children(root) == ["conditions", "actions"]
        assert root.findtext("conditions/condition") == "Critical"
        assert len(root.findall("actions/action")) == 2


def test_rule_endpoints_refuse_unknown_and_malformed_ids(api: Api) -> None:
    resp = api.get("Rule/999")
    assert resp.status_code == 404
    assert "999" in resp.text
    assert api.get("Rule/abc").status_code == 400
    assert api.get("Rule").status_code == 400
    assert api.get("Rule", id="abc").status_code == 400


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_disable_and_enable_rule(api: Api, method: str) -> None:
    rid = add_rule(api)
    other = add_rule(api, "Other")

    def call(path: str, **params: object) -> httpx.Response:
        return api.get(path, **params) if method == "GET" else api.post(path, **params)

    resp = call(f"DisableRule/{rid}")
    assert resp.status_code == 200 and resp.text == "OK"
    assert stored(api, "rules", rid)["enabled"] is False
    assert stored(api, "rules", other)["enabled"] is True
    assert parse(api.get(f"Rule/{rid}")).findtext("Enabled") == "false"
    # Idempotent: a repeated switch answers OK and writes nothing.
    writes = api.state.store.writes
    assert call(f"DisableRule/{rid}").status_code == 200
    assert stored(api, "rules", rid)["enabled"] is False
    assert api.state.store.writes == writes

    resp = call(f"EnableRule/{rid}")
    assert resp.status_code == 200 and resp.text == "OK"
    assert stored(api, "rules", rid)["enabled"] is True
    assert parse(api.get(f"Rule/{rid}")).findtext("Enabled") == "true"
    assert call(f"EnableRule/{rid}").status_code == 200

    # The id may come as a parameter too.
    assert call("DisableRule", id=rid).status_code == 200
    assert stored(api, "rules", rid)["enabled"] is False
    assert call("EnableRule", id=rid).status_code == 200
    assert stored(api, "rules", rid)["enabled"] is True


@pytest.mark.parametrize("name", ["EnableRule", "DisableRule"])
def test_enable_disable_rule_errors(api: Api, name: str) -> None:
    assert api.get(f"{name}/999").status_code == 404
    assert api.post(f"{name}/999").status_code == 404
    assert api.get(f"{name}/x").status_code == 400
    assert api.get(name).status_code == 400


def test_there_is_no_rule_list(api: Api) -> None:
    add_rule(api)
    assert api.get("Rules").status_code == 404


@pytest.mark.parametrize("user", ["tina", "ursula"])
@pytest.mark.parametrize("path", ["Rule/{rid}", "EnableRule/{rid}", "DisableRule/{rid}"])
def test_rules_need_an_administrator(api: Api, user: str, path: str) -> None:
    rid = add_rule(api, enabled=False)
    before = api.state.store.writes
    assert api.as_(user).get(path.format(rid=rid)).status_code == 403
    assert api.as_(user).post(path.format(rid=rid)).status_code == 403
    assert api.state.store.writes == before
    assert api.as_(None).get(path.format(rid=rid)).status_code == 401
    assert api.get(path.format(rid=rid)).status_code == 200

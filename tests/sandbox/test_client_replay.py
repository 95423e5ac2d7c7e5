"""Replays against the sandbox the calls that third-party clients of the helpdesk API make,
and checks every answer's status and shape against the helpdesk API spec.

The calls are written from the spec and from the notes on what real clients observe, not
from any client's code. Three sessions stand for three kinds of client: one that sends
query strings and url-encoded forms with Basic authentication (as a Python script would),
one that sends JSON bodies, lower-case paths and `Content-Type: application/json` on every
call with a Bearer token (as a Node wrapper would), and one that sends multipart forms and
mixed-case names (as a typed vendor client would). Each runs on a fresh
sandbox seeded with the acme tenant. A session does not stop at the first difference: it
reports every call whose answer departs from the spec.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from defusedxml import ElementTree

from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.helpdesk.registry import ENDPOINTS
from reconciler.sandbox.process import InProcessTransport
from reconciler.sandbox.seed import initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from tests.sandbox import spec_shapes as S

ACME = Path(__file__).resolve().parents[2] / "reconciler" / "sandbox" / "seeds" / "acme.yaml"
ADMIN_PASSWORD = "acme-sandbox-admin"  # the seed's local administrator password

OK = "ok"  # "200 OK": a plain success body
XML = "xml"  # the Rule: an AutomationRule document with conditions and actions
ERROR = "error"  # an error answer: a body that states the cause


@dataclass(frozen=True)
class Call:
    """One request. `path` and string `params` values may hold `{name}` placeholders,
    filled from the session's ids; `keep` stores a value of the answer under a name
    (`"id"`, `"[0].ItemID"`)."""

    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    shape: Any = None
    status: int = 200
    send: str = ""  # "", "query", "form", "multipart", "json": the session's default if ""
    keep: dict[str, str] = field(default_factory=dict)
    user: str = "admin"


# -- the sessions --------------------------------------------------------------------------

SCRIPT_SESSION = [  # query strings and forms, Basic authentication
    Call("POST", "api/Authorization", shape=S.USER_WITH_DEPARTMENT),
    Call("GET", "api/Authorization", shape=S.USER_WITH_DEPARTMENT),
    Call("GET", "api/categories", shape=[S.CATEGORY]),
    Call("GET", "api/Priorities", shape=[S.PRIORITY]),
    Call("GET", "api/Users", {"count": 5, "page": 1}, [S.USER_LIST_ITEM]),
    Call("GET", "api/Users", {"listMode": "techs"}, [S.USER_LIST_ITEM]),
    Call("GET", "api/Users", {"listMode": "nobody"}, ERROR, 400),
    Call("GET", "api/Users", {"page": 0}, ERROR, 400),
    Call("GET", "api/UserByEmail", {"email": "helen.okafor@acme.com"}, S.USER_WITH_DEPARTMENT),
    Call("GET", "api/UserByEmail", {"email": "nobody@acme.com"}, ERROR, 404),
    Call("GET", "api/UserByUsername", {"username": "nobody"}, ERROR, 404),
    Call("GET", "api/User", {"userId": 999999}, ERROR, 404),
    Call("GET", "api/User", {}, ERROR, 400),
    Call("GET", "api/Companies", shape=[S.COMPANY]),
    Call("GET", "api/Departments", shape=[S.DEPARTMENT]),
    Call("GET", "api/CustomFields", {"type": 2}, [S.FIELD_DEFINITION]),
    Call("GET", "api/CustomFields", {"type": 9}, ERROR, 400),
    Call("GET", "api/Assets", {"page": 1}, [S.ASSET], keep={"asset": "[0].ItemID"}),
    Call("GET", "api/Assets", {"page": 2}, [S.ASSET]),
    Call("GET", "api/Asset", {"id": "{asset}"}, S.ASSET),
    Call("GET", "api/Asset", {"id": 999999}, ERROR, 404),
    Call("GET", "api/Assets", {"nameprefix": "Th"}, ERROR, 400),
    Call("GET", "api/Assets", {"nameprefix": "Think", "includeDisabled": "true"}, [S.ASSET]),
    Call("POST", "api/Company", {"name": "Umbrella"}, S.CREATED, keep={"company": "id"}),
    Call("POST", "api/UpdateCompany", {"id": "{company}", "notes": "New"}, S.COMPANY),
    Call("POST", "api/UpdateCompany", {"id": "{company}", "name": "Acme Corp"}, ERROR, 400),
    Call("POST", "api/CreateUser", {"email": "ann@umbrella.com"}, S.CREATED_USER),
    Call("POST", "api/CreateUser", {"email": "not-an-address"}, ERROR, 400),
    Call("POST", "api/UpdateAsset", {"id": "{asset}", "quantity": 0}, ERROR, 400),
    Call("GET", "api/Rule/101", shape=XML),
    Call("GET", "api/Rule/999", shape=ERROR, status=404),
    Call("GET", "api/DisableRule/101", shape=OK),
    Call("GET", "api/EnableRule/101", shape=OK),
    Call("GET", "api/Tickets", shape=ERROR, status=404),  # not served
]

NODE_SESSION = [  # JSON bodies, lower-case paths, Bearer, JSON content type on GET too
    Call("POST", "api/authorization", shape=S.USER_WITH_DEPARTMENT),
    Call("GET", "api/techsforcategory", {"id": "{Hardware}"}, [S.CATEGORY_TECHNICIAN]),
    Call("GET", "api/TechsForCategory", {"categoryId": "{Hardware}"}, [S.CATEGORY_TECHNICIAN]),
    Call("GET", "api/userbyusername", {"username": "tina"}, S.USER_WITH_DEPARTMENT),
    Call("GET", "api/user", {"userId": "{tina}"}, S.USER_WITH_DEPARTMENT),
    Call("GET", "api/usercustomfields", {"id": "{tina}"}, [S.FIELD_VALUE]),
    Call("GET", "api/UserCustomFields", {"userId": "{tina}"}, [S.FIELD_VALUE]),
    Call("GET", "api/companycustomfields", {"id": "{Acme Corp}"}, [S.FIELD_VALUE]),
    Call("GET", "api/customfields", {"type": 3}, [S.FIELD_DEFINITION]),
    Call("GET", "api/customfields", shape=[S.FIELD_DEFINITION]),
    Call("GET", "api/companies", shape=[S.COMPANY]),
    Call("GET", "api/departments", shape=[S.DEPARTMENT]),
    Call("GET", "api/users", {"listMode": "disabled"}, [S.USER_LIST_ITEM]),
    Call("GET", "api/assets", {"assignedToCompanyId": "{Acme Corp}"}, [S.ASSET]),
    # Configuration writes read form fields only: a JSON body is refused, nothing written.
    Call("POST", "api/company", {"name": "Initech"}, ERROR, 400),
    Call("POST", "api/updatecompany", {"id": "{Acme Corp}", "notes": "x"}, ERROR, 400),
    Call("POST", "api/createuser", {"email": "json@initech.com"}, ERROR, 400),
    Call("POST", "api/updateuser", {"userId": "{tina}", "firstName": "T"}, ERROR, 400),
    Call("POST", "api/addcategory", {"name": "Printers"}, ERROR, 400),
    Call("POST", "api/asset", {"modelName": "X", "manufacturer": "Y"}, ERROR, 400),
    Call("POST", "api/disableasset", {"assetId": 1}, ERROR, 400),
    Call("POST", "api/rule/102", shape=XML),
    Call("POST", "api/disablerule/102", shape=OK),
    Call("POST", "api/enablerule/102", shape=OK),
    Call("GET", "api/companies", shape=[S.COMPANY]),
]

VENDOR_SESSION = [  # multipart forms, mixed-case names
    Call("POST", "api/Authorization", shape=S.USER_WITH_DEPARTMENT),
    Call(
        "POST",
        "api/Company",
        {"name": "Initech", "emailDomains": "initech.com"},
        S.CREATED,
        keep={"company": "id"},
    ),
    Call("POST", "api/Company", {"name": "INITECH"}, S.CREATED),  # idempotent by name
    Call(
        "POST",
        "api/UpdateCompany",
        {"id": "{company}", "name": "Initech", "notes": "Prospect"},
        S.COMPANY,
    ),
    Call(
        "POST",
        "api/SetCustomFieldForCompany",
        {"id": "{company}", "fieldId": "{VIP}", "value": "True"},
        OK,
    ),
    Call(
        "POST",
        "api/CreateUser",
        {
            "email": "peter@initech.com",
            "firstName": "Peter",
            "company": "Initech",
            "department": "Ops",
        },
        S.CREATED_USER,
        keep={"peter": "userId"},
    ),
    Call("POST", "api/CreateUser", {"email": "peter@initech.com"}, ERROR, 400),
    Call(
        "POST",
        "api/UpdateUser",
        {"userId": "{peter}", "lastName": "Gibbons", "username": "", "email": "", "phone": ""},
        S.UPDATED_USER,
    ),
    Call(
        "POST",
        "api/SetCustomFieldForUser",
        {"id": "{peter}", "fieldId": "{Employee ID}", "value": "E-9"},
        OK,
    ),
    Call(
        "POST",
        "api/AddCategoryTechPermission",
        {"userId": "{peter}", "categoryId": "{Facilities}"},
        OK,
    ),
    Call("GET", "api/TechsForCategory", {"id": "{Facilities}"}, [S.CATEGORY_TECHNICIAN]),
    Call(
        "POST",
        "api/RemoveCategoryTechPermission",
        {"userId": "{peter}", "categoryId": "{Facilities}"},
        OK,
    ),
    Call("POST", "api/AddCategory", {"name": "Printers", "sectionId": "{IT Support}"}, S.CREATED),
    Call(
        "POST",
        "api/Asset",
        {
            "modelName": "Swingline 747",
            "manufacturer": "Swingline",
            "type": "Stapler",
            "supplier": "Initech",
            "serialNumber": "RED-1",
            "companyId": "{company}",
        },
        S.CREATED,
        keep={"asset": "id"},
    ),
    Call(
        "POST", "api/UpdateAsset", {"id": "{asset}", "location": "Basement", "quantity": 2}, S.ASSET
    ),
    Call(
        "POST",
        "api/SetCustomFieldForAsset",
        {"id": "{asset}", "fieldId": "{Purchase order}", "value": "PO-1"},
        OK,
    ),
    Call("POST", "api/AssignAssetToUser", {"assetId": "{asset}", "userId": "{peter}"}, OK),
    Call("GET", "api/Assets", {"assignedToUserId": "{peter}"}, [S.ASSET]),
    Call("POST", "api/UnAssignAssetToUser", {"assetId": "{asset}", "userId": "{peter}"}, OK),
    Call("POST", "api/DisableAsset", {"assetId": "{asset}"}, OK),
    Call("GET", "api/Assets", {"includeDisabled": "True", "page": 1}, [S.ASSET]),
    Call("POST", "api/EnableAsset", {"assetId": "{asset}"}, OK),
    Call("GET", "api/Users", shape=ERROR, status=403, user="alice"),  # administrators only
    Call("GET", "api/Assets", shape=ERROR, status=403, user="alice"),  # technicians only
    Call("GET", "api/categories", shape=[S.CATEGORY], user="alice"),
    Call(
        "GET", "api/TechsForCategory", {"id": "{Hardware}"}, [S.CATEGORY_TECHNICIAN], user="alice"
    ),
    Call("GET", "api/User", {"userId": "{peter}"}, S.USER_WITH_DEPARTMENT, user="alice"),
]

SESSIONS = {"script": SCRIPT_SESSION, "node": NODE_SESSION, "vendor": VENDOR_SESSION}
SENDS = {"script": "form", "node": "json", "vendor": "multipart"}


# -- running a session ---------------------------------------------------------------------


class Session:
    def __init__(self, client: httpx.Client, state: SandboxState, style: str, token: str):
        self.client = client
        self.style = style
        self.token = token
        store = state.store
        self.ids: dict[str, Any] = {}
        for table, column in (
            ("categories", "name"),
            ("sections", "name"),
            ("companies", "name"),
            ("custom_fields", "name"),
        ):
            for rec in store.rows(table):
                self.ids.setdefault(rec[column], rec["id"])
        for rec in store.rows("users"):
            self.ids[rec["username"]] = rec["id"]
        self.passwords = {"admin": ADMIN_PASSWORD}

    def auth(self, user: str) -> dict[str, str]:
        if self.style != "script" and user == "admin":
            return {"Authorization": f"Bearer {self.token}"}
        raw = f"{user}:{self.passwords[user]}".encode()
        return {"Authorization": "Basic " + base64.b64encode(raw).decode()}

    def fill(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if not isinstance(value, str):
            return value
        whole = re.fullmatch(r"\{([^}]+)\}", value)
        if whole:
            return self.ids[whole.group(1)]
        return re.sub(r"\{([^}]+)\}", lambda m: str(self.ids[m.group(1)]), value)

    def send(self, call: Call) -> httpx.Response:
        params = {k: self.fill(v) for k, v in call.params.items()}
        url = f"/helpdesk/{self.fill(call.path)}"
        headers = self.auth(call.user)
        send = call.send or SENDS[self.style]
        if call.method == "GET" or send == "query":
            if self.style == "node":
                headers["Content-Type"] = "application/json"
            return self.client.request(call.method, url, params=params, headers=headers)
        if send == "json":
            return self.client.request(call.method, url, json=params, headers=headers)
        if send == "multipart":
            parts = {k: (None, str(v)) for k, v in params.items()}
            if not parts:
                return self.client.request(call.method, url, headers=headers)
            return self.client.request(call.method, url, files=parts, headers=headers)
        return self.client.request(call.method, url, data=params, headers=headers)

    def keep(self, call: Call, body: Any) -> None:
        for name, where in call.keep.items():
            value = body
            for step in re.findall(r"\[(\d+)\]|\.?(\w+)", where):
                value = value[int(step[0])] if step[0] else value[step[1]]
            self.ids[name] = value


def answer_problems(call: Call, resp: httpx.Response) -> list[str]:
    """How the answer departs from the spec: its status, then its shape."""
    if resp.status_code != call.status:
        return [f"status {resp.status_code}, expected {call.status}: {resp.text[:200]}"]
    if call.shape == ERROR:
        return [] if resp.text.strip() else ["an error answer with no body stating the cause"]
    if call.shape == OK:
        return [] if resp.text.strip() else ["an empty success body"]
    if call.shape == XML:
        root = ElementTree.fromstring(resp.text)
        found = {child.tag for child in root}
        if root.tag != "AutomationRule" or not {"conditions", "actions"} <= found:
            return [f"not an AutomationRule with conditions and actions: {resp.text[:200]}"]
        return []
    try:
        body = resp.json()
    except json.JSONDecodeError:
        return [f"not JSON: {resp.text[:200]!r}"]
    return S.differences(body, call.shape)


@pytest.fixture
def acme() -> Iterator[tuple[httpx.Client, SandboxState, str]]:
    state = SandboxState(Store(None), SandboxConfig(rate_limit=0, search_rate_limit=0))
    creds = initialise(state, ACME)
    transport = InProcessTransport(create_app(state))
    with httpx.Client(transport=transport, base_url="http://sandbox.test") as client:
        yield client, state, creds.helpdesk_token


@pytest.mark.parametrize("style", sorted(SESSIONS))
def test_third_party_calls_get_the_specs_answers(
    acme: tuple[httpx.Client, SandboxState, str], style: str
) -> None:
    client, state, token = acme
    session = Session(client, state, style, token)
    # The vendor session also calls as alice, a plain user: the administrator sets her
    # password first, as an integration that provisions accounts would.
    password = "alice-replay-pass"
    setup = session.client.post(
        "/helpdesk/api/UpdateUser",
        data={"userId": session.ids["alice"], "password": password},
        headers=session.auth("admin"),
    )
    assert setup.status_code == 200, setup.text
    session.passwords["alice"] = password
    problems: list[str] = []
    for number, call in enumerate(SESSIONS[style], 1):
        try:
            resp = session.send(call)
        except KeyError as missing:
            problems.append(f"{style} #{number}: needs {missing}, which an earlier call lacked")
            continue
        found = answer_problems(call, resp)
        problems += [f"{style} #{number} {call.method} {call.path}: {p}" for p in found]
        if not found and call.keep:
            session.keep(call, resp.json())
    assert problems == []


def test_the_sessions_call_every_endpoint_the_sandbox_serves() -> None:
    called = {
        (call.method, call.path.split("/")[1].lower())
        for calls in SESSIONS.values()
        for call in calls
    }
    served = {(method, name) for name, by_method in ENDPOINTS.items() for method in by_method}
    assert served - called == set()

"""Behaviour shared by every helpdesk endpoint: routing, parameter binding, authentication,
the IP block, rate limits, faults and the request log."""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import FaultConfig, SandboxConfig
from reconciler.sandbox.errors import ConnectionDropped
from reconciler.sandbox.process import InProcessTransport
from tests.sandbox.conftest import Api, FakeClock, make_state


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def client_for(config: SandboxConfig, clock: FakeClock | None = None) -> tuple[httpx.Client, Api]:
    state = make_state(config, clock)
    client = httpx.Client(transport=InProcessTransport(create_app(state)), base_url="http://t")
    return client, Api(client, state)


# -- routing and parameters ------------------------------------------------------------


def test_paths_and_parameter_names_are_case_insensitive(api: Api) -> None:
    resp = api.client.post("/helpdesk/API/company", data={"NAME": "Acme"}, headers=api.headers())
    assert resp.status_code == 200
    assert (
        api.client.get("/helpdesk/api/COMPANIES", headers=api.headers()).json()[0]["Name"] == "Acme"
    )


def test_parameters_from_query_form_and_multipart(api: Api) -> None:
    h = api.headers()
    assert api.client.post("/helpdesk/api/Company?name=FromQuery", headers=h).status_code == 200
    assert (
        api.client.post(
            "/helpdesk/api/Company", files={"name": (None, "FromMultipart")}, headers=h
        ).status_code
        == 200
    )
    # Some clients send a JSON content type on GET with no body.
    resp = api.client.get(
        "/helpdesk/api/Companies", headers={**h, "Content-Type": "application/json"}
    )
    assert sorted(c["Name"] for c in resp.json()) == ["FromMultipart", "FromQuery"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("Company", {"name": "FromJson"}),
        ("AddCategory", {"name": "FromJson"}),
        ("CreateUser", {"email": "json@example.com"}),
        ("Asset", {"modelName": "M", "manufacturer": "A", "type": "T", "supplier": "S"}),
    ],
)
def test_configuration_writes_refuse_a_json_body(api: Api, path: str, body: dict[str, str]) -> None:
    # The spec: JSON bodies are not the supported form. These writes read form fields
    # only; a JSON body is a 400 naming the fields that were not read, and nothing changes.
    writes = api.state.store.writes
    resp = api.client.post(f"/helpdesk/api/{path}", json=body, headers=api.headers())
    assert resp.status_code == 400
    assert "JSON body" in resp.text and sorted(body)[0] in resp.text
    assert api.state.store.writes == writes


def test_configuration_write_with_query_id_and_json_fields_is_refused(api: Api) -> None:
    cid = api.post("Company", name="Acme").json()["id"]
    resp = api.client.post(
        f"/helpdesk/api/UpdateCompany?id={cid}", json={"notes": "x"}, headers=api.headers()
    )
    assert resp.status_code == 400 and "notes" in resp.text
    assert api.get("Companies").json()[0]["Notes"] is None


@pytest.mark.parametrize("value", ["true", "True", "TRUE"])
def test_booleans_in_any_case(api: Api, value: str) -> None:
    from reconciler.sandbox import records

    field = api.state.store.insert(
        "custom_fields", records.custom_field("VIP", type=4, usage_type=4)
    )
    cid = api.post("Company", name="Acme").json()["id"]
    assert (
        api.post("SetCustomFieldForCompany", id=cid, fieldId=field["id"], value=value).status_code
        == 200
    )
    assert api.get("CompanyCustomFields", id=cid).json()[0]["Value"] == "true"


def test_bad_integer_parameter_is_400(api: Api) -> None:
    resp = api.post("UpdateCompany", id="abc", name="X")
    assert resp.status_code == 400
    assert "integer" in resp.text


def test_unknown_endpoint_is_404_and_wrong_method_405(api: Api) -> None:
    assert api.get("NoSuchThing").status_code == 404
    assert api.client.get("/helpdesk/nope", headers=api.headers()).status_code == 404
    assert api.get("Company").status_code == 405  # POST only


def test_answers_are_gzip_compressed_when_asked(api: Api) -> None:
    for i in range(40):
        api.post("Company", name=f"Company number {i}")
    raw = api.client.get(
        "/helpdesk/api/Companies", headers={**api.headers(), "Accept-Encoding": "gzip"}
    )
    assert raw.headers["content-encoding"] == "gzip"
    assert len(raw.json()) == 40  # httpx decompresses
    plain = api.client.get(
        "/helpdesk/api/Companies", headers={**api.headers(), "Accept-Encoding": "identity"}
    )
    assert "content-encoding" not in plain.headers
    assert json.loads(plain.content) == raw.json()


# -- authentication --------------------------------------------------------------------


def test_basic_and_bearer_authentication(api: Api) -> None:
    assert (
        api.client.post("/helpdesk/api/Authorization", headers=basic("admin", "admin-pass")).json()[
            "Username"
        ]
        == "admin"
    )
    resp = api.client.post(
        "/helpdesk/api/Authorization", headers={"Authorization": "Bearer tina-token"}
    )
    assert resp.status_code == 200
    assert resp.json()["IsTech"] is True and resp.json()["IsAdmin"] is False
    # Directory logins arrive as DOMAIN\username.
    assert (
        api.client.post(
            "/helpdesk/api/Authorization", headers=basic("CORP\\ursula", "ursula-pass")
        ).status_code
        == 200
    )


def test_authorization_answers_the_full_user_object(api: Api) -> None:
    user = api.post("Authorization").json()
    for field in (
        "UserID",
        "Username",
        "Password",
        "Email",
        "FirstName",
        "LastName",
        "Notes",
        "Location",
        "Phone",
        "Departman",
        "CompanyName",
        "CompanyId",
        "CompanyNotes",
        "IPAddress",
        "HostName",
        "Lang",
        "UserAgent",
        "AvatarURL",
        "Signature",
        "Greeting",
        "IsAdmin",
        "IsTech",
        "IsManager",
        "Disabled",
        "SendEmail",
        "LastSeen",
        "PushToken",
        "FullNameAndLogin",
        "FullName",
    ):
        assert field in user, field
    assert user["Password"] is None


def test_missing_and_bad_credentials_are_401(api: Api) -> None:
    assert api.as_(None).get("Companies").status_code == 401
    assert (
        api.client.get("/helpdesk/api/Companies", headers=basic("admin", "wrong")).status_code
        == 401
    )
    assert (
        api.client.get(
            "/helpdesk/api/Companies", headers={"Authorization": "Bearer nope"}
        ).status_code
        == 401
    )
    assert (
        api.client.get(
            "/helpdesk/api/Companies", headers={"Authorization": "Basic %%%"}
        ).status_code
        == 401
    )


def test_disabled_user_cannot_log_in(api: Api) -> None:
    uid = api.user_id("ursula")
    api.state.store.update("users", uid, disabled=True)
    assert api.as_("ursula").get("Priorities").status_code == 401


def test_three_failed_logins_block_the_ip_for_five_minutes(api: Api, clock: FakeClock) -> None:
    bad = basic("admin", "wrong")
    assert [
        api.client.get("/helpdesk/api/Priorities", headers=bad).status_code for _ in range(3)
    ] == [401] * 3
    blocked = api.get("Priorities")  # even good credentials
    assert blocked.status_code == 403
    assert "blocked" in blocked.text
    assert int(blocked.headers["Retry-After"]) == 300
    clock.advance(299)
    assert api.get("Priorities").status_code == 403
    clock.advance(2)
    assert api.get("Priorities").status_code == 200


def test_a_good_login_resets_the_failure_count(api: Api) -> None:
    bad = basic("admin", "wrong")
    for _ in range(2):
        api.client.get("/helpdesk/api/Priorities", headers=bad)
    assert api.get("Priorities").status_code == 200
    for _ in range(2):
        api.client.get("/helpdesk/api/Priorities", headers=bad)
    assert api.get("Priorities").status_code == 200


# -- rate limits -----------------------------------------------------------------------


def test_rate_limit_per_credential(clock: FakeClock) -> None:
    _, api = client_for(SandboxConfig(rate_limit=5, search_rate_limit=2), clock)
    assert [api.get("Priorities").status_code for _ in range(6)] == [200] * 5 + [429]
    limited = api.get("Priorities")
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) == 60
    # Another credential has its own budget.
    assert api.as_("tina").get("Priorities").status_code == 200
    clock.advance(60.5)
    assert api.get("Priorities").status_code == 200


def test_rate_limit_defaults_are_90_and_60(clock: FakeClock) -> None:
    _, api = client_for(SandboxConfig(), clock)
    codes = [api.get("Priorities").status_code for _ in range(91)]
    assert codes.count(200) == 90 and codes[-1] == 429


def test_rate_limit_zero_disables(clock: FakeClock) -> None:
    _, api = client_for(SandboxConfig(rate_limit=0, search_rate_limit=0), clock)
    assert all(api.get("Priorities").status_code == 200 for _ in range(200))


def test_no_retry_after_quirk(clock: FakeClock) -> None:
    _, api = client_for(SandboxConfig(rate_limit=1, quirks={"no-retry-after"}), clock)
    api.get("Priorities")
    limited = api.get("Priorities")
    assert limited.status_code == 429 and "Retry-After" not in limited.headers


# -- faults and the request log --------------------------------------------------------


def test_error_faults_answer_500_and_change_nothing(clock: FakeClock) -> None:
    _, api = client_for(SandboxConfig(rate_limit=0, faults=FaultConfig(error_rate=1.0)), clock)
    assert api.post("Company", name="Acme").status_code == 500
    assert api.state.store.rows("companies") == []


def test_dropped_connection_after_the_write_is_applied(clock: FakeClock) -> None:
    _, api = client_for(SandboxConfig(rate_limit=0, faults=FaultConfig(drop_rate=1.0)), clock)
    with pytest.raises(ConnectionDropped) as dropped:
        api.post("Company", name="Acme")
    assert str(dropped.value) == "connection dropped by the sandbox's fault injection"
    assert [c["name"] for c in api.state.store.rows("companies")] == ["Acme"]
    # Reads are never dropped, and a write that changed nothing is answered.
    assert api.get("Companies").status_code == 200
    with pytest.raises(ConnectionDropped) as dropped_again:
        api.post("UpdateCompany", id=1, notes="x")
    assert str(dropped_again.value) == str(dropped.value)


def test_a_throttle_stretch_answers_429_for_its_duration(clock: FakeClock) -> None:
    _, api = client_for(
        SandboxConfig(rate_limit=0, faults=FaultConfig(throttle_after=10, throttle_for=20)), clock
    )
    assert api.get("Priorities").status_code == 200
    clock.advance(10)
    resp = api.get("Priorities")
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "20"
    clock.advance(19.5)
    assert api.get("Priorities").status_code == 429
    clock.advance(1)
    assert api.get("Priorities").status_code == 200


def test_fault_sequence_is_reproducible_from_the_seed(clock: FakeClock) -> None:
    def run() -> list[int]:
        _, api = client_for(
            SandboxConfig(rate_limit=0, faults=FaultConfig(error_rate=0.3, seed=7)), clock
        )
        return [api.get("Priorities").status_code for _ in range(30)]

    first = run()
    assert first == run()
    assert 0 < first.count(500) < 30


def test_faults_configured_over_http(api: Api) -> None:
    resp = api.client.put("/_sandbox/faults", json={"error_rate": 1.0})
    assert resp.json()["error_rate"] == 1.0
    assert api.get("Priorities").status_code == 500
    assert api.client.put("/_sandbox/faults", json="error=0").json()["error_rate"] == 0.0
    assert api.get("Priorities").status_code == 200
    assert api.client.put("/_sandbox/faults", json={"nonsense": 1}).status_code == 400
    assert api.client.put("/_sandbox/faults", content=b"not json").status_code == 400


KNOWN_FAULTS = (
    "drop, drop_rate, error, error_rate, seed, slow, slow_rate, slow_seconds, throttle_after, "
    "throttle_for"
)


def test_fault_settings_are_parsed_from_their_spec() -> None:
    cfg = FaultConfig.parse(
        "error=0.05, drop=0.02,slow=0.05,slow_seconds=2,throttle_after=5,throttle_for=20,seed=3"
    )
    assert (cfg.error_rate, cfg.drop_rate, cfg.slow_rate, cfg.slow_seconds) == (
        0.05,
        0.02,
        0.05,
        2.0,
    )
    assert (cfg.throttle_after, cfg.throttle_for, cfg.seed) == (5.0, 20.0, 3)
    for bad, message in [
        ("error=2", "fault setting error_rate must be between 0 and 1"),
        ("bogus=1", f"unknown fault setting 'bogus=1'; known: {KNOWN_FAULTS}"),
        ("error", f"unknown fault setting 'error'; known: {KNOWN_FAULTS}"),
        ("error=x", "fault setting error_rate needs a number, got 'x'"),
    ]:
        with pytest.raises(ValueError) as refused:
            FaultConfig.parse(bad)
        assert str(refused.value) == message, bad


def test_request_log_lists_requests_without_secrets(api: Api) -> None:
    api.post("Company", name="Acme")
    api.client.post(
        "/helpdesk/api/Company?password=hunter2",
        data={"name": "B", "token": "t0k"},
        headers=api.headers(),
    )
    log = api.client.get("/_sandbox/requests").json()
    assert [(r["method"], r["path"], r["status"], r["user"]) for r in log] == [
        ("POST", "/helpdesk/api/Company", 200, "admin"),
        ("POST", "/helpdesk/api/Company", 200, "admin"),
    ]
    text = json.dumps(log)
    assert "hunter2" not in text and "t0k" not in text and "admin-pass" not in text
    assert log[1]["params"]["name"] == "B"
    since = api.client.get("/_sandbox/requests", params={"since": log[0]["seq"]}).json()
    assert len(since) == 1
    api.client.delete("/_sandbox/requests")
    assert api.client.get("/_sandbox/requests").json() == []


def test_priorities_are_the_standard_four(api: Api) -> None:
    assert api.get("Priorities").json() == [
        {"PriorityID": -1, "Name": "Low"},
        {"PriorityID": 0, "Name": "Normal"},
        {"PriorityID": 1, "Name": "High"},
        {"PriorityID": 2, "Name": "Critical"},
    ]


def test_the_reset_limits_route_forgets_windows_and_blocks(clock: FakeClock) -> None:
    client, api = client_for(SandboxConfig(rate_limit=1), clock)
    api.get("Priorities")
    assert api.get("Priorities").status_code == 429
    client.post("/_sandbox/reset-limits")
    assert api.get("Priorities").status_code == 200

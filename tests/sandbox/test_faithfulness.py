"""Places where the sandbox follows the spec (or settles its silence) rather than being
lenient: the install prefix, 401 challenges, rate-limit buckets and the request log. Each
decision is in docs/sandbox.md."""

from __future__ import annotations

import httpx
import pytest

from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.process import InProcessTransport
from reconciler.sandbox.state import SandboxState
from tests.sandbox.conftest import Api, FakeClock, make_state


def api_for(state: SandboxState) -> Api:
    client = httpx.Client(transport=InProcessTransport(create_app(state)), base_url="http://t")
    return Api(client, state)


# -- the install prefix ------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/helpdesk", "/HelpDesk", "/HELPDESK"])
def test_helpdesk_prefix_in_any_case_as_iis_matches_it(api: Api, prefix: str) -> None:
    for api_segment in ("api", "API", "Api"):
        resp = api.client.get(f"{prefix}/{api_segment}/Priorities", headers=api.headers())
        assert resp.status_code == 200, (prefix, api_segment)
        assert {p["Name"] for p in resp.json()} >= {"Low", "Normal", "High", "Critical"}


def test_workspace_paths_are_matched_as_written(ws: httpx.Client) -> None:
    assert ws.get("/workspace/api/employees").status_code == 200
    assert ws.get("/Workspace/api/employees").status_code == 404


# -- 401 challenges ----------------------------------------------------------------------


def test_401_without_credentials_carries_a_basic_challenge(api: Api) -> None:
    resp = api.client.get("/helpdesk/api/Priorities")
    assert resp.status_code == 401
    assert resp.headers["WWW-Authenticate"].startswith('Basic realm="Helpdesk"')


def test_401_for_bad_basic_credentials_carries_a_basic_challenge(api: Api) -> None:
    bad = Api(api.client, api.state, None)
    resp = bad.client.get(
        "/helpdesk/api/Priorities", headers={"Authorization": "Basic YWRtaW46bm9wZQ=="}
    )
    assert resp.status_code == 401
    assert resp.headers["WWW-Authenticate"].startswith("Basic ")


def test_401_for_a_bad_token_carries_a_bearer_challenge(api: Api) -> None:
    resp = api.client.get("/helpdesk/api/Priorities", headers={"Authorization": "Bearer nope"})
    assert resp.status_code == 401
    assert resp.headers["WWW-Authenticate"] == 'Bearer realm="Helpdesk", error="invalid_token"'


def test_403_is_no_challenge(api: Api) -> None:
    resp = api.as_("ursula").get("Companies")
    assert resp.status_code == 403 and "WWW-Authenticate" not in resp.headers


# -- rate limits -------------------------------------------------------------------------


def test_user_by_email_calls_also_count_in_the_general_limit(clock: FakeClock) -> None:
    api = api_for(make_state(SandboxConfig(rate_limit=4, search_rate_limit=60), clock))
    assert api.get("UserByEmail", email="tina@example.com").status_code == 200
    assert api.get("UserByEmail", email="ursula@example.com").status_code == 200
    assert [api.get("Priorities").status_code for _ in range(3)] == [200, 200, 429]
    assert api.get("UserByEmail", email="tina@example.com").status_code == 429


def test_the_user_by_email_limit_is_its_own_on_top(clock: FakeClock) -> None:
    api = api_for(make_state(SandboxConfig(rate_limit=90, search_rate_limit=2), clock))
    codes = [api.get("UserByEmail", email="tina@example.com").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    # A refused call is counted nowhere: the general budget still has 88.
    assert sum(api.get("Priorities").status_code == 200 for _ in range(89)) == 88
    clock.advance(61)
    assert api.get("UserByEmail", email="tina@example.com").status_code == 200


# -- the request log ---------------------------------------------------------------------


def test_request_log_keeps_repeated_parameters(api: Api) -> None:
    api.client.delete("/_sandbox/requests")
    api.client.get(
        "/helpdesk/api/Users?listMode=all&listMode=techs&page=5&password=x",
        headers=api.headers(),
    )
    api.client.post(
        "/helpdesk/api/UpdateCompany",
        content="id=1&cf1=a&cf1=b",
        headers={**api.headers(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    entries = api.client.get("/_sandbox/requests").json()
    listing, form = entries[0], entries[1]
    assert listing["query"] == {"listMode": ["all", "techs"], "page": "5", "password": "***"}
    assert listing["params"]["listmode"] == ["all", "techs"]
    assert form["params"]["cf1"] == ["a", "b"]

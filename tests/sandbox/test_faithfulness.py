"""Places where the sandbox follows the spec (or settles its silence) rather than being
lenient: the install prefix, 401 challenges, rate-limit buckets, `Tickets` modes,
`LastUpdated`, and the request log (issue 11, item 4). Each decision is in docs/sandbox.md."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from reconciler.sandbox import SandboxConfig, SandboxState, create_app, records
from reconciler.sandbox.transport import InProcessTransport
from tests.sandbox.conftest import Api, FakeClock, make_state


class WallClock:
    """A settable wall clock for `LastUpdated`."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


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


def test_attachment_urls_use_the_prefix_the_service_answers_on(api: Api) -> None:
    category = api.state.store.insert("categories", records.category("General"))
    headers = api.headers()
    created = api.client.post(
        "/HelpDesk/api/ticket",
        data={"categoryId": category["id"], "subject": "s", "body": "b"},
        files={"uploadFile": ("a.txt", b"hello")},
        headers=headers,
    )
    ticket_id = created.json()["id"]
    [item] = api.get("Attachments", id=ticket_id).json()
    assert item["Url"].startswith("http://sandbox.test/helpdesk/api/attachment?id=")
    assert api.client.get(item["Url"], headers=headers).content == b"hello"


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


def test_search_calls_also_count_in_the_general_limit(clock: FakeClock) -> None:
    api = api_for(make_state(SandboxConfig(rate_limit=4, search_rate_limit=60), clock))
    assert api.get("Search", query="x").status_code == 200
    assert api.get("UserByEmail", email="tina@example.com").status_code == 200
    assert [api.get("Priorities").status_code for _ in range(3)] == [200, 200, 429]
    assert api.get("Search", query="x").status_code == 429


def test_search_limit_is_its_own_on_top(clock: FakeClock) -> None:
    api = api_for(make_state(SandboxConfig(rate_limit=90, search_rate_limit=2), clock))
    codes = [api.get("Search", query="x").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    # A refused call is counted nowhere: the general budget still has 88.
    assert sum(api.get("Priorities").status_code == 200 for _ in range(89)) == 88
    clock.advance(61)
    assert api.get("UserByEmail", email="tina@example.com").status_code == 200


# -- Tickets -----------------------------------------------------------------------------


def test_tickets_mode_outside_the_spec_is_400(api: Api) -> None:
    # The spec lists all, unanswered, unclosed, handledbyme; `updated` is not a mode (the
    # last update is filtered with updatedFrom/updatedTo).
    resp = api.get("Tickets", mode="updated")
    assert resp.status_code == 400
    assert all(m in resp.text for m in ("all", "unanswered", "unclosed", "handledbyme"))
    assert api.get("Tickets", mode="HandledByMe").status_code == 200


def test_last_updated_moves_with_changes_to_the_ticket_only() -> None:
    wall = WallClock()
    config = SandboxConfig(rate_limit=0, search_rate_limit=0)
    state = make_state(config, FakeClock(), wall_clock=wall)
    api = api_for(state)
    category = state.store.insert("categories", records.category("General"))
    ticket_id = api.post(
        "ticket", categoryId=category["id"], subject="s", body="b", userId=api.user_id("ursula")
    ).json()["id"]

    def last_updated() -> str:
        [item] = api.get("Tickets").json()
        return str(item["LastUpdated"])

    created = last_updated()
    assert created == api.get("Tickets").json()[0]["IssueDate"]
    wall.now += timedelta(hours=1)
    assert api.post("AddSubscriber", id=ticket_id, userId=api.user_id("tina")).status_code == 200
    assert last_updated() == created  # subscriptions leave the ticket as it is
    wall.now += timedelta(hours=1)
    assert api.post("AddTimeSpent", ticketId=ticket_id, timeSpentInSeconds=60).status_code == 200
    assert last_updated() == "2026-01-05T11:00:00.000Z"
    day = "2026-01-05"
    assert [t["IssueID"] for t in api.get("Tickets", updatedFrom=day).json()] == [ticket_id]
    assert api.get("Tickets", updatedFrom="2026-01-06").json() == []


# -- the request log ---------------------------------------------------------------------


def test_request_log_keeps_repeated_parameters(api: Api) -> None:
    api.client.delete("/_sandbox/requests")
    api.client.get(
        "/helpdesk/api/Tickets?statusId=1&statusId=2&categoryId=5&password=x",
        headers=api.headers(),
    )
    api.client.post(
        "/helpdesk/api/SetCustomFields",
        content="ticketId=1&cf1=a&cf1=b",
        headers={**api.headers(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    entries = api.client.get("/_sandbox/requests").json()
    listing, form = entries[0], entries[1]
    assert listing["query"] == {"statusId": ["1", "2"], "categoryId": "5", "password": "***"}
    assert listing["params"]["statusid"] == ["1", "2"]
    assert form["params"]["cf1"] == ["a", "b"]

"""The retry rules of DESIGN §5: 5xx and transport errors, 429 waits (with and without
`Retry-After`, the window widened by its margin), unknown outcomes, a single attempt as a
valid policy."""

from __future__ import annotations

import asyncio
import base64
import logging
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from reconciler.clients import (
    BasicAuth,
    HelpdeskClient,
    RateLimits,
    RetryPolicy,
    created_id,
)
from reconciler.clients.retry import retry_after
from reconciler.errors import ApiError, OutcomeUnknown, TransportFailure
from reconciler.sandbox.config import FaultConfig, SandboxConfig
from reconciler.sandbox.server import SandboxServer
from reconciler.sandbox.state import SandboxState
from tests.clients.conftest import (
    PASSWORDS,
    FakeClock,
    Sleeper,
    admin_auth,
    api_requests,
    client_over,
    endpoint_calls,
    fast_retry,
    helpdesk_client,
    make_state,
)

pytestmark = pytest.mark.anyio

USER = {"UserID": 1, "Username": "admin"}


def arm(state: SandboxState, **faults: float) -> None:
    config = FaultConfig(**faults)  # type: ignore[arg-type]
    state.config.faults = config
    state.faults.configure(config)


def statuses(state: SandboxState) -> list[int | str]:
    return [r["status"] for r in api_requests(state)]


def scripted(*answers: httpx.Response | type[Exception]) -> tuple[httpx.MockTransport, list[str]]:
    """A transport that answers Authorization, then plays `answers` in order (an exception
    class is raised as a transport error), then answers `[]`."""
    queue = list(answers)
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json=USER)
        if not queue:
            return httpx.Response(200, json=[])
        answer = queue.pop(0)
        if isinstance(answer, httpx.Response):
            return answer
        raise answer("injected", request=request)  # type: ignore[call-arg]

    return httpx.MockTransport(handler), seen


def mock_client(transport: httpx.MockTransport, sleeper: Sleeper, **retry: float) -> HelpdeskClient:
    return HelpdeskClient(
        "http://h",
        BasicAuth("admin", "pw"),
        transport=transport,
        limits=RateLimits(general=0, search=0),
        retry=fast_retry(sleeper, **retry),
    )


# -- 5xx ---------------------------------------------------------------------------------


async def test_reads_are_retried_on_server_errors(state: SandboxState, sleeper: Sleeper) -> None:
    async with helpdesk_client(state, sleeper=sleeper) as client:
        await client.authenticate()
        arm(state, error_rate=0.5, seed=1)  # 9 failures, never 5 in a row
        for _ in range(10):
            assert await client.companies() == []
    failed = statuses(state).count(500)
    assert failed == 9
    assert statuses(state).count(200) == 11  # ... and every read got its answer
    assert len(sleeper.waits) == failed


async def test_reads_give_up_after_max_attempts(state: SandboxState, sleeper: Sleeper) -> None:
    async with helpdesk_client(state, sleeper=sleeper) as client:
        await client.authenticate()
        arm(state, error_rate=1.0)
        with pytest.raises(TransportFailure) as caught:
            await client.departments()
    assert str(caught.value) == (
        "GET /api/Departments: no usable answer from sandbox.test:80 after 5 attempts "
        "(last: 500 Internal server error (injected))"
    )
    assert len(endpoint_calls(state, "Departments")) == 5
    # Exponential backoff from 0.5 s, with the jitter fixed at its middle (x 0.75).
    assert sleeper.waits == [0.375, 0.75, 1.5, 3.0]


async def test_idempotent_writes_are_retried(state: SandboxState, sleeper: Sleeper) -> None:
    async with helpdesk_client(state, sleeper=sleeper) as client:
        company = created_id(await client.request("POST", "Company", {"name": "Acme"}, write=True))
        arm(state, error_rate=0.6, seed=1)  # fails twice, then succeeds
        await client.request(
            "POST", "UpdateCompany", {"id": company, "name": "Acme", "notes": "Gold"}, write=True
        )
    assert statuses(state).count(500) == 2
    assert state.store.get("companies", company)["notes"] == "Gold"  # type: ignore[index]


async def test_idempotent_writes_give_up_with_an_api_error(
    state: SandboxState, sleeper: Sleeper
) -> None:
    async with helpdesk_client(state, sleeper=sleeper) as client:
        await client.authenticate()
        arm(state, error_rate=1.0)
        with pytest.raises(ApiError) as caught:
            await client.request("POST", "Company", {"name": "Acme"}, write=True)
    assert not isinstance(caught.value, OutcomeUnknown)
    assert str(caught.value) == (  # the status once: the last attempt's, in its place
        "POST /api/Company failed: no usable answer from sandbox.test:80 after 5 attempts "
        "(last: 500 Internal server error (injected))"
    )
    assert len(endpoint_calls(state, "Company")) == 5


async def test_a_create_answered_500_is_an_unknown_outcome_and_not_repeated(
    state: SandboxState, sleeper: Sleeper
) -> None:
    async with helpdesk_client(state, sleeper=sleeper) as client:
        await client.authenticate()
        arm(state, error_rate=1.0)
        with pytest.raises(OutcomeUnknown) as caught:
            await client.request("POST", "Asset", {"modelName": "X1"}, write=True, idempotent=False)
    assert caught.value.status == 500
    assert str(caught.value) == (  # the status once
        "POST /api/Asset failed: 500 Internal server error (injected); the write may or may "
        "not have happened: re-read before trying again"
    )
    assert len(endpoint_calls(state, "Asset")) == 1
    assert sleeper.waits == []


async def test_a_dropped_create_is_an_unknown_outcome_and_the_object_exists(
    state: SandboxState, sleeper: Sleeper
) -> None:
    async with helpdesk_client(state, sleeper=sleeper) as client:
        await client.authenticate()
        arm(state, drop_rate=1.0)
        with pytest.raises(OutcomeUnknown) as caught:
            await client.request(
                "POST",
                "Asset",
                {"modelName": "X1", "manufacturer": "Lenovo", "type": "Laptop", "supplier": "CDW"},
                write=True,
                idempotent=False,
            )
        assert caught.value.status is None
        assert str(caught.value) == (
            "POST /api/Asset failed: no answer (RemoteProtocolError: server disconnected "
            "(ConnectionDropped)); the write may or may not have happened: re-read before "
            "trying again"
        )
        # Reads do not write, so they are not dropped: apply can re-read and find it.
        assets = await client.assets(include_disabled=True)
    assert [a["ModelName"] for a in assets] == ["X1"]
    assert statuses(state).count("dropped") == 1
    assert sleeper.waits == []


DROPPED_CREATE = (
    r"^POST /api/Company failed: no answer \(RemoteProtocolError: .+\); "
    r"the write may or may not have happened: re-read before trying again$"
)


def test_a_dropped_create_over_a_real_socket_is_an_unknown_outcome(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore included: no secret in any of it
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0))

    async def scenario(url: str) -> None:
        async with HelpdeskClient(
            url, admin_auth(), limits=RateLimits(general=0, search=0), retry=fast_retry()
        ) as client:
            await client.authenticate()
            arm(state, drop_rate=1.0)
            # Between the parentheses, httpx's own words for the dropped connection, which
            # change with its version: the rest is ours.
            with pytest.raises(OutcomeUnknown, match=DROPPED_CREATE):
                await client.request(
                    "POST", "Company", {"name": "Dropped Co"}, write=True, idempotent=False
                )

    with SandboxServer(state) as server:
        asyncio.run(scenario(server.helpdesk_url))
    assert [c["name"] for c in state.store.rows("companies")] == ["Dropped Co"]
    assert "Authorization" in caplog.text
    assert PASSWORDS["admin"] not in caplog.text
    assert base64.b64encode(f"admin:{PASSWORDS['admin']}".encode()).decode() not in caplog.text


# -- transport errors --------------------------------------------------------------------


async def test_connect_errors_are_retried_even_for_creates(sleeper: Sleeper) -> None:
    transport, seen = scripted(
        httpx.ConnectError, httpx.ConnectTimeout, httpx.Response(200, json={"id": 9})
    )
    async with mock_client(transport, sleeper) as client:
        body = await client.request("POST", "Asset", {"a": 1}, write=True, idempotent=False)
    assert created_id(body) == 9
    assert seen.count("POST /api/Asset") == 3 and len(sleeper.waits) == 2


@pytest.mark.parametrize(
    ("error", "what"),
    [
        (httpx.ReadTimeout, "no answer within the timeout (120 s, --timeout SECONDS)"),
        (httpx.RemoteProtocolError, "injected"),
        (httpx.ReadError, "injected"),
    ],
)
async def test_a_create_without_an_answer_is_an_unknown_outcome(
    error: type[Exception], what: str, sleeper: Sleeper
) -> None:
    transport, seen = scripted(error)
    async with mock_client(transport, sleeper) as client:
        with pytest.raises(OutcomeUnknown) as caught:
            await client.request(
                "POST", "CreateUser", {"email": "a@b.c"}, write=True, idempotent=False
            )
    assert str(caught.value) == (
        f"POST /api/CreateUser failed: no answer ({error.__name__}: {what}); the write may "
        "or may not have happened: re-read before trying again"
    )
    assert seen.count("POST /api/CreateUser") == 1


@pytest.mark.parametrize(
    "error", [httpx.ReadTimeout, httpx.RemoteProtocolError, httpx.ConnectError]
)
async def test_reads_are_retried_on_transport_errors(
    error: type[Exception], sleeper: Sleeper
) -> None:
    transport, seen = scripted(error, error, httpx.Response(200, json=[{"CompanyID": 1}]))
    async with mock_client(transport, sleeper) as client:
        assert await client.companies() == [{"CompanyID": 1}]
    assert seen.count("GET /api/Companies") == 3


async def test_reads_give_up_with_a_transport_failure(sleeper: Sleeper) -> None:
    transport, _ = scripted(*[httpx.ReadTimeout] * 3)
    async with mock_client(transport, sleeper, max_attempts=3) as client:
        with pytest.raises(TransportFailure, match=r"3 attempts.*ReadTimeout"):
            await client.companies()


async def test_a_server_that_never_answers_is_given_up_once_retry_for_has_passed() -> None:
    """Each attempt times out after 10 s and `retry_for` is 10 s: the second attempt ends
    10 s after the first failure, so no third one starts (about twice the timeout, not
    `max_attempts` times it)."""
    clock = FakeClock()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json=USER)
        clock.advance(10.0)
        raise httpx.ReadTimeout("no answer", request=request)

    retry = fast_retry(Sleeper(), clock=clock, retry_for=10.0)
    async with client_over(httpx.MockTransport(handler), retry) as client:
        with pytest.raises(TransportFailure) as caught:
            await client.companies()
    assert str(caught.value) == (
        "GET /api/Companies: no usable answer from h:80 after 2 attempts (last: ReadTimeout: "
        "no answer within the timeout (120 s, --timeout SECONDS))"
    )
    assert seen == ["/api/Authorization", "/api/Companies", "/api/Companies"]


# -- 429 ---------------------------------------------------------------------------------


async def test_429_is_waited_out_with_retry_after(clock: FakeClock, sleeper: Sleeper) -> None:
    state = make_state(SandboxConfig(rate_limit=3, search_rate_limit=3), clock)
    async with helpdesk_client(state, sleeper=sleeper) as client:  # client limiter off
        for _ in range(3):
            assert await client.companies() == []
    assert statuses(state) == [200, 200, 200, 429, 200]
    assert sleeper.waits == [60.0]


async def test_429_waits_do_not_count_as_failed_attempts(sleeper: Sleeper) -> None:
    limited = httpx.Response(429, headers={"Retry-After": "2"}, text="slow down")
    transport, _ = scripted(*[limited] * 6, httpx.Response(200, json=[]))
    async with mock_client(transport, sleeper, max_attempts=2) as client:
        assert await client.companies() == []
    assert sleeper.waits == [2.0] * 6


async def test_429_beyond_max_throttle_wait_is_an_error(sleeper: Sleeper) -> None:
    limited = httpx.Response(429, headers={"Retry-After": "100"}, text="API rate limit exceeded")
    transport, _ = scripted(*[limited] * 10)
    async with mock_client(transport, sleeper, max_throttle_wait=250) as client:
        with pytest.raises(ApiError) as caught:
            await client.companies()
    assert str(caught.value) == (
        "GET /api/Companies failed: 429 API rate limit exceeded (still rate limited after "
        "waiting 200 s)"
    )
    assert sleeper.waits == [100.0, 100.0]


async def test_429_waits_may_add_up_to_exactly_max_throttle_wait(sleeper: Sleeper) -> None:
    limited = httpx.Response(429, headers={"Retry-After": "100"}, text="API rate limit exceeded")
    transport, seen = scripted(limited, limited, httpx.Response(200, json=[{"CompanyID": 1}]))
    async with mock_client(transport, sleeper, max_throttle_wait=200) as client:
        assert await client.companies() == [{"CompanyID": 1}]
    assert sleeper.waits == [100.0, 100.0]
    assert seen.count("GET /api/Companies") == 3


async def test_a_429_pauses_the_other_tasks_of_the_client() -> None:
    sent: list[str] = []
    sent_while_waiting: list[int] = []
    throttled = False

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal throttled
        sent.append(request.url.path)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json=USER)
        if not throttled:
            throttled = True
            return httpx.Response(429, headers={"Retry-After": "30"})
        return httpx.Response(200, json=[])

    async def sleep(seconds: float) -> None:
        before = len(sent)
        for _ in range(20):
            await asyncio.sleep(0)
        sent_while_waiting.append(len(sent) - before)

    async with client_over(httpx.MockTransport(handler), RetryPolicy(sleep=sleep)) as client:
        await asyncio.gather(*(client.companies() for _ in range(4)))
    assert sent_while_waiting == [0]
    assert len(sent) == 1 + 1 + 4


def test_retry_after_forms() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)

    def answer(value: str | None) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": value} if value is not None else {})

    assert retry_after(answer("42")) == 42.0
    assert retry_after(answer("1.5")) == 1.5
    assert retry_after(answer("-3")) == 0.0
    assert retry_after(answer(format_datetime(now + timedelta(seconds=90))), now=now) == 90.0
    for unusable in (None, "", "soon", "inf", "nan"):
        assert retry_after(answer(unusable)) is None
    policy = RetryPolicy(rate_window=60, rate_margin=0.0)
    assert policy.throttle(answer("7"), window_age=50, probe=1) == 7.0  # told: obeyed
    # A floor: zeros still add up.
    assert policy.throttle(answer("0"), window_age=0, probe=1) == 1.0
    # Not told: until a minute after the client's first call in the window...
    assert policy.throttle(answer(None), window_age=0, probe=1) == 60.0
    assert policy.throttle(answer(None), window_age=45, probe=1) == 15.0
    # ...but when that minute is over, probing, in growing steps of at most 15 s.
    assert [policy.throttle(answer(None), window_age=60, probe=n) for n in range(1, 7)] == [
        1.0,
        2.0,
        4.0,
        8.0,
        15.0,
        15.0,
    ]


def limited_once() -> tuple[FakeClock, Sleeper, httpx.MockTransport, list[str]]:
    """A fake clock, a sleep that moves it, and a transport that answers one call, then a
    `429` without `Retry-After`, then `[]`."""
    clock = FakeClock()
    limited = httpx.Response(429, text="API rate limit exceeded")
    transport, seen = scripted(httpx.Response(200, json=[]), limited)
    return clock, Sleeper(clock), transport, seen


async def test_429_without_retry_after_waits_for_the_window_of_the_first_call() -> None:
    clock = FakeClock()
    sleeper = Sleeper(clock)
    limited = httpx.Response(429, text="API rate limit exceeded")
    transport, _ = scripted(httpx.Response(200, json=[]), limited, limited, limited)

    async def companies_later(client: HelpdeskClient) -> None:
        clock.advance(20)
        await client.companies()

    async with client_over(
        transport, RetryPolicy(sleep=sleeper, clock=clock, rate_margin=0.0)
    ) as client:
        await client.companies()  # at 0 s
        await companies_later(client)  # 429 at 20 s, and again after each wait
    # 40 s until a minute after the first call (at 0 s); the 429 at 60 s is measured from
    # the call at 20 s (20 s more), the one at 80 s from the call at 60 s (40 s more).
    assert sleeper.waits == [40.0, 20.0, 40.0]


async def test_a_429_on_a_search_waits_for_the_window_of_the_first_search() -> None:
    """Searches have a rate budget of their own: a `429` without `Retry-After` on one is
    waited out from this client's first search in the window, not from its first call."""
    clock, sleeper, transport, seen = limited_once()
    async with client_over(
        transport, RetryPolicy(sleep=sleeper, clock=clock, rate_margin=0.0)
    ) as client:
        await client.companies()  # the first call of the window, at 0 s
        clock.advance(30)
        assert await client.request("GET", "Search", {"q": "x"}, write=False) == []  # 429
    assert sleeper.waits == [60.0]  # a minute after the search at 30 s
    assert seen.count("GET /api/Search") == 2


async def test_a_429_on_a_search_is_measured_from_the_first_search_of_the_window() -> None:
    clock, sleeper, transport, _ = limited_once()
    async with client_over(
        transport, RetryPolicy(sleep=sleeper, clock=clock, rate_margin=0.0)
    ) as client:
        await client.request("GET", "Search", {"q": "x"}, write=False)  # at 0 s
        clock.advance(30)
        await client.request("GET", "Search", {"q": "y"}, write=False)  # 429 at 30 s
    assert sleeper.waits == [30.0]  # a minute after the search at 0 s


async def test_a_429_without_retry_after_waits_for_the_window_widened_by_its_margin() -> None:
    clock, sleeper, transport, _ = limited_once()
    async with client_over(
        transport, RetryPolicy(sleep=sleeper, clock=clock, rate_margin=0.5)
    ) as client:
        await client.companies()  # at 0 s: still in the widened window (90 s) at 50 s
        clock.advance(50)
        await client.companies()  # 429 at 50 s
    assert sleeper.waits == [40.0]  # 90 s after the call at 0 s


async def test_a_429_is_measured_from_when_calls_started_not_when_they_were_answered() -> None:
    clock = FakeClock()
    sleeper = Sleeper(clock)
    answers = [httpx.Response(200, json=[]), "slow 429", httpx.Response(429)]

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json=USER)
        answer = answers.pop(0) if answers else httpx.Response(200, json=[])
        if isinstance(answer, str):
            clock.advance(50)  # the answer takes 50 s to come
            return httpx.Response(429)
        return answer

    async with client_over(
        httpx.MockTransport(handler), RetryPolicy(sleep=sleeper, clock=clock, rate_margin=0.0)
    ) as client:
        await client.companies()  # started at 0 s
        clock.advance(20)
        await client.companies()  # started at 20 s, answered 429 at 70 s, then at 80 s
    # At 70 s the window's first call is the one at 20 s: 10 s more. At 80 s it is the
    # retry that started at 80 s: a whole minute.
    assert sleeper.waits == [10.0, 60.0]


def test_a_retry_after_date_is_measured_from_the_current_time() -> None:
    def answer(when: datetime) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": format_datetime(when, usegmt=True)})

    assert retry_after(answer(datetime(2015, 1, 1, tzinfo=UTC))) == 0.0  # long past
    in_an_hour = retry_after(answer(datetime.now(UTC) + timedelta(hours=1)))
    assert in_an_hour == pytest.approx(3600, abs=60)


def test_backoff_grows_exponentially_with_jitter_and_a_cap() -> None:
    low = RetryPolicy(backoff_base=1, backoff_max=10, jitter=lambda: 0.0)
    high = RetryPolicy(backoff_base=1, backoff_max=10, jitter=lambda: 0.999999)
    assert [low.backoff(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 4.0, 5.0]
    assert [round(high.backoff(n), 3) for n in range(1, 6)] == [1.0, 2.0, 4.0, 8.0, 10.0]
    with pytest.raises(ValueError) as refused:
        RetryPolicy(max_attempts=0)
    assert str(refused.value) == "max_attempts must be at least 1"


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("Thu, 26 Nov 2026 08:00:10 -0000", 10.0),  # no zone: read as UTC
        ("Thu, 26 Nov 2026 08:00:10 GMT", 10.0),
        ("Thu, 26 Nov 2026 09:00:10 +0100", 10.0),
        ("Thu, 26 Nov 2026 07:59:00 GMT", 0.0),  # past
    ],
)
def test_retry_after_as_an_http_date_is_seconds_from_now(header: str, seconds: float) -> None:
    now = datetime(2026, 11, 26, 8, 0, 0, tzinfo=UTC)
    response = httpx.Response(429, headers={"Retry-After": header})
    assert retry_after(response, now=now) == seconds


def test_one_attempt_is_a_policy_and_none_is_refused() -> None:
    assert RetryPolicy(max_attempts=1).max_attempts == 1
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0)


async def test_a_policy_of_one_attempt_gives_up_after_it() -> None:
    transport, seen = scripted(httpx.ReadError)
    async with client_over(transport, RetryPolicy(sleep=Sleeper(), max_attempts=1)) as client:
        with pytest.raises(TransportFailure) as caught:
            await client.companies()
    assert str(caught.value) == (
        "GET /api/Companies: no usable answer from h:80 after 1 attempt (last: ReadError: injected)"
    )
    assert seen == ["POST /api/Authorization", "GET /api/Companies"]


@pytest.mark.parametrize(
    ("age", "probe", "wait"),
    [(0.0, 1, 61.2), (60.0, 1, 1.2), (61.0, 1, 1.0), (61.0, 3, 4.0), (0.0, 9, 61.2)],
)
def test_a_429_without_retry_after_waits_for_the_widened_window_to_free(
    age: float, probe: int, wait: float
) -> None:
    policy = RetryPolicy(rate_window=60.0, rate_margin=0.02)
    assert policy.throttle(httpx.Response(429), window_age=age, probe=probe) == pytest.approx(wait)

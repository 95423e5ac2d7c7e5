"""An interrupted apply (the first Ctrl-C): nothing new starts, what was sent finishes,
and the report says what was done, what was in flight and what was not attempted. The
clients' part: a request not yet sent when the client is halted is never sent, even one
waiting for the rate limiter."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from reconciler.applying.executor import ApplyReport, Executor
from reconciler.clients import BasicAuth, Halted, HelpdeskClient, RateLimits, RetryPolicy
from tests.applying.fakes import FakeClient, change, op, plan_of


class HaltableFake(FakeClient):
    halted = False

    def halt(self) -> None:
        self.halted = True

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        if self.halted:
            raise Halted()
        return await super().request(*args, **kwargs)


@pytest.mark.parametrize("client", [HaltableFake, FakeClient])
def test_an_interrupt_lets_what_was_sent_finish_and_starts_nothing_new(
    client: type[FakeClient],
) -> None:
    """Whether or not the clients can be halted (a client of one's own may not): the
    executor itself starts nothing new."""
    held = asyncio.Event()

    async def wait() -> str:
        await held.wait()
        return "OK"

    hd = client({"slow1": [wait], "late": [wait]})
    plan = plan_of(
        change("companies", "Quick", op("quick")),
        change("companies", "Late", op("late")),
        change("companies", "Slow", op("slow1"), op("slow2")),
        change("users", "needs-slow", op("ns"), depends_on=['companies["Slow"]']),
    )

    async def scenario() -> ApplyReport:
        executor = Executor(plan, helpdesk=hd)
        task = asyncio.create_task(executor.run())
        while "quick" not in hd.finished or len(hd.calls) < 3:
            await asyncio.sleep(0)
        executor.interrupt()
        executor.interrupt()  # a second call changes nothing
        held.set()
        return await task

    report = asyncio.run(scenario())
    assert report.interrupted and not report.ok and not report.failed
    assert sorted(report.in_flight) == ['companies["Late"]', 'companies["Slow"]']
    assert sorted(report.done) == ['companies["Late"]', 'companies["Quick"]']
    assert report.partial == ['companies["Slow"]']  # slow2 was never sent
    assert report.not_attempted == ['users["needs-slow"]']
    assert sorted(hd.tags()) == ["late", "quick", "slow1"]


async def _halted_while_waiting_for_the_rate_limit() -> tuple[list[str], float]:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        return httpx.Response(200, json=[])

    client = HelpdeskClient(
        "http://h.example.test",
        BasicAuth("admin", "pw"),
        limits=RateLimits(general=2, search=2, window=3600.0),
        transport=httpx.MockTransport(handler),
    )
    async with client:
        await client.companies()  # Authorization and Companies: the budget is spent
        waiting = asyncio.create_task(client.companies())
        await asyncio.sleep(0.05)
        loop = asyncio.get_running_loop()
        started = loop.time()
        client.halt()
        with pytest.raises(Halted) as halted:
            await waiting
        assert halted.value.reached is False  # stopped before it was sent
        return sent, loop.time() - started


def test_a_request_waiting_for_the_rate_limiter_is_never_sent_after_halt() -> None:
    sent, waited = asyncio.run(_halted_while_waiting_for_the_rate_limit())
    assert sent == ["/api/Authorization", "/api/Companies"]
    assert waited < 30  # not the hour the limiter would have waited


def test_an_interrupt_halts_a_write_waiting_to_be_sent_again() -> None:
    """The clients are halted too: a write answered 503 and backing off before its next
    attempt is not sent again; its change stopped partway (the service may have made it)."""
    sent: list[str] = []
    backing_off = asyncio.Event()
    interrupted = asyncio.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        if sent.count(request.url.path) == 1:
            return httpx.Response(503, json={"message": "busy"})
        return httpx.Response(200, text="OK")

    async def sleep(seconds: float) -> None:
        backing_off.set()
        await interrupted.wait()  # the back-off lasts until the interrupt

    client = HelpdeskClient(
        "http://h.example.test",
        BasicAuth("admin", "pw"),
        limits=RateLimits(general=0, search=0),
        retry=RetryPolicy(sleep=sleep),
        transport=httpx.MockTransport(handler),
    )

    async def scenario() -> ApplyReport:
        async with client:
            executor = Executor(plan_of(change("companies", "Busy", op("busy"))), helpdesk=client)
            task = asyncio.create_task(executor.run())
            await backing_off.wait()
            executor.interrupt()
            interrupted.set()
            return await task

    report = asyncio.run(scenario())
    assert report.interrupted and report.in_flight == ['companies["Busy"]']
    assert report.partial == ['companies["Busy"]'] and report.done == []
    assert sent == ["/api/Authorization", "/api/UpdateCompany"]

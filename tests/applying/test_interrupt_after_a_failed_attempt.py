"""Issue 22: the Ctrl-C summary listed as "not attempted" a change whose write had been
sent. That happens when a write is answered with a 5xx (or not at all) and the client,
waiting to send it again, is halted by the interrupt: the service may have carried it out.
Such a change is reported as stopped partway (apply again finishes it), never as not
attempted; a change halted before anything of it was sent still is."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from reconciler.applying.executor import ApplyReport, Executor
from reconciler.clients import BasicAuth, Halted, HelpdeskClient
from reconciler.clients.retry import RetryPolicy
from tests.applying.fakes import FakeClient, change, op, plan_of


async def _halted_while_backing_off(
    answer: int | type[httpx.TransportError],
) -> tuple[Halted, list[str]]:
    """A write answered with the status `answer`, or not at all (the transport error
    `answer`), then halted while it waits to be sent again."""
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        if isinstance(answer, int):
            return httpx.Response(answer, json={"message": "busy"})
        raise answer("injected", request=request)

    client = HelpdeskClient(
        "http://h.example.test",
        BasicAuth("admin", "pw"),
        retry=RetryPolicy(backoff_base=600.0, backoff_max=600.0),  # a long back-off
        transport=httpx.MockTransport(handler),
    )
    async with client:
        update = asyncio.create_task(
            client.request("POST", "UpdateCompany", {"id": 1}, write=True, idempotent=True)
        )
        while "/api/UpdateCompany" not in sent:  # answered 5xx: now it backs off
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        client.halt()
        with pytest.raises(Halted) as halted:
            await update
        return halted.value, sent


def test_a_write_answered_5xx_then_halted_says_it_may_have_been_carried_out() -> None:
    halted, sent = asyncio.run(_halted_while_backing_off(503))
    assert halted.reached
    assert sent.count("/api/UpdateCompany") == 1  # sent once, and not again after the halt


@pytest.mark.parametrize(
    ("error", "reached"),
    [
        (httpx.ReadTimeout, True),  # sent, and no answer: it may have been carried out
        (httpx.RemoteProtocolError, True),
        (httpx.ConnectError, False),  # the connection never opened: nothing was sent
        (httpx.ConnectTimeout, False),
    ],
)
def test_a_write_without_an_answer_then_halted_says_whether_it_was_sent(
    error: type[httpx.TransportError], reached: bool
) -> None:
    halted, sent = asyncio.run(_halted_while_backing_off(error))
    assert halted.reached is reached
    assert sent.count("/api/UpdateCompany") == 1


def test_the_summary_tells_a_change_whose_write_was_sent_from_one_never_sent() -> None:
    # What a halted client raises: after a 5xx it was waiting to send again; never sent.
    client = FakeClient({"sent": [Halted(reached=True)], "never": [Halted()]})
    plan = plan_of(
        change("companies", "Sent", op("sent")),
        change("companies", "Never", op("never")),
    )

    async def scenario() -> ApplyReport:
        return await Executor(plan, helpdesk=client).run()

    report = asyncio.run(scenario())
    assert report.partial == ['companies["Sent"]']
    assert report.not_attempted == ['companies["Never"]']
    assert report.done == [] and not report.ok

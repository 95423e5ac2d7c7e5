"""The transport against the event loop's clock, which the test sets: an idle connection is
used again only while it has been idle for less than `keepalive_expiry` (so 0 never keeps
one, even on a clock that has not moved, as a coarse clock does not between two requests);
and a client without timeouts waits for its answer as long as it takes."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable

import httpx
import pytest

from reconciler.clients.transport import Transport
from tests.clients.rawserver import RawServer, Seen, answer, chunked


class SetClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock reads `now` until the test moves it."""

    now = 1000.0

    def time(self) -> float:
        return self.now


Steps = Callable[[SetClockLoop, httpx.AsyncClient, str], Awaitable[None]]


def on_set_clock(steps: Steps, expiry: float | None, timeout: float | None = 30.0) -> RawServer:
    async def main() -> RawServer:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, SetClockLoop)
        async with RawServer() as server:
            limits = httpx.Limits(max_connections=4, keepalive_expiry=expiry)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(transport=transport, timeout=timeout) as client:
                await steps(loop, client, server.url)
        return server

    with asyncio.Runner(loop_factory=SetClockLoop) as runner:
        return runner.run(main())


async def get(client: httpx.AsyncClient, url: str) -> None:
    assert (await client.get(f"{url}/api/a")).json() == {"echo": 0}


def test_an_expiry_of_zero_keeps_no_connection_even_on_a_clock_that_did_not_move() -> None:
    async def steps(loop: SetClockLoop, client: httpx.AsyncClient, url: str) -> None:
        for _ in range(3):
            await get(client, url)

    server = on_set_clock(steps, expiry=0)
    assert [s.connection for s in server.seen] == [0, 1, 2]


@pytest.mark.parametrize(
    ("idle", "connections"),
    [(4.999, [0, 0]), (5.0, [0, 1]), (7.5, [0, 1])],
    ids=["just-under", "at-expiry", "past"],
)
def test_an_idle_connection_is_used_again_only_within_its_expiry(
    idle: float, connections: list[int]
) -> None:
    async def steps(loop: SetClockLoop, client: httpx.AsyncClient, url: str) -> None:
        await get(client, url)
        loop.now += idle
        await get(client, url)

    server = on_set_clock(steps, expiry=5.0)
    assert [s.connection for s in server.seen] == connections


def test_the_default_expiry_is_five_seconds() -> None:
    async def steps(loop: SetClockLoop, client: httpx.AsyncClient, url: str) -> None:
        await get(client, url)
        loop.now += 4.9
        await get(client, url)  # kept
        loop.now += 5.0
        await get(client, url)  # expired

    server = on_set_clock(steps, expiry=None)
    assert [s.connection for s in server.seen] == [0, 0, 1]


def test_at_max_connections_the_connection_idle_longest_by_the_clock_is_closed() -> None:
    """Two origins idle, released at different times of the clock; a third origin needs a
    connection: the one idle longest goes, whichever origin was asked first."""

    async def main() -> tuple[RawServer, RawServer, RawServer]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, SetClockLoop)
        async with RawServer() as one, RawServer() as two, RawServer() as three:
            limits = httpx.Limits(max_connections=2, keepalive_expiry=60)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(transport=transport) as client:
                await get(client, two.url)
                await get(client, one.url)
                loop.now += 1
                await get(client, two.url)  # two is now the more recently used
                await get(client, three.url)  # one is closed for it
                await get(client, two.url)
                await get(client, one.url)
        return one, two, three

    with asyncio.Runner(loop_factory=SetClockLoop) as runner:
        one, two, three = runner.run(main())
    assert [s.connection for s in one.seen] == [0, 1]
    assert [s.connection for s in two.seen] == [0, 0, 0]
    assert [s.connection for s in three.seen] == [0]


async def slow(seen: Seen) -> bytes:
    for _ in range(20):
        await asyncio.sleep(0)
    return answer(200, chunked(b'{"a"', b": 1}"), "Transfer-Encoding: chunked", length=False)


def test_without_timeouts_an_answer_is_awaited_as_long_as_it_takes() -> None:
    async def main() -> httpx.Response:
        async with RawServer(slow) as server:
            transport = Transport(ssl.create_default_context(), httpx.Limits())
            async with httpx.AsyncClient(transport=transport, timeout=None) as client:
                return await client.get(f"{server.url}/api/a")

    assert asyncio.run(main()).json() == {"a": 1}

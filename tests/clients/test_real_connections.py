"""The clients over real connections: to the sandbox (a uvicorn process on 127.0.0.1),
many requests at once and a write whose connection dropped; and through a proxy named in
the environment (HTTP_PROXY, ALL_PROXY; NO_PROXY bypasses it), or refused with one line
when the proxy named is no usable URL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy, WorkspaceClient
from reconciler.errors import OutcomeUnknown, TransportFailure, UsageError
from reconciler.sandbox.process import SandboxProcess

PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def sandbox(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[SandboxProcess]:
    faults = getattr(request, "param", "")
    args = ["--rate-limit", "0", *(["--faults", faults] if faults else [])]
    with SandboxProcess(tmp_path / "sandbox.db", *args) as process:
        yield process


def client_of(sandbox: SandboxProcess, concurrency: int = 3) -> HelpdeskClient:
    return HelpdeskClient(
        sandbox.helpdesk_url,
        BasicAuth(*sandbox.auth),
        limits=RateLimits(general=0, search=0),
        retry=RetryPolicy(max_attempts=2, backoff_base=0.0),
        max_concurrency=concurrency,
    )


def test_the_clients_send_many_requests_at_once_to_the_sandbox(
    sandbox: SandboxProcess,
) -> None:
    async def run() -> None:
        async with client_of(sandbox, concurrency=3) as client:
            names = [f"Kept {n}" for n in range(12)]
            await asyncio.gather(
                *(client.request("POST", "Company", {"name": n}, write=True) for n in names)
            )
            listed = {c["Name"] for c in await client.companies()}
            assert set(names) <= listed
            assert client.calls == 1 + 12 + 1  # Authorization, the creates, the list

    asyncio.run(run())


@pytest.mark.parametrize("sandbox", ["drop=1.0"], indirect=True)
def test_a_write_whose_connection_dropped_is_not_sent_again(sandbox: SandboxProcess) -> None:
    # The sandbox carries the create out, then drops the connection without answering:
    # the request was sent, so the client does not send it again.
    async def run() -> None:
        async with client_of(sandbox) as client:
            with pytest.raises(OutcomeUnknown, match="may or may not have happened"):
                await client.request(
                    "POST", "Company", {"name": "Dropped"}, write=True, idempotent=False
                )
            names = [c["Name"] for c in await client.companies()]  # reads are not dropped
            assert names.count("Dropped") == 1
            assert client.calls_by_path["/api/Company"] == 1

    asyncio.run(run())


class _Proxy:
    """A forward proxy on 127.0.0.1 that answers every request itself with an empty JSON
    list, keeping each request line it was sent."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while head := await reader.readuntil(b"\r\n\r\n"):
            self.lines.append(head.split(b"\r\n", 1)[0].decode("ascii"))
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            writer.write(b"Content-Length: 2\r\n\r\n[]")
            await writer.drain()
            if reader.at_eof():
                break
        writer.close()


def _employees(url: str) -> list[object]:
    async def run() -> list[object]:
        retry = RetryPolicy(max_attempts=1, sleep=_no_wait)
        async with WorkspaceClient(url, "key", retry=retry) as client:
            return list(await client.employees())

    return asyncio.run(run())


async def _no_wait(seconds: float) -> None:
    return None


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
def test_a_proxy_named_in_the_environment_carries_the_requests(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    proxy = _Proxy()

    async def through_proxy() -> list[object]:
        async with proxy as address:
            monkeypatch.setenv(variable, address)
            return await asyncio.to_thread(_employees, "http://ws.invalid/v2")

    assert asyncio.run(through_proxy()) == []
    assert proxy.lines == ["GET http://ws.invalid/v2/api/employees HTTP/1.1"]


def test_no_proxy_naming_the_host_sends_its_requests_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proxy = _Proxy()

    async def bypassing() -> None:
        async with proxy as address:
            monkeypatch.setenv("HTTP_PROXY", address)
            monkeypatch.setenv("NO_PROXY", "ws.invalid")
            with pytest.raises(TransportFailure, match=r"ws\.invalid:80: the host name does not"):
                await asyncio.to_thread(_employees, "http://ws.invalid/v2")

    asyncio.run(bypassing())
    assert proxy.lines == []


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("ftp://user:hunter2@proxy.example", "Unknown scheme for proxy URL"),
        ("http://proxy.example:port", "Invalid port"),
    ],
)
def test_a_proxy_that_is_no_usable_url_is_one_line_without_its_password(
    monkeypatch: pytest.MonkeyPatch, value: str, reason: str
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", value)
    with pytest.raises(UsageError) as refused:
        WorkspaceClient("https://ws.example.com", "key")
    message = str(refused.value)
    assert message.startswith("the proxy settings in the environment are not usable: ")
    assert reason in message
    assert "hunter2" not in message and "\n" not in message

"""The retry loop both clients share (DESIGN §5).

One `Sender.send` is one logical request. For each attempt it passes the throttle gate,
takes a slot of the concurrency semaphore and of the rate limiter, and sends; then it
classifies the answer:

    401/403          AuthenticationError at once, never retried (three failures block the IP)
    3xx              ApiError: redirects are not followed, the credentials would go along
    429              wait `Retry-After` (or, without one, until the rate window can have
                     freed: retry.py) and send again; not a failure until the waits
                     exceed `max_throttle_wait`
    5xx, no answer   reads and idempotent writes: back off and retry up to `max_attempts`
                     (and for at most `retry_for` s after the first failure),
                     then TransportFailure (reads) or ApiError (writes);
                     a non-idempotent write: OutcomeUnknown at once (it may have happened)
    other 4xx        ApiError with the API's own message

`halt()` (an interrupted apply) makes every request not yet sent raise `Halted` instead:
one waiting for the rate limiter, a `429` pause or a free slot gives up at once; one
already sent is left to finish, so its answer is not lost.

A connection that could not even be opened (connect error, connect or pool timeout) sent
nothing, so it is retried for every kind of request, creates included. But a service that
cannot be reached at all (connection refused, a host name that does not resolve, a
failed TLS handshake: `answers.py`) is reported within seconds, naming its host and
port, after at most one quick retry.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from reconciler.clients import activity
from reconciler.clients.answers import (
    MAX_ANSWER_BYTES,
    QUICK_RETRY,
    RETRIED,
    AnswerTooLarge,
    host_and_port,
    receive,
    unreachable,
    unreachable_message,
)
from reconciler.clients.parsing import error_message
from reconciler.clients.ratelimit import GENERAL, SEARCH, RateLimiter, ThrottleGate
from reconciler.clients.retry import RetryPolicy
from reconciler.errors import ApiError, AuthenticationError, OutcomeUnknown, TransportFailure

T = TypeVar("T")
log = logging.getLogger("reconciler.clients")

AUTH_FAILURES = (401, 403)


class Halted(Exception):
    """The client was halted (`Sender.halt`) before this request was sent again: nothing
    of it reached the service, unless `reached`: an earlier attempt was answered with a
    5xx or not at all, so the service may have carried it out (an interrupted apply
    reports that change as stopped partway, not as not attempted)."""

    def __init__(self, reached: bool = False) -> None:
        super().__init__()
        self.reached = reached


# The request never left the client: safe to send again whatever it was.
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class Sender:
    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        auth_headers: Callable[[], dict[str, str]],
        retry: RetryPolicy,
        limiter: RateLimiter | None,
        max_concurrency: int,
        service: str,
        deadline: float | None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.http = http
        self.service = service  # "helpdesk" or "workspace", for messages
        self.retry = retry
        # Seconds one attempt's whole answer may take (None: only httpx's per-read
        # timeouts: answers.py).
        self.deadline = deadline
        self._auth_headers = auth_headers
        self._limiter = limiter
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._gate = ThrottleGate()
        self._halted = asyncio.Event()
        self._waiting: set[asyncio.Task[Any]] = set()  # tasks waiting to send
        self.calls = 0
        self.calls_by_path: Counter[str] = Counter()
        # Seconds the calls waited for the client-side rate limiter (added up over tasks
        # that waited at once): why a plan took longer than its calls did.
        self.rate_limited = 0.0
        # When this client's calls of the last rate window started, per bucket: a 429
        # without Retry-After is waited out from the first of them.
        self._starts: dict[str, deque[float]] = {GENERAL: deque(), SEARCH: deque()}

    async def send(
        self,
        method: str,
        url: str | httpx.URL,
        *,
        label: str,
        write: bool,
        idempotent: bool,
        bucket: str = GENERAL,
        params: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        json_body: Any = None,
    ) -> httpx.Response:
        """Send until there is an answer to return or a reason to give up. `label` is the
        path shown in errors and logs (`/api/Users`, never a query string or a secret)."""
        call = _Call(method, label, write, idempotent, bucket)
        try:
            return await self._send(call, url, params, data, json_body)
        except Halted:
            raise Halted(reached=call.reached) from None

    async def _send(
        self,
        call: _Call,
        url: str | httpx.URL,
        params: Mapping[str, Any] | None,
        data: Mapping[str, Any] | None,
        json_body: Any,
    ) -> httpx.Response:
        method, label = call.method, call.label
        while True:
            request = self.http.build_request(
                method,
                url,
                params=params,
                data=data or None,
                json=json_body,
                headers=self._auth_headers(),
            )
            try:
                response = await self._attempt(request, label, call.bucket)
            except httpx.UnsupportedProtocol as exc:
                raise TransportFailure(f"{method} {label}: {exc}") from None
            except AnswerTooLarge:
                # Not retried: it would be as large again.
                what = (
                    f"the {self.service}'s answer from {host_and_port(request.url)} is larger "
                    f"than {MAX_ANSWER_BYTES >> 20} MiB, the most one answer may hold: refused"
                )
                if call.write and not call.idempotent:
                    raise OutcomeUnknown(None, method, label, f"{what}; {_MAYBE_DONE}") from None
                raise call.error(what) from None
            except httpx.TransportError as exc:
                await self._after_transport_error(call, request, exc)
                continue
            if await self._is_final(call, request, response):
                return response

    async def _after_transport_error(
        self, call: _Call, request: httpx.Request, exc: httpx.TransportError
    ) -> None:
        """No answer: raise, or wait before the next attempt."""
        what = _describe(exc, self.deadline)
        kind = unreachable(exc)
        if not isinstance(exc, _NEVER_SENT):
            call.reached = True  # sent, and no answer: it may have been carried out
        if kind is not None:
            call.failures += 1
            if kind not in RETRIED or call.failures > 1:
                raise TransportFailure(
                    unreachable_message(self.service, request.url, kind, what)
                ) from None
            await self.retry.sleep(QUICK_RETRY)
            return
        if not call.idempotent and not isinstance(exc, _NEVER_SENT):
            raise OutcomeUnknown(
                None, call.method, call.label, f"no answer ({what}); {_MAYBE_DONE}"
            ) from None
        await self._count_failure(call, request, what)

    async def _is_final(
        self, call: _Call, request: httpx.Request, response: httpx.Response
    ) -> bool:
        """True for an answer to return; raises for one that ends the request; False
        (after waiting) when the request is to be sent again."""
        status = response.status_code
        method, label = call.method, call.label
        if status in AUTH_FAILURES:
            raise AuthenticationError(status, method, label, error_message(response))
        if status == 429:
            await self._wait_out_throttling(call, response)
            return False
        if status >= 500:
            call.reached = True  # the service had it: it may have carried it out
            if not call.idempotent:  # ApiError shows the status before the message
                raise OutcomeUnknown(
                    status, method, label, f"{error_message(response)}; {_MAYBE_DONE}"
                )
            await self._count_failure(call, request, f"{status} {error_message(response)}")
            return False
        if status >= 400:
            raise ApiError(status, method, label, error_message(response))
        if status >= 300:
            # Redirects are not followed: the credentials would travel with them.
            where = response.headers.get("location", "elsewhere")
            raise ApiError(status, method, label, f"redirected to {where}: check the service's URL")
        return True

    async def _wait_out_throttling(self, call: _Call, response: httpx.Response) -> None:
        """A `429`: wait as the policy says, with every other request of this client held
        at the gate; raise once the waits would exceed `max_throttle_wait`."""
        policy = self.retry
        call.probes += 1
        wait = policy.throttle(
            response, window_age=self._window_age(call.bucket), probe=call.probes
        )
        if call.throttled + wait > policy.max_throttle_wait:
            raise ApiError(
                429,
                call.method,
                call.label,
                f"{error_message(response)} (still rate limited after waiting "
                f"{call.throttled:.0f} s)",
            )
        call.throttled += wait
        log.info("%s %s: rate limited (429), waiting %.1f s", call.method, call.label, wait)
        activity.waiting(wait, activity.THROTTLED)
        async with self._gate.closed():
            await self._unless_halted(policy.sleep(wait))

    async def _count_failure(self, call: _Call, request: httpx.Request, what: str) -> None:
        """A failed attempt that may be retried: give up after `max_attempts`, or once
        `retry_for` seconds have passed since the first failure; else back off. The error
        given up with has no status of its own: `what` names the last attempt's."""
        policy = self.retry
        now = policy.clock()
        if call.first_failure is None:
            call.first_failure = now
        call.failures += 1
        if call.failures >= policy.max_attempts or now - call.first_failure >= policy.retry_for:
            raise call.error(
                f"no usable answer from {host_and_port(request.url)} after {call.failures} "
                f"attempt{'s' if call.failures > 1 else ''} (last: {what})",
            ) from None
        wait = policy.backoff(call.failures)
        log.info(
            "%s %s: %s; retrying in %.1f s (attempt %d of %d)",
            call.method,
            call.label,
            what,
            wait,
            call.failures + 1,
            policy.max_attempts,
        )
        await self._unless_halted(policy.sleep(wait))

    def halt(self) -> None:
        """Send nothing more: requests not yet sent raise `Halted`."""
        self._halted.set()
        for task in self._waiting:
            task.cancel()

    async def _unless_halted(self, waiting: Awaitable[T]) -> T:
        """Await `waiting` in this task (no extra hop, so the rate limiter's clock stays
        exact), or raise `Halted` as soon as the client is halted: `halt` cancels the
        waiting tasks, and that cancellation becomes `Halted` here. A task waits here only
        while the client is not halted (it is refused at once after), so a cancellation met
        once halted is the halt's; one met before is the caller's own, and is raised."""
        if self._halted.is_set():
            if asyncio.iscoroutine(waiting):
                waiting.close()
            raise Halted()
        task = asyncio.current_task()
        assert task is not None
        self._waiting.add(task)
        try:
            return await waiting
        except asyncio.CancelledError:
            if not self._halted.is_set():
                raise
            task.uncancel()
            raise Halted() from None
        finally:
            self._waiting.discard(task)

    async def _attempt(self, request: httpx.Request, label: str, bucket: str) -> httpx.Response:
        if self._halted.is_set() or not self._gate.is_open:
            await self._unless_halted(self._gate.wait_open())
        async with self._semaphore:
            # The rate slot is taken inside the semaphore, right before sending, so that
            # the limiter's clock and the server's agree on when the call happened.
            if self._limiter is not None and self._limiter.limited(bucket):
                waited = await self._unless_halted(self._limiter.acquire(bucket))
                if waited:
                    self.rate_limited += waited
                    log.info("%s: waited %.1f s for the rate limit (%s)", label, waited, bucket)
            if self._halted.is_set():
                raise Halted()
            self.calls += 1
            self.calls_by_path[label] += 1
            self._window_age(bucket, started=True)
            with activity.sending(self.service, request.method, label):
                response = await receive(self.http, request, deadline=self.deadline)
        log.debug("%s %s -> %s", request.method, label, response.status_code)
        return response

    def _window_age(self, bucket: str, *, started: bool = False) -> float:
        """Seconds since this client's first call in the last rate window started;
        `started` records a call starting now."""
        starts = self._starts[SEARCH if bucket == SEARCH else GENERAL]
        now = self.retry.clock()
        window = self.retry.rate_window * (1.0 + self.retry.rate_margin)
        while starts and starts[0] <= now - window:
            starts.popleft()
        if started:
            starts.append(now)
        return now - starts[0] if starts else 0.0


@dataclass
class _Call:
    """One logical request and what its attempts so far have cost."""

    method: str
    label: str
    write: bool
    idempotent: bool
    bucket: str
    failures: int = 0  # attempts that failed (5xx, no answer)
    throttled: float = 0.0  # seconds waited for 429s
    probes: int = 0  # 429s answered so far
    first_failure: float | None = None  # when (retry.clock) an attempt first failed
    reached: bool = False  # an attempt was sent and got a 5xx or no answer

    def error(self, message: str) -> ApiError | TransportFailure:
        """The failure of a request given up on: a write's is an API error; a read's a
        transport failure (the service, not the request, is at fault)."""
        if self.write:
            return ApiError(None, self.method, self.label, message)
        return TransportFailure(f"{self.method} {self.label}: {message}")


_MAYBE_DONE = "the write may or may not have happened: re-read before trying again"


def _describe(exc: httpx.TransportError, deadline: float | None) -> str:
    if isinstance(exc, httpx.TimeoutException):  # httpx's own text is empty or vague
        bound = f"{deadline:g} s, " if deadline is not None else ""
        return f"{type(exc).__name__}: no answer within the timeout ({bound}--timeout SECONDS)"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

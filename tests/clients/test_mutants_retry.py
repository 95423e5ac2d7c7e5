"""What a client's secrets and policies promise its users, at their edges: every
credential a client is given is masked in any output from then on; a single attempt is
a valid retry policy; a `429` without `Retry-After` waits the widened window; a call
opens its connection within min(SECONDS, 10)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from reconciler import masking
from reconciler.clients import BasicAuth, BearerAuth, RetryPolicy
from reconciler.clients.auth import ApiKey
from reconciler.clients.connection import Timeouts


@pytest.mark.parametrize(
    ("make", "secret"),
    [
        (lambda: ApiKey("ws-key-mask-41"), "ws-key-mask-41"),
        (lambda: BearerAuth("bearer-mask-42"), "bearer-mask-42"),
        (lambda: BasicAuth("admin", "basic-mask-43"), "basic-mask-43"),
    ],
    ids=["api-key", "bearer", "basic"],
)
def test_a_credential_given_to_a_client_is_masked_in_every_output(
    make: Callable[[], object], secret: str
) -> None:
    make()
    assert masking.mask(f"failed with {secret} in it") == "failed with *** in it"


def test_one_attempt_is_a_policy_and_none_is_refused() -> None:
    assert RetryPolicy(max_attempts=1).max_attempts == 1
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0)


@pytest.mark.parametrize(
    ("age", "probe", "wait"),
    [(0.0, 1, 61.2), (60.0, 1, 1.2), (61.0, 1, 1.0), (61.0, 3, 4.0), (0.0, 9, 61.2)],
)
def test_a_429_without_retry_after_waits_for_the_widened_window_to_free(
    age: float, probe: int, wait: float
) -> None:
    policy = RetryPolicy(rate_window=60.0, rate_margin=0.02)
    assert policy.throttle(httpx.Response(429), window_age=age, probe=probe) == pytest.approx(wait)


@pytest.mark.parametrize(("seconds", "connect"), [(60.0, 10.0), (4.0, 4.0)])
def test_a_call_opens_its_connection_within_the_lesser_of_its_timeout_and_10_s(
    seconds: float, connect: float
) -> None:
    timeout = Timeouts(seconds).http()
    assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (
        connect,
        seconds,
        seconds,
        seconds,
    )

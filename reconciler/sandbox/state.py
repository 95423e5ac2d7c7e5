"""Everything one sandbox instance holds: store, configuration, limiters, request log; the
limiters (rate limits per credential and the three-strike IP block, both on an injectable
clock) and the injected faults (a seeded generator decides, per request, what goes wrong).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from reconciler.sandbox.config import FaultConfig, SandboxConfig
from reconciler.sandbox.store import Store


@dataclass
class SlidingWindowLimiter:
    """At most `limit` calls per `window` seconds for each key; `limit` 0 means no limit."""

    clock: Callable[[], float]
    window: float = 60.0
    _calls: dict[tuple[str, str], deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def acquire_all(self, key: str, limits: dict[str, int]) -> float:
        """One call counted in every bucket of `limits` (bucket -> limit), or in none:
        the seconds to wait when any bucket is full (0 when the call was recorded)."""
        now = self.clock()
        with self._lock:
            windows = []
            wait = 0.0
            for bucket, limit in limits.items():
                if limit <= 0:
                    continue
                calls = self._calls.setdefault((key, bucket), deque())
                while calls and calls[0] <= now - self.window:
                    calls.popleft()
                if len(calls) >= limit:
                    wait = max(wait, 0.001, calls[0] + self.window - now)
                windows.append(calls)
            if wait:
                return wait
            for calls in windows:
                calls.append(now)
            return 0.0

    def reset(self) -> None:
        with self._lock:
            self._calls.clear()


@dataclass
class LoginGuard:
    """Counts consecutive failed logins per IP; the third blocks the IP for `block_seconds`."""

    clock: Callable[[], float]
    max_failures: int = 3
    block_seconds: float = 300.0
    _failures: dict[str, int] = field(default_factory=dict)
    _blocked_until: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def blocked_for(self, ip: str) -> int:
        """Whole seconds the IP stays blocked (0 when it is not blocked)."""
        with self._lock:
            until = self._blocked_until.get(ip)
            if until is None:
                return 0
            remaining = until - self.clock()
            if remaining <= 0:
                del self._blocked_until[ip]
                return 0
            return max(1, math.ceil(remaining))

    def failed(self, ip: str) -> None:
        with self._lock:
            count = self._failures.get(ip, 0) + 1
            if count >= self.max_failures:
                self._blocked_until[ip] = self.clock() + self.block_seconds
                count = 0
            self._failures[ip] = count

    def succeeded(self, ip: str) -> None:
        with self._lock:
            self._failures.pop(ip, None)

    def reset(self) -> None:
        with self._lock:
            self._failures.clear()
            self._blocked_until.clear()


@dataclass(frozen=True)
class FaultDecision:
    error: bool = False  # answer 500 without doing anything
    drop: bool = False  # do the write, then drop the connection
    delay: float = 0.0  # answer after this many seconds
    throttled_for: float = 0.0  # answer 429; seconds left in the 429 stretch


class FaultInjector:
    def __init__(self, config: FaultConfig, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.configure(config)

    def configure(self, config: FaultConfig) -> None:
        with self._lock:
            self.config = config
            self._random = random.Random(config.seed)
            self._armed_at = self._clock()

    def decide(self, is_write: bool) -> FaultDecision:
        cfg = self.config
        if not cfg.active:
            return FaultDecision()
        with self._lock:
            elapsed = self._clock() - self._armed_at
            if (
                cfg.throttle_for
                and cfg.throttle_after <= elapsed < cfg.throttle_after + cfg.throttle_for
            ):
                return FaultDecision(throttled_for=cfg.throttle_after + cfg.throttle_for - elapsed)
            # Draw every number on every request so a seed gives one sequence of faults.
            error, drop, slow = (self._random.random() for _ in range(3))
        return FaultDecision(
            error=error < cfg.error_rate,
            drop=is_write and drop < cfg.drop_rate,
            delay=cfg.slow_seconds if slow < cfg.slow_rate else 0.0,
        )


class SandboxState:
    def __init__(
        self,
        store: Store | None = None,
        config: SandboxConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store or Store(None)
        self.config = config or SandboxConfig()
        self._wall_clock = wall_clock or (lambda: datetime.now(UTC))
        self.limiter = SlidingWindowLimiter(clock=clock, window=self.config.rate_window)
        self.logins = LoginGuard(
            clock=clock,
            max_failures=self.config.failed_logins_to_block,
            block_seconds=self.config.block_seconds,
        )
        self.faults = FaultInjector(self.config.faults, clock)
        self.requests: deque[dict[str, Any]] = deque(maxlen=self.config.request_log_size)
        self._request_seq = 0
        self._log_lock = threading.Lock()

    def timestamp(self) -> str:
        """ISO 8601 in UTC with a trailing Z, as the helpdesk writes timestamps."""
        return self._wall_clock().strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    def log_request(self, entry: dict[str, Any]) -> None:
        with self._log_lock:
            self._request_seq += 1
            self.requests.append({"seq": self._request_seq, **entry})

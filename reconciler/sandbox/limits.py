"""Rate limits per credential and the three-strike IP block, both on an injectable clock."""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


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

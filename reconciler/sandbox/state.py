"""Everything one sandbox instance holds: store, configuration, limiters, request log."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.faults import FaultInjector
from reconciler.sandbox.limits import LoginGuard, SlidingWindowLimiter
from reconciler.sandbox.store import Store


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
        self.clock = clock
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

    def now(self) -> datetime:
        return self._wall_clock()

    def timestamp(self) -> str:
        """ISO 8601 in UTC with a trailing Z, as the helpdesk writes timestamps."""
        return self.now().strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    def log_request(self, entry: dict[str, Any]) -> None:
        with self._log_lock:
            self._request_seq += 1
            self.requests.append({"seq": self._request_seq, **entry})

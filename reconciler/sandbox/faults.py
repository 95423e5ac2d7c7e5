"""Injected faults: a seeded generator decides, per request, what goes wrong."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass

from reconciler.sandbox.config import FaultConfig


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

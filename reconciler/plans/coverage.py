"""The plan's coverage figures (issue 12, item 6), as data: per managed kind read in full,
how many live objects there are, how many the manifests manage, and the keys of the
others. Computed by `reconciler.live.coverage` from what was read; carried by `Plan`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The plan's JSON keys `Coverage.to_dict` gives.
COVERAGE_KEYS = ("unmanaged", "coverage", "not_read_in_full")


@dataclass(frozen=True)
class KindCoverage:
    """Of a kind read in full: its live objects (as counted above), how many of them the
    manifests manage, and the keys of the others as the live state spells them."""

    live: int
    managed: int
    unmanaged: tuple[str, ...] = ()

    @property
    def percent(self) -> float:
        """Managed of live, rounded down to a tenth (never 100.0 with one unmanaged)."""
        return 100.0 if not self.live else math.floor(1000 * self.managed / self.live) / 10

    def to_dict(self) -> dict[str, Any]:
        return {"live": self.live, "managed": self.managed, "percent": self.percent}


@dataclass(frozen=True)
class Coverage:
    """Per managed kind read in full, its `KindCoverage` (in the order of the kinds);
    the managed kinds not read in full, each with why."""

    kinds: Mapping[str, KindCoverage] = field(default_factory=dict)
    not_read_in_full: Mapping[str, str] = field(default_factory=dict)

    @property
    def unmanaged_count(self) -> int:
        return sum(len(c.unmanaged) for c in self.kinds.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "unmanaged": {kind: list(c.unmanaged) for kind, c in self.kinds.items()},
            "coverage": {kind: c.to_dict() for kind, c in self.kinds.items()},
            "not_read_in_full": dict(self.not_read_in_full),
        }

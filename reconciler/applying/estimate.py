"""How long API calls take within a rate budget: the estimate `apply` prints before it
executes, and the ETA of its progress. Pure arithmetic, no I/O.

The helpdesk allows `per_minute` calls a minute (a sliding window, clients/ratelimit.py);
the workspace service has no limit, so its calls count only as calls. Time spent
waiting for answers is not counted: within a budget of 90 calls a minute the budget,
not the network, is what makes a long run long."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.plans import Plan


@dataclass(frozen=True)
class Estimate:
    helpdesk_calls: int
    workspace_calls: int
    seconds: float  # at the helpdesk's rate; 0 when it has no limit

    @property
    def calls(self) -> int:
        return self.helpdesk_calls + self.workspace_calls


def budget_seconds(calls: int, per_minute: int, used: int = 0) -> float:
    """Seconds until the last of `calls` calls may start at `per_minute` a minute, when
    `used` calls of the current minute are spent already (0 without a limit). The
    limit is a sliding window: a minute's calls start at once, the next ones when the
    window has moved a minute on."""
    if per_minute <= 0 or calls <= 0:
        return 0.0
    return ((calls + min(used, per_minute) - 1) // per_minute) * 60.0


def estimate(plan: Plan, per_minute: int) -> Estimate:
    """Every operation `apply` sends counts: the changes' and the asserted ones'."""
    helpdesk = sum(1 for c in plan.to_apply for o in c.operations if o.service == "helpdesk")
    workspace = plan.operation_count - helpdesk
    return Estimate(helpdesk, workspace, budget_seconds(helpdesk, per_minute))


def duration_text(seconds: float) -> str:
    """`under a minute`, `about 4 min`, `about 1 h 20 min`."""
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60:02d} min"


def estimate_text(found: Estimate, per_minute: int) -> str:
    calls = f"{found.calls:,} API call{'s' if found.calls != 1 else ''}"
    if found.helpdesk_calls and per_minute > 0:
        return (
            f"{calls}; at the helpdesk's {per_minute} calls a minute this takes "
            f"{duration_text(found.seconds)}."
        )
    return f"{calls}; no rate limit applies."

"""Clients of the two APIs (DESIGN §3, §5), built on httpx's async client.

    HelpdeskClient   the helpdesk: Basic/Bearer, one `Authorization` first, form
                     parameters, paging of `Users`/`Assets`, client-side rate limit
    WorkspaceClient  the workspace service: `X-API-Key`, bare or enveloped lists
    RateLimits       calls per window per bucket (`0` switches a bucket off)
    RetryPolicy      attempts, backoff, `429` waits; injectable sleep for tests

Both clients retry reads and idempotent writes, wait out `429`s, stop at the first
`401`/`403`, raise `OutcomeUnknown` for a create whose answer was lost, and, when built
`read_only=True` (as `plan` does), raise `ReadOnlyViolation` for any write. The transport
is the seam for tests: `httpx.ASGITransport(app=create_app(state))` reaches the sandbox
in-process.
"""

from __future__ import annotations

from reconciler.clients.auth import ApiKey, BasicAuth, BearerAuth, HelpdeskAuth, Secret
from reconciler.clients.helpdesk import ASSETS_PAGE_SIZE, USERS_PAGE_SIZE, HelpdeskClient
from reconciler.clients.parsing import RuleInfo, created_id, parse_rule
from reconciler.clients.ratelimit import RateLimits
from reconciler.clients.retry import RetryPolicy
from reconciler.clients.sender import Halted
from reconciler.clients.workspace import WorkspaceClient

__all__ = [
    "ASSETS_PAGE_SIZE",
    "USERS_PAGE_SIZE",
    "ApiKey",
    "BasicAuth",
    "BearerAuth",
    "Halted",
    "HelpdeskAuth",
    "HelpdeskClient",
    "RateLimits",
    "RetryPolicy",
    "RuleInfo",
    "Secret",
    "WorkspaceClient",
    "created_id",
    "parse_rule",
]

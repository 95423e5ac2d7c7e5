"""Initial content of a sandbox (placeholder; replaced by the seed loader)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from reconciler.sandbox import records
from reconciler.sandbox.state import SandboxState


@dataclass(frozen=True)
class Credentials:
    helpdesk_username: str
    helpdesk_password: str
    helpdesk_token: str
    workspace_api_key: str


def initialise(state: SandboxState, seed: Path | None) -> Credentials:
    store = state.store
    password = secrets.token_urlsafe(12)
    token = records.new_token()
    key = secrets.token_urlsafe(24)
    store.insert(
        "users",
        records.user("admin", "admin@example.com", password=password, token=token, role="admin"),
    )
    store.insert("ws_api_keys", {"key": key, "name": "sandbox"})
    return Credentials("admin", password, token, key)

"""Handlers of the helpdesk API, one module per area; importing a module registers it."""

from __future__ import annotations

import importlib

MODULES = (
    "general",
    "companies",
    "users",
    "user_writes",
    "categories",
    "tech_permissions",
    "custom_fields",
    "assets",
    "rules",
)


def load_endpoints() -> None:
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")

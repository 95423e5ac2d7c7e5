"""Handlers of the helpdesk API, one module per area; importing a module registers it."""

from __future__ import annotations

import importlib

MODULES = (
    "general",
    "companies",
    "users",
    "user_writes",
    "user_removal",
    "categories",
    "tech_permissions",
    "custom_fields",
    "assets",
    "rules",
    "tickets",
    "ticket_files",
    "ticket_render",
    "ticket_crud",
    "ticket_list",
    "ticket_relations",
    "attachments",
    "knowledge_base",
    "comments",
)


def load_endpoints() -> None:
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")

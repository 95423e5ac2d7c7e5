"""`reconciler export` with only the workspace service configured (export/run.py): the
helpdesk's kinds are skipped with one warning naming them, the employees exported, the
source shown as its base URL; with nothing it can export, a usage error saying why."""

from __future__ import annotations

import asyncio

import pytest

from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, RateSettings, WorkspaceConnection
from reconciler.errors import UsageError
from reconciler.export import ExportResult, Selection, export_live
from tests.export.sandbox import seeded, transport

WORKSPACE = "http://127.0.0.1:8080/workspace/"
HELPDESK_KINDS = "companies, departments, categories, users, tech_permissions, assets"


def _export(selection: Selection) -> ExportResult:
    state, credentials = seeded()
    connection = Connection(
        None,
        WorkspaceConnection(WORKSPACE, Secret(credentials.workspace_api_key)),
        RateSettings(0, 0),
    )
    return asyncio.run(export_live(connection, selection, transport=transport(state)))


def test_the_helpdesk_kinds_are_skipped_with_one_warning() -> None:
    result = _export(Selection.build())
    assert list(result.entries) == ["workspace.employees"]
    assert result.entries["workspace.employees"]
    assert result.warnings[0] == f"{HELPDESK_KINDS} skipped: the helpdesk service is not configured"
    assert dict(result.sources) == {"workspace": "http://127.0.0.1:8080/workspace"}
    text = result.files()["workspace.yaml"]
    assert "# Exported by `reconciler export` from http://127.0.0.1:8080/workspace at " in text


def test_nothing_to_export_says_which_services_are_missing() -> None:
    with pytest.raises(UsageError) as refused:
        _export(Selection.build(kinds=["users", "assets"]))
    assert str(refused.value) == (
        "nothing to export: the services of the kinds asked for are not configured "
        "(users, assets skipped: the helpdesk service is not configured)"
    )

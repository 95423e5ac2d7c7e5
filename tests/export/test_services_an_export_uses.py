"""Which services `reconciler export` signs in to (run/export.py). With only the
workspace service configured, the helpdesk's kinds are skipped with one warning naming
them, the employees exported, the source shown as its base URL; with nothing it can
export, a usage error saying why."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from reconciler.clients.auth import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    WorkspaceConnection,
)
from reconciler.errors import AuthenticationError, UsageError
from reconciler.export.result import ExportResult
from reconciler.export.selection import Selection
from reconciler.run.export import export_live
from tests.export.sandbox import HELPDESK_URL, connection, seeded, transport

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


# `reconciler export` with both services configured and a technician's helpdesk token
# (run/export.py): any selection with a helpdesk kind is refused on the `Authorization` answer,
# naming the account, before any other request; a selection of workspace kinds only never signs in
# to the helpdesk and is exported.


@pytest.mark.parametrize(
    "kinds",
    [["companies"], ["users", "assets"], ["departments", "workspace.employees"]],
)
def test_a_technician_exporting_helpdesk_kinds_is_refused_on_its_one_request(
    kinds: list[str],
) -> None:
    state, credentials = seeded()
    technician = next(
        u
        for u in state.store.rows("users")
        if u["is_tech"] and not u["is_admin"] and not u["disabled"]
    )
    as_technician = replace(
        connection(credentials),
        helpdesk=HelpdeskConnection(HELPDESK_URL, token=Secret(technician["token"])),
    )
    with pytest.raises(AuthenticationError) as refused:
        asyncio.run(
            export_live(as_technician, Selection.build(kinds=kinds), transport=transport(state))
        )
    assert str(refused.value) == (
        f"POST /api/Authorization failed: 403 the helpdesk account "
        f"'{technician['username']}' is not an administrator: reconciler needs an "
        "administrator's token (or username and password)"
    )
    assert [r["path"] for r in state.requests] == ["/helpdesk/api/Authorization"]


def test_workspace_kinds_only_never_sign_in_to_the_helpdesk() -> None:
    state, credentials = seeded()
    as_nobody = replace(
        connection(credentials),
        helpdesk=HelpdeskConnection(HELPDESK_URL, token=Secret("0" * 32)),
    )
    result = asyncio.run(
        export_live(
            as_nobody, Selection.build(kinds=["workspace.employees"]), transport=transport(state)
        )
    )
    assert list(result.entries) == ["workspace.employees"]
    assert result.entries["workspace.employees"]
    assert {r["path"].split("/")[1] for r in state.requests} == {"workspace"}


def test_the_progress_names_each_kind_exported_never_a_lookup() -> None:
    """Assets are converted with the companies and users they name, read too; the
    progress display shows only the kinds asked for, each once."""
    state, credentials = seeded()
    seen: list[str] = []
    result = asyncio.run(
        export_live(
            connection(credentials),
            Selection.build(kinds=["assets", "workspace.employees"]),
            on_read=seen.append,
            transport=transport(state),
        )
    )
    assert sorted(seen) == ["assets", "workspace.employees"]
    assert list(result.entries) == ["assets", "workspace.employees"]

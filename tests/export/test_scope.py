"""`export --scope-from`: an export of a shared helpdesk writes the scope the manifests
declare (`settings.scope`), read through the same filters as a plan, and nothing else:
no customer, no discovered asset, no client company. Their `settings.ownership` marker
field is left out of the entries: it is the ownership's to set."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.export.selection import Selection
from reconciler.run.export import export_live
from tests.export.sandbox import ROOT, connection, seeded, transport

SHARED = ROOT / "examples" / "shared"
SHARED_SEED = ROOT / "reconciler" / "sandbox" / "seeds" / "shared.yaml"


def test_an_export_from_a_scope_writes_only_the_scope() -> None:
    state, credentials = seeded(seed=SHARED_SEED)
    selection = Selection.build(kinds=["companies", "users", "assets"], scope_from=SHARED)
    result = asyncio.run(
        export_live(connection(credentials, workspace=False), selection, transport=transport(state))
    )
    companies = {str(c["name"]) for c in result.entries["companies"]}
    users = [str(u["username"]) for u in result.entries["users"]]
    assets = [str(a["serial_number"]) for a in result.entries["assets"]]
    assert companies == {"Acme Corp", "Acme Robotics", "Acme Field Services"}
    assert users and not any(name.startswith("customer") for name in users)
    assert assets and not any(serial.startswith("DISC") for serial in assets)
    kim = next(u for u in result.entries["users"] if u["username"] == "kim")
    assert "Managed by" not in (kim.get("custom_fields") or {})  # marked live


def test_scope_from_manifests_that_do_not_load_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text("settings: {scope: {users: {list_mode: everyone}}}\n", encoding="utf-8")
    with pytest.raises(ManifestError) as refused:
        Selection.build(scope_from=bad)
    assert refused.value.problems == [
        f"{bad}:1:39: settings.scope.users.list_mode: unknown list mode 'everyone' (the API's "
        "list modes: all, techs, admins or regular)"
    ]

"""Renames keep identity, end to end (docs/renaming.md): the CLI in a child process against
`reconciler sandbox serve` on a free loopback port, after `apply examples/acme`.

For each renamable kind: rename an object and every reference to it, with `previously:`;
the plan is one update `(was ...)`; apply keeps the id, creates and deletes nothing, the
references follow; the next plan has no changes. And the issue's scenario: a username
changed without `previously:` is a plan error with the line to add, and its apply makes
no write call at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_apply_cli import (
    Sandbox,
    Start,
    assert_no_changes,
    cli,
    converge,
    edit,
    entry,
    start,
    workdir,
)

pytestmark = pytest.mark.e2e
__all__ = ["start", "workdir"]  # the fixtures, used by name


def _rename_values(data: Any, old: str, new: str) -> None:
    """Every string value `old` in a loaded manifest becomes `new` (references)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str) and value == old:
                data[key] = new
            else:
                _rename_values(value, old, new)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            if isinstance(value, str) and value == old:
                data[index] = new
            else:
                _rename_values(value, old, new)


def _rename(
    acme: Path, file: str, kind_path: tuple[str, ...], field: str, old: str, new: str
) -> None:
    """The key and every reference to it renamed; `previously: [old]` on the entry. An
    employee's key (an e-mail) is renamed in its entry only: the user of the same person,
    a separate object, keeps its e-mail."""
    files = [acme / file] if kind_path[0] == "workspace" else acme.glob("*.yaml")
    for other in files:
        edit(other, lambda data: _rename_values(data, old, new))

    def change(data: Any) -> None:
        items = data
        for part in kind_path:
            items = items[part]
        entry(items, field, new)["previously"] = [old]

    edit(acme / file, change)


def _users(s: Sandbox) -> dict[str, dict[str, Any]]:
    return {u["Username"]: u for u in s.get("Users", listMode="all", count=500)}


def _companies(s: Sandbox) -> dict[str, dict[str, Any]]:
    return {c["Name"]: c for c in s.get("Companies")}


def _assets(s: Sandbox) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for page in range(1, 10):
        items = s.get("Assets", page=page, includeDisabled=True)
        found.update({a["SerialNumber"]: a for a in items})
        if len(items) < 50:
            break
    return found


def _employees(s: Sandbox) -> dict[str, dict[str, Any]]:
    answer = s.workspace.get("employees")
    answer.raise_for_status()
    body = answer.json()
    items = body["items"] if isinstance(body, dict) else body
    return {e["email"]: e for e in items}


Listing = Callable[[Sandbox], dict[str, dict[str, Any]]]
ID = {"users": "UserID", "companies": "CompanyID", "assets": "ItemID", "employees": "id"}
# kind, file, where the entries are, key field, old key, new key, listing
CASES: list[tuple[str, str, tuple[str, ...], str, str, str, Listing]] = [
    ("users", "people.yaml", ("users",), "username", "tina", "tina.nguyen", _users),
    ("companies", "companies.yaml", ("companies",), "name", "Acme Corp", "Acme Corporation",
     _companies),
    ("assets", "assets.yaml", ("assets",), "serial_number", "PF4KX2A2", "PF4KX2A2-R",
     _assets),
    ("employees", "workspace.yaml", ("workspace", "employees"), "email",
     "tina.nguyen@acme.com", "tina.n@acme.com", _employees),
]  # fmt: skip


def _references(s: Sandbox, kind: str, ident: Any) -> Any:
    """What refers to the object: its members, assets and permissions, by id."""
    if kind == "users":
        assigned = sorted(
            a["ItemID"] for a in _assets(s).values() for u in a["AssignedUsers"]
            if u["UserID"] == ident
        )  # fmt: skip
        return assigned
    if kind == "companies":
        members = sorted(u["UserID"] for u in _users(s).values() if u.get("CompanyId") == ident)
        assets = sorted(a["ItemID"] for a in _assets(s).values() if a.get("CompanyID") == ident)
        return members, assets
    return None


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_rename_keeps_the_id_and_the_references(
    start: Start, workdir: Path, case: tuple[str, str, tuple[str, ...], str, str, str, Listing]
) -> None:
    kind, file, kind_path, field, old, new, listing = case
    sandbox = start("acme")
    converge(workdir, sandbox)
    before = listing(sandbox)
    ident = before[old][ID[kind]]
    references = _references(sandbox, kind, ident)
    _rename(workdir / "acme", file, kind_path, field, old, new)

    planned = cli(workdir, sandbox.process, "plan", "acme")
    assert planned.returncode == 0, planned.stderr
    assert f'(was {kind_path[-1] if kind != "employees" else "workspace.employees"}["{old}"])' in (
        planned.stdout
    )
    assert "Plan: 0 to create, 1 to update, 0 to delete" in planned.stdout, planned.stdout

    sandbox.forget_requests()
    converge(workdir, sandbox)
    assert len(sandbox.writes()) == 1, sandbox.writes()
    after = listing(sandbox)
    assert old not in after
    assert after[new][ID[kind]] == ident  # the same object, renamed
    assert len(after) == len(before)  # nothing created, nothing deleted
    assert _references(sandbox, kind, ident) == references
    assert_no_changes(workdir, sandbox)
    kept = cli(workdir, sandbox.process, "plan", "acme")
    assert "former keys" in kept.stdout + kept.stderr  # the note: previously can go


def test_a_username_changed_without_previously_is_an_error_and_writes_nothing(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    acme = workdir / "acme"
    _rename(acme, "people.yaml", ("users",), "username", "tina", "tina.nguyen")
    edit(acme / "people.yaml", lambda data: entry(data["users"], "username", "tina.nguyen").pop(
        "previously"
    ))  # fmt: skip
    edit(acme / "companies.yaml", lambda data: data["companies"].append({"name": "Initech"}))

    planned = cli(workdir, sandbox.process, "plan", "acme")
    assert planned.returncode == 1
    output = planned.stdout + planned.stderr
    assert "add `previously: [tina]` to this entry" in output, output
    assert "people.yaml:" in output

    sandbox.forget_requests()
    applied = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert applied.returncode == 1
    said = applied.stderr.splitlines()
    # The refusal names the entry that blocks it, where it is and the remedy, then says why
    # nothing was applied.
    assert said[:2] == [
        "Error: users[\"tina.nguyen\"]: user 'tina.nguyen' (created by this plan) would have "
        "the e-mail 'tina.nguyen@acme.com', which live user 'tina' (id 3) has: the helpdesk "
        "requires e-mails to be unique, and the call would fail half-way through the apply",
        "  at acme/people.yaml:31:3",
    ]
    assert said[-1] == "Error: the plan has errors: fix them, then apply again"
    assert sandbox.writes() == []
    assert "Initech" not in _companies(sandbox)


def test_a_company_renamed_without_previously_shows_the_line_that_makes_it_a_rename(
    start: Start, workdir: Path
) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    acme = workdir / "acme"
    ident = _companies(sandbox)["Acme Corp"]["CompanyID"]
    _rename(acme, "companies.yaml", ("companies",), "name", "Acme Corp", "Acme Corporation")
    renamed = lambda data: entry(data["companies"], "name", "Acme Corporation")  # noqa: E731
    edit(acme / "companies.yaml", lambda data: renamed(data).pop("previously"))

    # Acme Corp, with the domains of the new entry, is live and no entry names it.
    planned = cli(workdir, sandbox.process, "plan", "acme")
    assert planned.returncode == 0, planned.stderr
    assert '+ companies["Acme Corporation"]' in planned.stdout
    assert (
        f"# looks like the unlisted company 'Acme Corp' (id {ident}) renamed: both have the "
        "e-mail domains acme.com, acme.co.uk\n"
        "    # if it is, add `previously: [Acme Corp]` to this entry"
    ) in planned.stdout, planned.stdout
    as_json = cli(workdir, sandbox.process, "plan", "acme", "--format", "json")
    change = next(
        c for c in json.loads(as_json.stdout)["changes"] if c["key"] == "Acme Corporation"
    )
    assert [(h["key"], h["previously"]) for h in change["rename_hints"]] == [
        ("Acme Corp", "previously: [Acme Corp]")
    ]

    # The line added, the create is a rename of that company.
    edit(acme / "companies.yaml", lambda data: renamed(data).update(previously=["Acme Corp"]))
    planned = cli(workdir, sandbox.process, "plan", "acme")
    assert '~ companies["Acme Corporation"] (was companies["Acme Corp"])' in planned.stdout
    assert "Plan: 0 to create, 1 to update, 0 to delete" in planned.stdout, planned.stdout
    assert "looks like" not in planned.stdout

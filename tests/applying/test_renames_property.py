"""Property: random renames (`previously:`), edits and references converge in one apply
with no duplicate and the ids kept (docs/renaming.md). Against the sandbox in-process
(httpx ASGI transport, no socket); few examples, as each is two applies."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.sandbox.state import SandboxState
from tests.applying.inprocess import asgi, seeded
from tests.applying.test_session import plan_and_apply, plan_in

USERS = ("ana", "ben", "cy")
COMPANIES = ("Acme", "Globex")
SERIALS = ("SN-1", "SN-2")


def _manifest(names: dict[str, str], edits: dict[str, Any], renamed: bool) -> DesiredState:
    """The manifests with each object under `names[original]`, `previously` naming the
    original where it differs (after the first apply), and the edits."""

    def formers(original: str) -> dict[str, Any]:
        new = names[original]
        return {"previously": [original]} if renamed and new != original else {}

    companies = [{"name": names[c], **formers(c)} for c in COMPANIES]
    users = [
        {
            "username": names[u],
            **formers(u),
            "email": f"{u}@example.com",
            "first_name": edits.get(u, u.title()),
            "company": names[COMPANIES[i % 2]],
        }
        for i, u in enumerate(USERS)
    ]
    assets = [
        {
            "serial_number": names[s],
            **formers(s),
            "model_name": "X1",
            "manufacturer": "Lenovo",
            "type": "Laptop",
            "supplier": "CDW",
            "company": names[edits.get(f"{s}.company", COMPANIES[0])],
            "assigned_users": [names[u] for u in edits.get(f"{s}.users", USERS[:1])],
        }
        for s in SERIALS
    ]
    manifest = {"companies": companies, "users": users, "assets": assets}
    return DesiredState.from_manifest(Manifest.model_validate(manifest))


def _ids(state: SandboxState) -> dict[str, dict[str, int]]:
    rows = state.store.rows
    return {
        "users": {r["username"]: r["id"] for r in rows("users") if r["username"] != "admin"},
        "companies": {r["name"]: r["id"] for r in rows("companies")},
        "assets": {r["serial_number"]: r["id"] for r in rows("assets")},
    }


renames = st.fixed_dictionaries(
    {
        name: st.sampled_from([name, f"{name}-2", f"{name.lower()}.new"])
        for name in (*USERS, *COMPANIES, *SERIALS)
    }
)
edits = st.fixed_dictionaries(
    {
        "ana": st.sampled_from(["Ana", "Anna"]),
        "SN-1.company": st.sampled_from(COMPANIES),
        "SN-2.users": st.lists(st.sampled_from(USERS), unique=True, max_size=3),
    }
)


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(names=renames, changes=edits)
@example(  # everything renamed at once, references moved too
    names={name: f"{name}-2" for name in (*USERS, *COMPANIES, *SERIALS)},
    changes={"ana": "Anna", "SN-1.company": "Globex", "SN-2.users": ["cy", "ben"]},
)
def test_random_renames_converge_in_one_apply(
    names: dict[str, str], changes: dict[str, Any]
) -> None:
    state, credentials = seeded("empty")
    same = {name: name for name in names}
    first, report, _ = asyncio.run(
        plan_and_apply(asgi(state), credentials, _manifest(same, {}, False))
    )
    assert report.ok and not first.errors, first.errors
    before = _ids(state)

    desired = _manifest(names, changes, True)
    plan, report, _ = asyncio.run(plan_and_apply(asgi(state), credentials, desired))
    assert report.ok and not plan.errors, plan.errors
    assert not [c for c in plan.changes if c.action.value in ("create", "delete")]
    renamed = {c.address for c in plan.changes if c.renamed_from is not None}
    assert len(renamed) == sum(new != old for old, new in names.items())
    after = _ids(state)
    for kind, ids in before.items():  # every object kept its id under its new key
        assert after[kind] == {names.get(k, k): i for k, i in ids.items()}, kind
    again = asyncio.run(plan_in(state, credentials, desired))
    assert again.changes == () and again.errors == ()

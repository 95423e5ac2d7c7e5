"""The users' live state (`LiveUsers`) as the planners see it once renames apply."""

from __future__ import annotations

import asyncio

from reconciler.kinds.register import RESOURCES
from reconciler.kinds.users import User
from reconciler.kinds.users.reader import LiveUser, LiveUsers
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from tests.planning.fakes import SnapshotClient


def test_a_company_renamed_is_named_anew_in_every_record_of_its_members() -> None:
    amy = LiveUser(id=1, username="amy", email="amy@acme.com", company="ACME")
    bob = LiveUser(id=2, username="bob", email="bob@globex.com", company="Globex")
    cy = LiveUser(id=3, username="cy", email="cy@acme.com")
    live = LiveUsers(by_key={"amy": amy, "bob": bob, "cy": cy}, items=(amy, bob, cy))
    renamed = live.renamed("companies", "acme", "acme corp", "Acme Corp")
    amy_renamed = LiveUser(id=1, username="amy", email="amy@acme.com", company="Acme Corp")
    assert renamed.by_key == {"amy": amy_renamed, "bob": bob, "cy": cy}
    assert renamed.items == (amy_renamed, bob, cy)


def test_every_listed_user_is_kept_in_the_listings_order_two_named_alike_included() -> None:
    """The helpdesk may list two accounts whose usernames differ only in case: one of them
    is found by name, and the export (technicians, assigned users) still sees both."""
    listed = [
        {"UserID": 5, "Username": "Ann", "Email": "ann@acme.com"},
        {"UserID": 6, "Username": "ann", "Email": "ann.b@acme.com"},
        {"UserID": 7, "Username": "cy", "Email": "cy@acme.com"},
    ]
    desired = DesiredState.from_manifest(Manifest(users=[User(username="cy", email="cy@acme.com")]))
    client = SnapshotClient({"Users": listed, "Departments": []})
    users = asyncio.run(read_live(desired, RESOURCES, helpdesk=client)).kinds["users"]
    assert isinstance(users, LiveUsers)
    assert [(u.id, u.username) for u in users.items] == [(5, "Ann"), (6, "ann"), (7, "cy")]
    assert users.by_key["ann"].id == 6

"""The users' live state (`LiveUsers`) as the planners see it once renames apply."""

from __future__ import annotations

from reconciler.kinds.users.reader import LiveUser, LiveUsers


def test_a_company_renamed_is_named_anew_in_every_record_of_its_members() -> None:
    amy = LiveUser(id=1, username="amy", email="amy@acme.com", company="ACME")
    bob = LiveUser(id=2, username="bob", email="bob@globex.com", company="Globex")
    cy = LiveUser(id=3, username="cy", email="cy@acme.com")
    live = LiveUsers(by_key={"amy": amy, "bob": bob, "cy": cy}, items=(amy, bob, cy))
    renamed = live.renamed("companies", "acme", "acme corp", "Acme Corp")
    amy_renamed = LiveUser(id=1, username="amy", email="amy@acme.com", company="Acme Corp")
    assert renamed.by_key == {"amy": amy_renamed, "bob": bob, "cy": cy}
    assert renamed.items == (amy_renamed, bob, cy)

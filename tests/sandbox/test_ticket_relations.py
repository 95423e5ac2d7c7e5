"""Tests of `ticket_relations.py`: merging, links, sub-tickets, subscribers, secondary
assignees, tags, time spent and integration data."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.sandbox import records
from reconciler.sandbox.helpdesk.tickets import tag_id
from reconciler.sandbox.helpdesk.users import render_user
from tests.sandbox.conftest import Api
from tests.sandbox.test_tickets import (
    DETAIL_FIELDS,
    LIST_ITEM_FIELDS,
    OPT_INT,
    World,
    assert_shape,
    build_world,
    ids,
)

LINKED_FIELDS: dict[str, Any] = {
    "TicketID": int,
    "Subject": str,
    "StatusID": int,
    "UpdatedByUser": bool,
    "UpdatedByPerformer": bool,
    "CompanyID": OPT_INT,
    "UserID": int,
    "Username": str,
    "FirstName": str,
    "LastName": str,
    "IssueDate": str,
}
TIME_FIELDS: dict[str, Any] = {
    "UserID": int,
    "UserName": str,
    "StatusID": int,
    "TimeSpentInSeconds": int,
    "Date": str,
}
INTEGRATION_FIELDS = (
    "BitbucketIssueUrl",
    "JiraIssueUrl",
    "GitHubIssueUrl",
    "AsanaTaskUrl",
    "TrelloCardUrl",
    "VSOWorkItemUrl",
    "HarvestProjectUrl",
    "GitLabIssueUrl",
    "BasecampTodoUrl",
)


@pytest.fixture
def w(api: Api) -> World:
    return build_world(api)


def ok(resp: Any) -> None:
    assert (resp.status_code, resp.text) == (200, "OK"), resp.text


def add_comment(w: World, ticket_id: int, body: str, date: str) -> int:
    rec = records.comment(ticket_id=ticket_id, user_id=w.api.user_id("tina"), body=body, date=date)
    return int(w.store.insert("comments", rec)["id"])


def table(w: World, name: str) -> list[dict[str, Any]]:
    return [dict(r) for r in w.store.rows(name)]


# -- MergeTickets ---------------------------------------------------------------------


def test_merge_moves_everything_and_deletes_the_second(w: World) -> None:
    api = w.api
    admin, tina = api.user_id("admin"), api.user_id("tina")
    main = w.ticket(
        user="ursula",
        tags=["printer"],
        subscriber_ids=[tina],
        time_spent=60,
        issue_date="2024-01-02T00:00:00.000Z",
    )
    merged = w.ticket(
        user="carl",
        body="Second report",
        tags=["PRINTER", "paper"],
        subscriber_ids=[admin],
        time_spent=30,
        secondary_assignee_ids=[tina],
        issue_date="2024-01-01T00:00:00.000Z",
    )
    other, child, asset_ticket = w.ticket(), w.ticket(), w.ticket()
    w.store.update("tickets", merged, linked_ids=[other, main])
    w.store.update("tickets", other, linked_ids=[merged])
    w.store.update("tickets", child, parent_id=merged)
    comment = add_comment(w, merged, "Reply", "2024-01-03T00:00:00.000Z")
    w.store.insert(
        "attachments",
        records.attachment(
            ticket_id=merged,
            user_id=tina,
            file_name="a.txt",
            content_type="text/plain",
            data=b"x",
            date="2024-01-03T00:00:00.000Z",
        ),
    )
    w.store.insert(
        "time_entries",
        records.time_entry(
            ticket_id=merged, user_id=tina, status_id=1, seconds=30, date="2024-01-03T00:00:00Z"
        ),
    )
    w.store.insert(
        "assets",
        {**records.asset(model_name="M", manufacturer_id=1, supplier_id=1, type_id=1)}
        | {"ticket_ids": [merged, asset_ticket]},
    )

    ok(api.post("MergeTickets", id=main, id2=merged))

    assert w.store.get("tickets", merged) is None
    rec = w.record(main)
    assert rec["tags"] == ["printer", "paper"]
    assert rec["subscriber_ids"] == [tina, admin, w.carl]
    assert rec["linked_ids"] == [other]
    assert rec["secondary_assignee_ids"] == [tina]
    assert rec["time_spent"] == 90
    assert rec["last_updated_by_user_id"] == admin and rec["updated_by_performer"] is True
    assert w.record(other)["linked_ids"] == [main]
    assert w.record(child)["parent_id"] == main
    assert {r["ticket_id"] for r in table(w, "attachments")} == {main}
    assert {r["ticket_id"] for r in table(w, "time_entries")} == {main}
    assert table(w, "assets")[0]["ticket_ids"] == [main, asset_ticket]
    # The comments moved, and the merged ticket's body became one, at its creation time.
    listed = api.get("comments", id=main).json()
    assert [(c["Body"], c["UserID"]) for c in listed] == [
        ("Second report", w.carl),
        ("Reply", tina),
    ]
    assert listed[1]["CommentID"] == comment
    assert listed[0]["CommentDate"] == "2024-01-01T00:00:00.000Z"


def test_merge_spellings_and_parent_links(w: World) -> None:
    api = w.api
    main, merged = w.ticket(), w.ticket()
    # A main ticket that was a sub-ticket of the merged one loses that parent.
    w.store.update("tickets", main, parent_id=merged)
    ok(api.post("MergeTaleps", id=main, id2=merged))
    assert w.record(main)["parent_id"] is None
    assert w.store.get("tickets", merged) is None


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({}, 400),
        ({"id": "MAIN"}, 400),
        ({"id2": "MERGED"}, 400),
        ({"id": "x", "id2": "MERGED"}, 400),
        ({"id": "MAIN", "id2": "x"}, 400),
        ({"id": 999, "id2": "MERGED"}, 404),
        ({"id": "MAIN", "id2": 999}, 404),
        ({"id": "MAIN", "id2": "MAIN"}, 400),
    ],
)
def test_merge_errors(w: World, form: dict[str, Any], status: int) -> None:
    main, merged = w.ticket(), w.ticket()
    add_comment(w, merged, "Reply", "2024-01-03T00:00:00.000Z")
    before = (table(w, "tickets"), table(w, "comments"))
    replace = {"MAIN": main, "MERGED": merged}
    data = {k: replace.get(v, v) if isinstance(v, str) else v for k, v in form.items()}
    resp = w.api.post("MergeTickets", **data)
    assert resp.status_code == status, resp.text
    assert (table(w, "tickets"), table(w, "comments")) == before


def test_merge_permissions(w: World) -> None:
    api = w.api
    ursula, tina = api.as_("ursula"), api.as_("tina")
    first, second = w.ticket(user="ursula"), w.ticket(user="ursula", category=w.software)
    # The submitter of both tickets may not merge them: merging deletes a ticket.
    assert ursula.post("MergeTickets", id=first, id2=second).status_code == 403
    theirs = w.ticket(user="carl")
    assert ursula.post("MergeTickets", id=first, id2=theirs).status_code == 403
    # A category technician must be one of both categories.
    w.grant("tina", w.hardware)
    assert tina.post("MergeTickets", id=first, id2=second).status_code == 403
    assert tina.post("MergeTickets", id=second, id2=first).status_code == 403
    assert len(table(w, "tickets")) == 3
    ok(tina.post("MergeTickets", id=first, id2=theirs))
    assert w.store.get("tickets", theirs) is None


# -- links ---------------------------------------------------------------------------


def test_link_unlink_and_linked_tickets(w: World) -> None:
    api = w.api
    first = w.ticket(user="ursula")
    second = w.ticket(user="carl", subject="Other", updated_by_user=True)
    third = w.ticket(user="ursula", category=w.software)
    assert api.get("LinkedTickets", id=first).json() == []
    ok(api.post("LinkTickets", id=first, id2=second))
    ok(api.post("LinkTaleps", id=first, id2=third))
    # Linking twice changes nothing; links are symmetric.
    ok(api.post("LinkTickets", id=second, id2=first))
    assert w.record(first)["linked_ids"] == [second, third]
    assert w.record(second)["linked_ids"] == [first]
    items = api.get("LinkedTickets", id=first).json()
    for item in items:
        assert_shape(item, LINKED_FIELDS)
    rec = w.record(second)
    assert items[0] == {
        "TicketID": second,
        "Subject": "Other",
        "StatusID": 1,
        "UpdatedByUser": True,
        "UpdatedByPerformer": False,
        "CompanyID": w.acme,
        "UserID": w.carl,
        "Username": "carl",
        "FirstName": "Carl",
        "LastName": "C",
        "IssueDate": rec["issue_date"],
    }
    assert items[1]["TicketID"] == third and items[1]["CompanyID"] is None
    # A linked ticket the caller may not see is left out.
    mine = api.as_("ursula").get("LinkedTickets", id=first).json()
    assert [i["TicketID"] for i in mine] == [third]
    # Relations do not count as updates of the ticket.
    assert w.record(first)["last_updated_by_user_id"] is None
    ok(api.post("UnlinkTickets", id=second, id2=first))
    ok(api.post("UnlinkTaleps", id=first, id2=second))
    assert (w.record(first)["linked_ids"], w.record(second)["linked_ids"]) == ([third], [])
    # A linked ticket deleted since is left out.
    w.store.delete("tickets", third)
    assert api.get("LinkedTickets", id=first).json() == []


def test_link_errors_and_permissions(w: World) -> None:
    api = w.api
    own, theirs = w.ticket(user="ursula"), w.ticket(user="carl")
    for name in ("LinkTickets", "UnlinkTickets"):
        assert api.post(name, id=own).status_code == 400
        assert api.post(name, id2=own).status_code == 400
        assert api.post(name, id=own, id2="x").status_code == 400
        assert api.post(name, id=own, id2=999).status_code == 404
        assert api.post(name, id=999, id2=own).status_code == 404
        assert api.post(name, id=own, id2=own).status_code == 400
        assert api.as_("ursula").post(name, id=own, id2=theirs).status_code == 403
        assert api.as_("ursula").post(name, id=theirs, id2=own).status_code == 403
    assert w.record(own)["linked_ids"] == []
    assert api.get("LinkedTickets").status_code == 400
    assert api.get("LinkedTickets", id=999).status_code == 404
    assert api.as_("ursula").get("LinkedTickets", id=theirs).status_code == 403
    other_own = w.ticket(user="ursula")
    ok(api.as_("ursula").post("LinkTickets", id=own, id2=other_own))


# -- sub-tickets ---------------------------------------------------------------------


def test_sub_tickets_and_parent(w: World) -> None:
    api = w.api
    parent = w.ticket(user="ursula", subject="Parent")
    child = w.ticket(user="ursula", subject="Child")
    hidden = w.ticket(user="carl", subject="Hidden child")
    assert api.get("ParentTicket", id=child).text == "0"
    assert api.get("ParentTicket", id=child, returnFullTicket="true").json() is None
    ok(api.post("AddSubTicket", parentId=parent, childId=child))
    ok(api.post("AddSubTalep", parentId=parent, childId=hidden))
    ok(api.post("AddSubTicket", parentId=parent, childId=child))  # again: no change
    resp = api.get("ParentTicket", id=child)
    assert resp.headers["content-type"].startswith("text/plain")
    assert resp.text == str(parent)
    full = api.get("ParentTalep", id=child, returnFullTalep="true").json()
    assert_shape(full, DETAIL_FIELDS)
    assert (full["TicketID"], full["Subject"]) == (parent, "Parent")
    assert api.get("ParentTicket", id=child, returnFullTicket="false").text == str(parent)
    subs = api.get("SubTickets", id=parent).json()
    assert [s["IssueID"] for s in subs] == [child, hidden]
    for item in subs:
        assert_shape(item, LIST_ITEM_FIELDS)
    assert ids(api.get("SubTaleps", id=child)) == []
    # HasChildren tells the parent apart in the lists.
    listed = {t["IssueID"]: t["HasChildren"] for t in api.get("Tickets").json()}
    assert listed == {parent: True, child: False, hidden: False}
    found = api.get("Search", query="Parent").json()
    assert [(t["IssueID"], t["HasChildren"]) for t in found] == [(parent, True)]
    # The submitter does not see the sub-ticket of someone else.
    assert ids(api.as_("ursula").get("SubTickets", id=parent)) == [child]
    ok(api.post("RemoveSubTicket", childId=child))
    ok(api.post("RemoveSubTalep", childId=child))  # again: no change
    assert api.get("ParentTicket", id=child).text == "0"
    assert ids(api.get("SubTickets", id=parent)) == [hidden]


def test_sub_ticket_moves_and_cycles(w: World) -> None:
    api = w.api
    a, b, c = w.ticket(), w.ticket(), w.ticket()
    ok(api.post("AddSubTicket", parentId=a, childId=b))
    ok(api.post("AddSubTicket", parentId=b, childId=c))
    # A ticket has one parent: adding it elsewhere moves it.
    ok(api.post("AddSubTicket", parentId=a, childId=c))
    assert w.record(c)["parent_id"] == a
    ok(api.post("AddSubTicket", parentId=b, childId=c))
    for parent, child in ((c, a), (b, a), (a, a)):
        resp = api.post("AddSubTicket", parentId=parent, childId=child)
        assert resp.status_code == 400, (parent, child)
    assert [w.record(t)["parent_id"] for t in (a, b, c)] == [None, a, b]
    # A parent deleted since counts as none.
    w.store.delete("tickets", b)
    assert api.get("ParentTicket", id=c).text == "0"


def test_sub_ticket_errors_and_permissions(w: World) -> None:
    api = w.api
    ursula = api.as_("ursula")
    own, theirs = w.ticket(user="ursula"), w.ticket(user="carl")
    assert api.post("AddSubTicket", parentId=own).status_code == 400
    assert api.post("AddSubTicket", childId=own).status_code == 400
    assert api.post("AddSubTicket", parentId="x", childId=own).status_code == 400
    assert api.post("AddSubTicket", parentId=999, childId=own).status_code == 404
    assert api.post("AddSubTicket", parentId=own, childId=999).status_code == 404
    assert ursula.post("AddSubTicket", parentId=theirs, childId=own).status_code == 403
    assert ursula.post("AddSubTicket", parentId=own, childId=theirs).status_code == 403
    assert api.post("RemoveSubTicket").status_code == 400
    assert api.post("RemoveSubTicket", childId=999).status_code == 404
    assert ursula.post("RemoveSubTicket", childId=theirs).status_code == 403
    for name in ("SubTickets", "ParentTicket"):
        assert api.get(name).status_code == 400
        assert api.get(name, id=999).status_code == 404
        assert ursula.get(name, id=theirs).status_code == 403
    assert api.get("ParentTicket", id=own, returnFullTicket="maybe").status_code == 400
    assert w.record(own)["parent_id"] is None
    # The plain id of a parent the caller may not see is shown; its details are not.
    ok(api.post("AddSubTicket", parentId=theirs, childId=own))
    assert ursula.get("ParentTicket", id=own).text == str(theirs)
    assert ursula.get("ParentTicket", id=own, returnFullTicket="true").status_code == 403
    # The submitter may remove their ticket from a parent they cannot see.
    ok(ursula.post("RemoveSubTicket", childId=own))


# -- subscribers ---------------------------------------------------------------------


def test_subscribers(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula")
    assert api.get("Subscribers", id=tid).json() == []
    ok(api.post("AddSubscriber", id=tid, userId=w.carl))
    ok(api.post("AddSubscriber", id=tid, userId=api.user_id("tina")))
    ok(api.post("AddSubscriber", id=tid, userId=w.carl))  # again: no change
    assert w.record(tid)["subscriber_ids"] == [w.carl, api.user_id("tina")]
    carl = w.store.get("users", w.carl)
    listed = api.get("Subscribers", id=tid).json()
    assert listed[0] == render_user(api.state, carl)
    assert [u["Username"] for u in listed] == ["carl", "tina"]
    assert w.record(tid)["last_updated_by_user_id"] is None  # not an update
    ok(api.post("RemoveSubscriber", id=tid, userId=w.carl))
    ok(api.post("RemoveSubscriber", id=tid, userId=w.carl))  # again: no change
    assert [u["Username"] for u in api.get("Subscribers", id=tid).json()] == ["tina"]
    # A subscriber deleted since is left out.
    w.store.update("tickets", tid, subscriber_ids=[999, api.user_id("tina")])
    assert [u["Username"] for u in api.get("Subscribers", id=tid).json()] == ["tina"]


def test_subscriber_errors_and_permissions(w: World) -> None:
    api = w.api
    ursula, tina = api.as_("ursula"), api.as_("tina")
    own, theirs = w.ticket(user="ursula"), w.ticket(user="carl")
    me = api.user_id("ursula")
    for name in ("AddSubscriber", "RemoveSubscriber"):
        assert api.post(name, userId=me).status_code == 400
        assert api.post(name, id=own).status_code == 400
        assert api.post(name, id=own, userId="x").status_code == 400
        assert api.post(name, id=own, userId=999).status_code == 400
        assert api.post(name, id=999, userId=me).status_code == 404
        # A plain user changes only their own subscription, on tickets they see.
        assert ursula.post(name, id=own, userId=w.carl).status_code == 403
        assert ursula.post(name, id=theirs, userId=me).status_code == 403
    assert w.record(own)["subscriber_ids"] == []
    ok(ursula.post("AddSubscriber", id=own, userId=me))
    ok(tina.post("AddSubscriber", id=own, userId=w.carl))
    w.grant("tina", w.software)
    assert tina.post("RemoveSubscriber", id=own, userId=w.carl).status_code == 403
    ok(ursula.post("RemoveSubscriber", id=own, userId=me))
    assert w.record(own)["subscriber_ids"] == [w.carl]
    assert api.get("Subscribers").status_code == 400
    assert api.get("Subscribers", id=999).status_code == 404
    assert ursula.get("Subscribers", id=theirs).status_code == 403
    assert ursula.get("Subscribers", id=own).status_code == 200


# -- AddSecondaryAssignee ------------------------------------------------------------


def test_add_secondary_assignee(w: World) -> None:
    api = w.api
    tina = api.user_id("tina")
    tid = w.ticket(assigned_to_user_id=api.user_id("admin"))
    ok(api.get("AddSecondaryAssignee", ticketId=tid, userId=tina))
    ok(api.post("AddSecondaryAssignee", talepId=tid, userId=tina))  # again: no change
    assert w.record(tid)["secondary_assignee_ids"] == [tina]
    for params, status in (
        ({"userId": tina}, 400),
        ({"ticketId": tid}, 400),
        ({"ticketId": "x", "userId": tina}, 400),
        ({"ticketId": 999, "userId": tina}, 404),
        ({"ticketId": tid, "userId": 999}, 400),
        ({"ticketId": tid, "userId": api.user_id("ursula")}, 400),  # no technician
        ({"ticketId": tid, "userId": api.user_id("admin")}, 400),  # the assignee
    ):
        assert api.get("AddSecondaryAssignee", **params).status_code == status, params
    w.grant("tina", w.software)
    assert api.get("AddSecondaryAssignee", ticketId=w.ticket(), userId=tina).status_code == 400
    for who in ("tina", "ursula"):
        resp = api.as_(who).get("AddSecondaryAssignee", ticketId=tid, userId=tina)
        assert resp.status_code == 403
    assert w.record(tid)["secondary_assignee_ids"] == [tina]


# -- TagTicket -----------------------------------------------------------------------


def test_tag_ticket(w: World) -> None:
    api = w.api
    w.ticket(tags=["Printer"])
    tid = w.ticket(user="ursula", tags=["urgent"])
    ok(api.post("TagTicket", ticketId=tid, name=" printer "))
    rec = w.record(tid)
    # The tag takes the spelling it has elsewhere; the write counts as an update.
    assert rec["tags"] == ["urgent", "Printer"]
    assert rec["last_updated_by_user_id"] == api.user_id("admin")
    assert api.get("ticket", id=tid).json()["Tags"][1] == {
        "TagID": tag_id("printer"),
        "Name": "Printer",
        "TagCount": 2,
    }
    ok(api.as_("ursula").post("TagTalep", talepId=tid, name="new"))
    before = w.record(tid)
    ok(api.post("TagTicket", ticketId=tid, name="NEW"))  # has it already: no change
    assert w.record(tid) == before
    assert before["tags"] == ["urgent", "Printer", "new"]


def test_tag_ticket_errors(w: World) -> None:
    api = w.api
    tid, theirs = w.ticket(user="ursula"), w.ticket(user="carl")
    for form, status in (
        ({"name": "a"}, 400),
        ({"ticketId": tid}, 400),
        ({"ticketId": tid, "name": "  "}, 400),
        ({"ticketId": tid, "name": "a,b"}, 400),
        ({"ticketId": "x", "name": "a"}, 400),
        ({"ticketId": 999, "name": "a"}, 404),
    ):
        assert api.post("TagTicket", **form).status_code == status, form
    assert api.as_("ursula").post("TagTicket", ticketId=theirs, name="a").status_code == 403
    assert w.record(tid)["tags"] == [] and w.record(theirs)["tags"] == []


# -- time spent ----------------------------------------------------------------------


def test_add_time_spent_and_log(w: World) -> None:
    api = w.api
    tid = w.ticket(status_id=2, time_spent=100)
    assert api.get("TimeSpentLog", ticketId=tid).json() == []
    resp = api.post("AddTimeSpent", ticketId=tid, timeSpentInSeconds=60)
    assert (resp.status_code, resp.text) == (200, "ok")
    api.as_("tina").post("AddTimeSpent", talepId=tid, timeSpentInSeconds=30, statusId=3)
    api.post("AddTimeSpent", ticketId=tid, timeSpentInSeconds=5, statusId=0)
    log = api.get("TimeSpentLog", ticketId=tid).json()
    for item in log:
        assert_shape(item, TIME_FIELDS)
    assert [(e["UserName"], e["StatusID"], e["TimeSpentInSeconds"]) for e in log] == [
        ("admin", 2, 60),
        ("tina", 3, 30),
        ("admin", 2, 5),
    ]
    assert log[0]["UserID"] == api.user_id("admin") and log[0]["Date"].endswith("Z")
    # An explicit status only tags the entry; the entries add to the ticket's total.
    rec = w.record(tid)
    assert (rec["status_id"], rec["time_spent"]) == (2, 195)
    assert api.get("ticket", id=tid).json()["TimeSpentInSeconds"] == 195
    assert api.as_("tina").get("TimeSpentLog", talepId=tid).status_code == 200


def test_time_spent_errors_and_permissions(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula")
    for form, status in (
        ({"timeSpentInSeconds": 10}, 400),
        ({"ticketId": tid}, 400),
        ({"ticketId": tid, "timeSpentInSeconds": "ten"}, 400),
        ({"ticketId": tid, "timeSpentInSeconds": 0}, 400),
        ({"ticketId": tid, "timeSpentInSeconds": -5}, 400),
        ({"ticketId": tid, "timeSpentInSeconds": 10, "statusId": 99}, 400),
        ({"ticketId": 999, "timeSpentInSeconds": 10}, 404),
    ):
        assert api.post("AddTimeSpent", **form).status_code == status, form
    # A technician's permission; a category technician only of their categories.
    ursula, tina = api.as_("ursula"), api.as_("tina")
    assert ursula.post("AddTimeSpent", ticketId=tid, timeSpentInSeconds=10).status_code == 403
    assert ursula.get("TimeSpentLog", ticketId=tid).status_code == 403
    w.grant("tina", w.software)
    assert tina.post("AddTimeSpent", ticketId=tid, timeSpentInSeconds=10).status_code == 403
    assert tina.get("TimeSpentLog", ticketId=tid).status_code == 403
    assert w.store.rows("time_entries") == [] and w.record(tid)["time_spent"] == 0
    assert api.get("TimeSpentLog").status_code == 400
    assert api.get("TimeSpentLog", ticketId=999).status_code == 404


# -- TicketIntegrationData -----------------------------------------------------------


def test_ticket_integration_data(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula")
    data = api.get("TicketIntegrationData", id=tid).json()
    assert data == dict.fromkeys(INTEGRATION_FIELDS)
    url = "https://jira.example.com/browse/IT-1"
    w.store.update("tickets", tid, integration_urls={"JiraIssueUrl": url})
    data = api.as_("ursula").get("TalepIntegrationData", id=tid).json()
    assert tuple(data) == INTEGRATION_FIELDS
    assert data["JiraIssueUrl"] == url
    assert [k for k, v in data.items() if v is not None] == ["JiraIssueUrl"]
    assert api.get("TicketIntegrationData").status_code == 400
    assert api.get("TicketIntegrationData", id=999).status_code == 404
    theirs = w.ticket(user="carl")
    assert api.as_("ursula").get("TicketIntegrationData", id=theirs).status_code == 403

"""Tests of `ticket_list.py`: `Tickets`, `Search`, `Stats` and the ticket custom field
values (`TicketCustomFields`, `SetCustomField`, `SetCustomFields`)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from reconciler.sandbox import SandboxConfig, create_app, records
from reconciler.sandbox.transport import InProcessTransport
from tests.sandbox.conftest import Api, make_state
from tests.sandbox.test_tickets import (
    LIST_ITEM_FIELDS,
    World,
    assert_shape,
    build_world,
    ids,
    quirk_api,
    stamp,
)

FIELD_ITEM = ("FieldName", "FieldID", "Type", "UsageType", "Value", "ValueWithOption", "Mandatory")


@pytest.fixture
def w(api: Api) -> World:
    return build_world(api)


# -- GET /Tickets ---------------------------------------------------------------------


def test_tickets_list_item(w: World) -> None:
    api = w.api
    tid = w.ticket(
        user="carl",
        assigned_to_user_id=api.user_id("tina"),
        due_date="2030-01-01T00:00:00.000Z",
        origin=1,
    )
    items = api.get("Tickets").json()
    assert len(items) == 1
    item = items[0]
    assert_shape(item, LIST_ITEM_FIELDS)
    rec = w.record(tid)
    assert item == {
        "IssueID": tid,
        "Priority": 0,
        "StatusID": 1,
        "IssueDate": rec["issue_date"],
        "Subject": "Printer jam",
        "Status": "New",
        "UpdatedByUser": False,
        "UpdatedByPerformer": False,
        "CategoryID": w.hardware,
        "UserName": "carl",
        "Technician": "Tina",
        "FirstName": "Carl",
        "LastName": "C",
        "DueDate": "2030-01-01T00:00:00.000Z",
        "TechFirstName": "Tina",
        "TechLastName": "",
        "LastUpdated": rec["last_updated"],
        "UpdatedForTechView": False,
        "UserID": w.carl,
        "CompanyID": w.acme,
        "CompanyName": "Acme",
        "AssignedToUserID": api.user_id("tina"),
        "ResolvedDate": None,
        "SectionID": w.it,
        "Category": "Hardware",
        "Origin": "Email",
        "Email": "carl@acme.com",
        "HasChildren": False,
        "LastUpdatedByUserID": w.carl,
        "LastUpdatedUsername": "carl",
        "StartDate": rec["start_date"],
    }
    bare = w.ticket(user="ursula", category=w.cleaning)
    item = next(t for t in api.get("Tickets").json() if t["IssueID"] == bare)
    assert (item["Technician"], item["TechFirstName"], item["AssignedToUserID"]) == (
        None,
        None,
        None,
    )
    assert (item["CompanyID"], item["CompanyName"]) == (None, None)


def test_tickets_newest_first_count_and_offset(w: World) -> None:
    api = w.api
    created = [w.ticket(issue_date=stamp(-400 + i)) for i in range(305)]
    newest = list(reversed(created))
    assert ids(api.get("Tickets")) == newest[:10]
    assert ids(api.get("Tickets", count=20, offset=20)) == newest[20:40]
    assert ids(api.get("Tickets", count=300)) == newest[:300]
    # Above the maximum, the count is capped rather than refused.
    assert ids(api.get("Tickets", count=1000)) == newest[:300]
    assert ids(api.get("Tickets", count=10, offset=300)) == newest[300:]
    assert ids(api.get("Tickets", offset=400)) == []
    assert api.get("Tickets", count=0).status_code == 400
    assert api.get("Tickets", count=-5).status_code == 400
    assert api.get("Tickets", offset=-1).status_code == 400
    assert api.get("Tickets", count="ten").status_code == 400
    # Equal creation times fall back to the id, newest first.
    same = stamp(5)
    a, b = w.ticket(issue_date=same), w.ticket(issue_date=same)
    assert ids(api.get("Tickets", count=2)) == [b, a]


def test_tickets_only_those_the_caller_may_see(w: World) -> None:
    api = w.api
    carls = w.ticket(user="carl", category=w.hardware)
    ursulas = w.ticket(user="ursula", category=w.software)
    internal = w.ticket(user="carl", category=w.internal)
    tinas = w.ticket(user="tina", category=w.cleaning)
    everything = {carls, ursulas, internal, tinas}
    assert set(ids(api.get("Tickets"))) == everything
    assert set(ids(api.as_("tina").get("Tickets"))) == everything
    assert set(ids(api.as_("ursula").get("Tickets"))) == {ursulas}
    w.grant("tina", w.hardware)
    w.grant("tina", w.internal)
    assert set(ids(api.as_("tina").get("Tickets"))) == {carls, internal, tinas}


def test_tickets_mode(w: World) -> None:
    api = w.api
    me = api.user_id("admin")
    new = w.ticket()
    in_process = w.ticket(status_id=2)
    answered = w.ticket(status_id=2, updated_by_performer=True)
    customer = w.ticket(status_id=2, updated_by_user=True)
    # Closed, even when the customer wrote last: not unanswered.
    closed = w.ticket(status_id=3, assigned_to_user_id=me, updated_by_user=True)
    mine = w.ticket(status_id=2, assigned_to_user_id=me)
    everything = {new, in_process, answered, customer, closed, mine}
    assert set(ids(api.get("Tickets", count=50))) == everything
    assert set(ids(api.get("Tickets", mode="all", count=50))) == everything
    assert set(ids(api.get("Tickets", mode="unanswered"))) == {new, customer}
    assert set(ids(api.get("Tickets", mode="Unclosed", count=50))) == everything - {closed}
    assert set(ids(api.get("Tickets", mode="handledbyme"))) == {closed, mine}
    assert ids(api.as_("tina").get("Tickets", mode="handledbyme")) == []
    assert api.get("Tickets", mode="mine").status_code == 400


def test_tickets_filters_by_category_section_status_and_people(w: World) -> None:
    api = w.api
    tina = api.user_id("tina")
    hw = w.ticket(category=w.hardware, user="carl", assigned_to_user_id=tina)
    sw = w.ticket(category=w.software, status_id=2)
    cl = w.ticket(category=w.cleaning, user="carl", status_id=3)
    assert set(ids(api.get("Tickets", categoryId=[w.hardware, w.cleaning]))) == {hw, cl}
    assert set(ids(api.get("Tickets", categoryId=f"{w.hardware},{w.software}"))) == {hw, sw}
    assert ids(api.get("Tickets", categoryId=999)) == []
    assert set(ids(api.get("Tickets", sectionId=w.it))) == {hw, sw}
    assert ids(api.get("Tickets", sectionId=999)) == []
    assert set(ids(api.get("Tickets", statusId=[2, 3]))) == {sw, cl}
    assert ids(api.get("Tickets", statusID=1)) == [hw]
    assert set(ids(api.get("Tickets", fromUserId=w.carl))) == {hw, cl}
    assert set(ids(api.get("Tickets", fromCompanyId=w.acme))) == {hw, cl}
    assert ids(api.get("Tickets", handledByUserID=tina)) == [hw]
    # Filters combine.
    assert ids(api.get("Tickets", fromUserId=w.carl, statusId=3)) == [cl]
    for bad in ("categoryId", "sectionId", "statusId", "fromUserId", "fromCompanyId"):
        assert api.get("Tickets", **{bad: "x"}).status_code == 400, bad
    assert api.get("Tickets", handledByUserID="x").status_code == 400


def test_tickets_filter_by_tag_and_subscription(w: World) -> None:
    api = w.api
    tagged = w.ticket(tags=["Printer", "urgent"])
    other = w.ticket(tags=["network"], subscriber_ids=[api.user_id("admin")])
    w.ticket()
    assert ids(api.get("Tickets", tagName="printer")) == [tagged]
    assert ids(api.get("Tickets", tagName="NETWORK")) == [other]
    assert ids(api.get("Tickets", tagName="none")) == []
    assert ids(api.get("Tickets", subscribedOnly="true")) == [other]
    assert len(ids(api.get("Tickets", subscribedOnly="false"))) == 3
    assert api.get("Tickets", subscribedOnly="maybe").status_code == 400


def test_tickets_filter_by_dates(w: World) -> None:
    api = w.api
    march = w.ticket(issue_date="2024-03-10T12:00:00.000Z", last_updated="2024-06-01T08:00:00Z")
    april = w.ticket(issue_date="2024-04-01T00:00:00.000Z", last_updated="2024-04-02T00:00:00Z")
    may = w.ticket(issue_date="2024-05-31T23:59:00.000Z", last_updated="2024-05-31T23:59:00Z")
    assert set(ids(api.get("Tickets", dateFrom="2024-04-01"))) == {april, may}
    # The upper bound includes the whole day.
    assert set(ids(api.get("Tickets", dateTo="2024-04-01"))) == {march, april}
    assert ids(api.get("Tickets", dateFrom="2024-04-02", dateTo="2024-05-31")) == [may]
    assert set(ids(api.get("Tickets", updatedFrom="2024-05-01"))) == {march, may}
    assert ids(api.get("Tickets", updatedFrom="2024-04-01", updatedTo="2024-04-30")) == [april]
    assert ids(api.get("Tickets", updatedTo="2024-01-01")) == []
    for name in ("dateFrom", "dateTo", "updatedFrom", "updatedTo"):
        resp = api.get("Tickets", **{name: "someday"})
        assert resp.status_code == 400 and name in resp.text


def test_tickets_filter_by_updater_and_due_date(w: World) -> None:
    api = w.api
    by_tech = w.ticket(updated_by_performer=True, due_date=stamp(2))
    by_cust = w.ticket(updated_by_user=True, due_date=stamp(10))
    overdue = w.ticket(due_date=stamp(-3))
    w.ticket(status_id=3, due_date=stamp(1))  # closed: never due
    w.ticket()  # no due date
    assert ids(api.get("Tickets", updatedByType="tech")) == [by_tech]
    assert ids(api.get("Tickets", updatedByType="CUST")) == [by_cust]
    assert api.get("Tickets", updatedByType="robot").status_code == 400
    assert set(ids(api.get("Tickets", dueInDays=3))) == {by_tech, overdue}
    assert set(ids(api.get("Tickets", dueInDays=30))) == {by_tech, by_cust, overdue}
    assert ids(api.get("Tickets", dueInDays=0)) == [overdue]
    assert api.get("Tickets", dueInDays=-1).status_code == 400
    assert api.get("Tickets", dueInDays="soon").status_code == 400


def test_tickets_include_custom_fields(w: World) -> None:
    api = w.api
    size = w.field("Size", type=3, options=[{"id": 5, "name": "Large"}], show_in_grid=True, order=2)
    first = w.field("Asset tag", type=1, show_in_grid=True, order=1)
    w.field("Hidden", type=1)  # not shown in the grid
    sw_only = w.field("Version", type=1, show_in_grid=True, category_ids=[w.software])
    secret = w.field("Tech note", type=1, show_in_grid=True, for_techs_only=True, order=9)
    w.field("Company field", type=1, usage_type=4, show_in_grid=True)
    tid = w.ticket(user="ursula", custom={str(size): "5"})
    plain = api.get("Tickets").json()[0]
    assert "CustomFields" not in plain
    item = api.get("Tickets", includeCustomFields="true").json()[0]
    assert set(item) == set(LIST_ITEM_FIELDS) | {"CustomFields"}
    fields = item["CustomFields"]
    assert [f["FieldID"] for f in fields] == [first, size, secret]
    assert fields[1] == {
        "FieldName": "Size",
        "FieldID": size,
        "Type": 3,
        "UsageType": 1,
        "Value": "5",
        "ValueWithOption": "Large",
        "Mandatory": False,
    }
    assert fields[0]["Value"] is None
    assert sw_only not in [f["FieldID"] for f in fields]
    # Fields for technicians only are left out for plain users.
    mine = api.as_("ursula").get("Tickets", includeCustomFields="true").json()
    assert [m["IssueID"] for m in mine] == [tid]
    assert [f["FieldID"] for f in mine[0]["CustomFields"]] == [first, size]
    assert api.get("Tickets", includeCustomFields="perhaps").status_code == 400


def test_tickets_include_at_most_30_grid_fields(w: World) -> None:
    created = [w.field(f"F{i:02}", type=1, show_in_grid=True, order=i) for i in range(35)]
    w.ticket()
    fields = w.api.get("Tickets", includeCustomFields="true").json()[0]["CustomFields"]
    assert [f["FieldID"] for f in fields] == created[:30]


# -- ticket custom fields -------------------------------------------------------------


def custom_world(w: World) -> dict[str, int]:
    return {
        "size": w.field(
            "Size",
            type=3,
            options=[{"id": 5, "name": "Large"}, {"id": 6, "name": "Small"}],
            category_ids=[w.hardware],
            order=1,
            mandatory=True,
        ),
        "urgent": w.field("Urgent", type=4, order=2),
        "due": w.field("Needed by", type=2, order=3),
        "secret": w.field("Tech note", type=1, for_techs_only=True, order=4),
        "sw": w.field("Version", type=1, category_ids=[w.software]),
        "user_field": w.field("Employee ID", type=1, usage_type=3),
    }


def test_set_custom_field_and_read_values(w: World) -> None:
    api = w.api
    f = custom_world(w)
    tid = w.ticket(user="ursula")
    assert api.get("TicketCustomFields", id=tid).json() == []
    resp = api.post("SetCustomField", ticketId=tid, fieldId=f["size"], value="5")
    assert (resp.status_code, resp.text) == (200, "OK")
    assert api.post("SetCustomField", talepId=tid, fieldId=f["urgent"], value="TRUE").text == "OK"
    api.post("SetCustomField", ticketId=tid, fieldId=f["due"], value="03/04/2026")
    items = api.get("TicketCustomFields", id=tid).json()
    for item in items:
        assert tuple(item) == FIELD_ITEM
    assert items == [
        {
            "FieldName": "Size",
            "FieldID": f["size"],
            "Type": 3,
            "UsageType": 1,
            "Value": "5",
            "ValueWithOption": "Large",
            "Mandatory": True,
        },
        {
            "FieldName": "Urgent",
            "FieldID": f["urgent"],
            "Type": 4,
            "UsageType": 1,
            "Value": "true",
            "ValueWithOption": "true",
            "Mandatory": False,
        },
        {
            "FieldName": "Needed by",
            "FieldID": f["due"],
            "Type": 2,
            "UsageType": 1,
            "Value": "2026-03-04",
            "ValueWithOption": "2026-03-04",
            "Mandatory": False,
        },
    ]
    everything = api.get("TalepCustomFields", id=tid, returnUnset="true").json()
    assert [i["FieldID"] for i in everything] == [f["size"], f["urgent"], f["due"], f["secret"]]
    assert everything[3]["Value"] is None and everything[3]["ValueWithOption"] is None
    # The submitter reads them too, without the fields for technicians only.
    mine = api.as_("ursula").get("TicketCustomFields", id=tid, returnUnset="true").json()
    assert [i["FieldID"] for i in mine] == [f["size"], f["urgent"], f["due"]]
    # An empty value clears; setting a value updates the ticket.
    api.post("SetCustomField", ticketId=tid, fieldId=f["urgent"], value="")
    assert f["urgent"] not in [i["FieldID"] for i in api.get("TicketCustomFields", id=tid).json()]
    assert w.record(tid)["last_updated_by_user_id"] == api.user_id("admin")


def test_set_custom_fields_at_once(w: World) -> None:
    api = w.api
    f = custom_world(w)
    tid = w.ticket()
    form = {"ticketId": tid, f"cf{f['size']}": "6", f"CF{f['urgent']}": "false"}
    assert api.post("SetCustomFields", **form).text == "OK"
    assert w.record(tid)["custom"] == {str(f["size"]): "6", str(f["urgent"]): "false"}
    # One bad value changes nothing.
    bad = {"ticketId": tid, f"cf{f['size']}": "5", f"cf{f['urgent']}": "yes"}
    assert api.post("SetCustomFields", **bad).status_code == 400
    assert w.record(tid)["custom"][str(f["size"])] == "6"
    assert api.post("SetCustomFields", ticketId=tid).status_code == 400
    assert api.post("SetCustomFields", ticketId=tid, cf999="x").status_code == 404
    assert api.post("SetCustomFields", ticketId=tid, **{f"cf{f['sw']}": "x"}).status_code == 400
    assert api.post("SetCustomFields", ticketId=999, cf1="x").status_code == 404
    assert api.post("SetCustomFields", cf1="x").status_code == 400


def test_custom_field_errors_and_permissions(w: World) -> None:
    api = w.api
    f = custom_world(w)
    tid = w.ticket(user="ursula")
    theirs = w.ticket(user="carl")

    def set_(who: Api, **form: Any) -> int:
        return who.post("SetCustomField", **form).status_code

    assert set_(api, fieldId=f["size"], value="5") == 400
    assert set_(api, ticketId=tid, value="5") == 400
    assert set_(api, ticketId=999, fieldId=f["size"], value="5") == 404
    assert set_(api, ticketId=tid, fieldId=999, value="5") == 404
    assert set_(api, ticketId=tid, fieldId=f["user_field"], value="E1") == 400
    assert set_(api, ticketId=tid, fieldId=f["sw"], value="1.0") == 400
    assert set_(api, ticketId=tid, fieldId=f["size"], value="7") == 400
    assert set_(api, ticketId=tid, fieldId=f["size"], value="Large") == 400
    assert set_(api, ticketId=tid, fieldId=f["urgent"], value="yes") == 400
    assert set_(api, ticketId=tid, fieldId=f["due"], value="soon") == 400
    assert w.record(tid)["custom"] == {}
    ursula = api.as_("ursula")
    assert set_(ursula, ticketId=tid, fieldId=f["size"], value="5") == 200
    # A field for technicians only does not exist for a plain user's category list.
    assert set_(ursula, ticketId=tid, fieldId=f["secret"], value="x") == 400
    assert set_(ursula, ticketId=theirs, fieldId=f["size"], value="5") == 403
    assert ursula.get("TicketCustomFields", id=theirs).status_code == 403
    assert api.get("TicketCustomFields", id=999).status_code == 404
    assert api.get("TicketCustomFields").status_code == 400
    assert api.get("TicketCustomFields", id=tid, returnUnset="x").status_code == 400


def test_quirk_customfield_extra_keys_on_ticket_fields(w: World) -> None:
    f = custom_world(w)
    tid = w.ticket(custom={str(f["size"]): "5"})
    plain = w.api.get("TicketCustomFields", id=tid).json()[0]
    assert set(plain) == set(FIELD_ITEM)
    with quirk_api("customfield-extra-keys") as api:
        q = build_world(api)
        size = q.field("Size", type=3, options=[{"id": 5, "name": "Large"}])
        note = q.field("Note", type=1, for_techs_only=True)
        qid = q.ticket(custom={str(size): "5", str(note): "n"})
        items = api.get("TicketCustomFields", id=qid).json()
        assert items[0] == {
            "FieldName": "Size",
            "FieldID": size,
            "Type": 3,
            "UsageType": 1,
            "Value": "5",
            "ValueWithOption": "Large",
            "Mandatory": False,
            "OptionID": 5,
            "AccessType": 0,
            "ForTechsOnly": False,
        }
        assert (items[1]["OptionID"], items[1]["ForTechsOnly"]) == (None, True)


# -- Search and Stats -----------------------------------------------------------------


def test_search(w: World) -> None:
    api = w.api
    tina = api.user_id("tina")
    jam = w.ticket(subject="Printer JAM", user="ursula", issue_date="2024-01-05T00:00:00Z")
    body = w.ticket(body="the printer smokes", user="carl", assigned_to_user_id=tina)
    in_comment = w.ticket(subject="Other", category=w.software, status_id=2, user="admin")
    hidden = w.ticket(subject="Other", user="ursula")
    w.ticket(subject="Nothing here")
    now = api.state.timestamp()
    for tid, techs_only in ((in_comment, False), (hidden, True)):
        w.store.insert(
            "comments",
            records.comment(
                ticket_id=tid,
                user_id=api.user_id("admin"),
                body="Printer replaced",
                date=now,
                for_techs_only=techs_only,
            ),
        )
    found = api.get("Search", query="printer")
    assert found.status_code == 200
    assert set(ids(found)) == {jam, body, in_comment, hidden}
    assert_shape(found.json()[0], LIST_ITEM_FIELDS)
    # The submitter does not find a ticket through a comment for technicians only.
    assert ids(api.as_("ursula").get("Search", query="printer")) == [jam]
    assert ids(api.get("Search", query=str(jam))) == [jam]
    assert ids(api.get("Search", query="printer", fromUserId=w.carl)) == [body]
    assert ids(api.get("Search", query="printer", categoryId=[w.software])) == [in_comment]
    assert ids(api.get("Search", query="printer", statusId=2)) == [in_comment]
    assert ids(api.get("Search", query="printer", assignedToUserId=tina)) == [body]
    assert ids(api.get("Search", query="printer", dateTo="2024-01-05")) == [jam]
    assert jam not in ids(api.get("Search", query="printer", dateFrom="2024-01-05T00:00:01Z"))
    assert api.get("Search").status_code == 400
    assert api.get("Search", query="  ").status_code == 400
    assert api.get("Search", query="x", dateFrom="nope").status_code == 400
    assert api.get("Search", query="x", statusId="new").status_code == 400


def test_search_uses_the_search_rate_limit() -> None:
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=2))
    with httpx.Client(transport=InProcessTransport(create_app(state)), base_url="http://t") as c:
        api = Api(c, state)
        assert [api.get("Search", query="x").status_code for _ in range(3)] == [200, 200, 429]
        assert api.get("Tickets").status_code == 200


def test_stats(w: World) -> None:
    api = w.api
    me = api.user_id("admin")
    w.ticket(user="admin")  # new, unassigned
    w.ticket(status_id=2, assigned_to_user_id=me)
    w.ticket(status_id=2, updated_by_user=True)
    w.ticket(status_id=3, assigned_to_user_id=me)
    w.ticket(user="carl", category=w.software)
    assert api.get("Stats").json() == {
        "TotalTickets": 5,
        "Closed": 1,
        "InProcess": 2,
        "NewTickets": 2,
        "Unanswered": 3,
        "Unassigned": 3,
        "Unclosed": 4,
        "HandledByMe": 2,
    }
    assert api.get("Stats", forCurrentUser="true").json() == {
        "NewTickets": 2,
        "Unanswered": 3,
        "Unassigned": 3,
        "Unclosed": 4,
        "HandledByMe": 2,
        "SubmittedByMe": 1,
        "InProcess": 2,
    }
    # Only the tickets the caller may see count.
    mine = api.as_("ursula").get("Stats").json()
    assert (mine["TotalTickets"], mine["Closed"], mine["HandledByMe"]) == (3, 1, 0)
    assert api.get("Stats", forCurrentUser="x").status_code == 400

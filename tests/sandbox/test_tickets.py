"""Tests of `tickets.py`: `ticket` (GET and POST), `UpdateTicket`, `Close`; the `World`
built here is shared by the other ticket test modules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from reconciler.sandbox import SandboxConfig, create_app, records
from reconciler.sandbox.helpdesk.tickets import tag_id
from reconciler.sandbox.store import Record
from reconciler.sandbox.transport import InProcessTransport
from tests.sandbox.conftest import Api, make_state

OPT_INT = (int, type(None))
OPT_STR = (str, type(None))
LIST_ITEM_FIELDS: dict[str, Any] = {
    "IssueID": int,
    "Priority": int,
    "StatusID": int,
    "IssueDate": str,
    "Subject": str,
    "Status": str,
    "UpdatedByUser": bool,
    "UpdatedByPerformer": bool,
    "CategoryID": int,
    "UserName": str,
    "Technician": OPT_STR,
    "FirstName": str,
    "LastName": str,
    "DueDate": OPT_STR,
    "TechFirstName": OPT_STR,
    "TechLastName": OPT_STR,
    "LastUpdated": str,
    "UpdatedForTechView": bool,
    "UserID": int,
    "CompanyID": OPT_INT,
    "CompanyName": OPT_STR,
    "AssignedToUserID": OPT_INT,
    "ResolvedDate": OPT_STR,
    "SectionID": OPT_INT,
    "Category": str,
    "Origin": str,
    "Email": str,
    "HasChildren": bool,
    "LastUpdatedByUserID": int,
    "LastUpdatedUsername": str,
    "StartDate": str,
}
DETAIL_FIELDS: dict[str, Any] = {
    "TicketID": int,
    "Subject": str,
    "Body": str,
    "Priority": int,
    "StatusID": int,
    "Status": str,
    "CategoryID": int,
    "CategoryName": str,
    "UserID": int,
    "AssignedToUserID": OPT_INT,
    "SubmitterUserInfo": dict,
    "AssigneeUserInfo": (dict, type(None)),
    "OnBehalfUserName": OPT_STR,
    "IssueDate": str,
    "StartDate": str,
    "DueDate": OPT_STR,
    "ResolvedDate": OPT_STR,
    "TimeSpentInSeconds": int,
    "UpdatedByUser": bool,
    "UpdatedByPerformer": bool,
    "UpdatedForTechView": bool,
    "IsCurrentCategoryForTechsOnly": bool,
    "Attachments": list,
    "Tags": list,
}


def assert_shape(obj: dict[str, Any], fields: dict[str, Any]) -> None:
    assert set(obj) == set(fields)
    for key, kind in fields.items():
        assert isinstance(obj[key], kind), (key, obj[key])


def stamp(days: float = 0) -> str:
    moment = datetime.now(UTC) + timedelta(days=days)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass
class World:
    api: Api
    it: int
    hardware: int
    software: int
    internal: int  # for technicians only
    cleaning: int  # another section
    kb: int  # knowledge base only
    acme: int
    carl: int  # a plain user of Acme who cannot log in

    @property
    def store(self) -> Any:
        return self.api.state.store

    def ticket(self, *, category: int | None = None, user: str = "ursula", **kw: Any) -> int:
        """A ticket written to the store; `kw` holds record fields to set afterwards."""
        rec = records.ticket(
            subject=kw.pop("subject", "Printer jam"),
            body=kw.pop("body", "It jams."),
            category_id=category or self.hardware,
            user_id=self.carl if user == "carl" else self.api.user_id(user),
            now=kw.pop("issue_date", stamp()),
        )
        return int(self.store.insert("tickets", {**rec, **kw})["id"])

    def record(self, ticket_id: int) -> Record:
        rec = self.store.get("tickets", ticket_id)
        assert rec is not None
        return dict(rec)

    def grant(self, username: str, category_id: int) -> None:
        user_id = self.carl if username == "carl" else self.api.user_id(username)
        self.store.insert("tech_permissions", {"user_id": user_id, "category_id": category_id})

    def field(self, name: str, **kw: Any) -> int:
        rec = records.custom_field(name, usage_type=kw.pop("usage_type", 1), **kw)
        return int(self.store.insert("custom_fields", rec)["id"])


@pytest.fixture
def w(api: Api) -> World:
    return build_world(api)


def build_world(api: Api) -> World:
    store = api.state.store
    it = store.insert("sections", records.named("IT Support"))["id"]
    other = store.insert("sections", records.named("Facilities"))["id"]

    def cat(name: str, **kw: Any) -> int:
        return int(store.insert("categories", records.category(name, **kw))["id"])

    acme = store.insert("companies", records.company("Acme"))["id"]
    carl = store.insert(
        "users",
        records.user("carl", "carl@acme.com", first_name="Carl", last_name="C", company_id=acme),
    )["id"]
    return World(
        api=api,
        it=it,
        hardware=cat("Hardware", section_id=it),
        software=cat("Software", section_id=it),
        internal=cat("Internal", section_id=it, for_techs_only=True),
        cleaning=cat("Cleaning", section_id=other),
        kb=cat("Docs", kb_only=True),
        acme=acme,
        carl=carl,
    )


def ids(resp: httpx.Response) -> list[int]:
    assert resp.status_code == 200, resp.text
    return [t["IssueID"] for t in resp.json()]


@contextmanager
def quirk_api(*quirks: str) -> Iterator[Api]:
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0, quirks=set(quirks)))
    with httpx.Client(
        transport=InProcessTransport(create_app(state)), base_url="http://sandbox.test"
    ) as client:
        yield Api(client, state)


def create(api: Api, category_id: int, **form: Any) -> int:
    resp = api.post("ticket", categoryId=category_id, subject="Broken", body="Help", **form)
    assert resp.status_code == 200, resp.text
    return int(resp.json()["id"])


# -- POST /ticket and GET /ticket -----------------------------------------------------


def test_create_ticket_and_read_it_back(w: World) -> None:
    api = w.api
    size = w.field("Size", type=3, options=[{"id": 5, "name": "Large"}], category_ids=[w.hardware])
    urgent = w.field("Urgent", type=4)
    tid = create(
        api,
        w.hardware,
        priorityId=1,
        tags="printer, Office ,printer",
        origin=6,
        assignedToUserId=api.user_id("tina"),
        customFields=json.dumps({str(size): 5, str(urgent): True}),
        suppressConfirmation="true",
    )
    detail = api.get("ticket", id=tid).json()
    assert_shape(detail, DETAIL_FIELDS)
    assert detail["TicketID"] == tid
    assert (detail["Subject"], detail["Body"], detail["Priority"]) == ("Broken", "Help", 1)
    assert (detail["StatusID"], detail["Status"]) == (1, "New")
    assert (detail["CategoryID"], detail["CategoryName"]) == (w.hardware, "Hardware")
    assert detail["UserID"] == api.user_id("admin")
    assert detail["SubmitterUserInfo"]["UserID"] == api.user_id("admin")
    assert detail["SubmitterUserInfo"]["Username"] == "admin"
    assert detail["AssignedToUserID"] == api.user_id("tina")
    assert detail["AssigneeUserInfo"]["Username"] == "tina"
    assert detail["OnBehalfUserName"] is None
    assert detail["DueDate"] is None and detail["ResolvedDate"] is None
    assert detail["IssueDate"].endswith("Z") and detail["StartDate"] == detail["IssueDate"]
    assert detail["TimeSpentInSeconds"] == 0
    assert detail["IsCurrentCategoryForTechsOnly"] is False
    assert detail["Attachments"] == []
    assert detail["Tags"] == [
        {"TagID": tag_id("printer"), "Name": "printer", "TagCount": 1},
        {"TagID": tag_id("Office"), "Name": "Office", "TagCount": 1},
    ]
    rec = w.record(tid)
    assert rec["origin"] == 6
    assert rec["custom"] == {str(size): "5", str(urgent): "true"}
    # A tag reuses the spelling it has on other tickets, and counts them.
    other = create(api, w.software, tags="PRINTER")
    assert api.get("ticket", id=other).json()["Tags"] == [
        {"TagID": tag_id("printer"), "Name": "printer", "TagCount": 2}
    ]


def test_create_ticket_defaults_and_on_behalf(w: World) -> None:
    api = w.api
    tid = create(api, w.hardware, userId=w.carl)
    rec = w.record(tid)
    assert (rec["priority"], rec["origin"], rec["tags"]) == (0, 3, [])
    assert (rec["created_by_user_id"], rec["last_updated_by_user_id"]) == (
        api.user_id("admin"),
        api.user_id("admin"),
    )
    detail = api.get("ticket", id=tid).json()
    assert detail["UserID"] == w.carl
    assert detail["OnBehalfUserName"] == "admin"
    assert detail["AssigneeUserInfo"] is None
    assert api.get("Tickets").json()[0]["Origin"] == "API"
    # A custom priority from the Priorities table is accepted.
    w.store.insert("priorities", {"priority_id": 7, "name": "Blocker"})
    assert w.record(create(api, w.hardware, priorityId=7))["priority"] == 7
    # The talep spelling is the same operation.
    resp = api.post("talep", categoryId=w.hardware, subject="S", body="B")
    assert resp.status_code == 200
    assert api.get("talep", id=resp.json()["id"]).json()["Subject"] == "S"
    internal = create(api, w.internal)
    assert api.get("ticket", id=internal).json()["IsCurrentCategoryForTechsOnly"] is True


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({"subject": "S", "body": "B"}, 400),
        ({"categoryId": "x", "subject": "S", "body": "B"}, 400),
        ({"categoryId": 999, "subject": "S", "body": "B"}, 400),
        ({"categoryId": "KB", "subject": "S", "body": "B"}, 400),
        ({"categoryId": "HW", "body": "B"}, 400),
        ({"categoryId": "HW", "subject": "  ", "body": "B"}, 400),
        ({"categoryId": "HW", "subject": "S"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "priorityId": 3}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "priorityId": "high"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "origin": 9}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "origin": -1}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "userId": 999}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "assignedToUserId": 999}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "assignedToUserId": "URSULA"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": "{oops"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": "[1]"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": '{"a": 1}'}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": '{"999": 1}'}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": "NESTED"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": "SW_FIELD"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "customFields": "BAD_OPTION"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "suppressConfirmation": "x"}, 400),
    ],
)
def test_create_ticket_errors(w: World, form: dict[str, Any], status: int) -> None:
    sw_field = w.field("SW only", type=1, category_ids=[w.software])
    size = w.field("Size", type=3, options=[{"id": 5, "name": "L"}])
    note = w.field("Note", type=1)
    replace = {
        "HW": w.hardware,
        "KB": w.kb,
        "URSULA": w.api.user_id("ursula"),
        "SW_FIELD": json.dumps({str(sw_field): "x"}),
        "BAD_OPTION": json.dumps({str(size): 6}),
        "NESTED": json.dumps({str(note): {"a": 1}}),
    }
    data = {k: replace.get(v, v) if isinstance(v, str) else v for k, v in form.items()}
    resp = w.api.post("ticket", **data)
    assert resp.status_code == status, resp.text
    assert w.store.rows("tickets") == []


def test_create_ticket_permissions(w: World) -> None:
    api = w.api
    ursula, tina = api.as_("ursula"), api.as_("tina")
    # A plain user submits their own tickets, in the categories they can see.
    own = create(ursula, w.hardware, userId=api.user_id("ursula"))
    assert w.record(own)["user_id"] == api.user_id("ursula")
    assert ursula.post("ticket", categoryId=w.internal, subject="S", body="B").status_code == 403
    form = {"categoryId": w.hardware, "subject": "S", "body": "B"}
    assert ursula.post("ticket", userId=w.carl, **form).status_code == 403
    assigned = ursula.post("ticket", assignedToUserId=api.user_id("tina"), **form)
    assert assigned.status_code == 403
    # A category technician acts as a technician in their categories only.
    w.grant("tina", w.hardware)
    assert w.record(create(tina, w.hardware, userId=w.carl))["user_id"] == w.carl
    software = {**form, "categoryId": w.software}
    assert tina.post("ticket", userId=w.carl, **software).status_code == 403
    # ... and may not assign a ticket to a technician of another category.
    assert api.post("ticket", assignedToUserId=api.user_id("tina"), **software).status_code == 400
    assert tina.post("ticket", categoryId=w.internal, subject="S", body="B").status_code == 403


def test_get_ticket_errors_and_viewers(w: World) -> None:
    api = w.api
    theirs = w.ticket(user="carl")
    own = w.ticket(user="ursula", category=w.software)
    assert api.get("ticket").status_code == 400
    assert api.get("ticket", id="abc").status_code == 400
    assert api.get("ticket", id=999).status_code == 404
    assert api.as_("ursula").get("ticket", id=theirs).status_code == 403
    assert api.as_("ursula").get("ticket", id=own).status_code == 200
    assert api.as_("tina").get("ticket", id=theirs).status_code == 200
    w.grant("tina", w.software)
    assert api.as_("tina").get("ticket", id=theirs).status_code == 403
    assert api.as_("tina").get("ticket", id=own).status_code == 200
    # A category technician still sees the tickets they submitted elsewhere.
    tinas = w.ticket(user="tina", category=w.hardware)
    assert api.as_("tina").get("ticket", id=tinas).status_code == 200


# -- POST /UpdateTicket and GET /Close -------------------------------------------------


def test_update_ticket_every_field(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula", tags=["old"], issue_date="2024-01-01T00:00:00.000Z")
    w.store.insert("priorities", {"priority_id": 9, "name": "Custom"})
    resp = api.post(
        "UpdateTicket",
        id=tid,
        categoryId=w.software,
        priority=9,
        date="2023-12-24T10:00:00Z",
        userId=w.carl,
        dueDate="2030-05-01",
        assignedUserId=api.user_id("tina"),
        timeSpentInSeconds=600,
        statusId=2,
        tags="a, b",
        subject="New subject",
        body="New body",
    )
    assert (resp.status_code, resp.text) == (200, "OK")
    rec = w.record(tid)
    assert rec["category_id"] == w.software
    assert rec["priority"] == 9
    assert rec["issue_date"] == "2023-12-24T10:00:00.000Z"
    assert rec["user_id"] == w.carl
    assert rec["due_date"] == "2030-05-01T00:00:00.000Z"
    assert rec["assigned_to_user_id"] == api.user_id("tina")
    assert rec["time_spent"] == 600
    assert rec["status_id"] == 2
    assert rec["tags"] == ["a", "b"]
    assert (rec["subject"], rec["body"]) == ("New subject", "New body")
    detail = api.get("ticket", id=tid).json()
    assert detail["TimeSpentInSeconds"] == 600
    assert detail["Status"] == "In process"
    # By a technician: the performer flags, the updater and the time.
    item = api.get("Tickets").json()[0]
    assert (item["UpdatedByPerformer"], item["UpdatedByUser"], item["UpdatedForTechView"]) == (
        True,
        False,
        False,
    )
    assert (item["LastUpdatedByUserID"], item["LastUpdatedUsername"]) == (
        api.user_id("admin"),
        "admin",
    )
    assert item["LastUpdated"] > "2024"
    # An empty dueDate removes it, assignedUserId=0 removes the assignee, tags="" clears.
    api.post("UpdateTalep", id=tid, dueDate="", assignedUserId=0, tags="")
    rec = w.record(tid)
    assert (rec["due_date"], rec["assigned_to_user_id"], rec["tags"]) == (None, None, [])


def test_update_ticket_status_and_dates(w: World) -> None:
    api = w.api
    tid = w.ticket()
    api.post("UpdateTicket", id=tid, statusId=3)
    closed = w.record(tid)
    assert closed["status_id"] == 3 and closed["resolved_date"] is not None
    # Closing again keeps the first resolution time; reopening clears it.
    api.post("UpdateTicket", id=tid, statusId=3)
    assert w.record(tid)["resolved_date"] == closed["resolved_date"]
    api.post("UpdateTicket", id=tid, statusId=1)
    assert w.record(tid)["resolved_date"] is None
    # A past close date wins over "now".
    api.post("UpdateTicket", id=tid, statusId=3, closeDate="2020-02-03")
    assert w.record(tid)["resolved_date"] == "2020-02-03T00:00:00.000Z"
    # Statuses configured in the store are accepted.
    w.store.insert("statuses", {"status_id": 7, "name": "Waiting"})
    api.post("UpdateTicket", id=tid, statusId=7)
    assert api.get("ticket", id=tid).json()["Status"] == "Waiting"
    # Nothing to change: OK, and nothing written.
    before = w.record(tid)
    assert api.post("UpdateTicket", id=tid).text == "OK"
    assert w.record(tid) == before


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({}, 400),
        ({"id": "x"}, 400),
        ({"id": 999}, 404),
        ({"statusId": 99}, 400),
        ({"statusId": "closed"}, 400),
        ({"priority": 5}, 400),
        ({"categoryId": 999}, 400),
        ({"categoryId": "KB"}, 400),
        ({"timeSpentInSeconds": -1}, 400),
        ({"date": "yesterday"}, 400),
        ({"dueDate": "never"}, 400),
        ({"closeDate": "13/13/2020"}, 400),
        ({"userId": 999}, 400),
        ({"assignedUserId": 999}, 400),
        ({"assignedUserId": "URSULA"}, 400),
        ({"subject": ""}, 400),
        ({"body": " "}, 400),
    ],
)
def test_update_ticket_errors(w: World, form: dict[str, Any], status: int) -> None:
    tid = w.ticket()
    before = w.record(tid)
    replace = {"KB": w.kb, "URSULA": w.api.user_id("ursula")}
    data = {k: replace.get(v, v) if isinstance(v, str) else v for k, v in form.items()}
    if form and "id" not in form:
        data["id"] = tid
    resp = w.api.post("UpdateTicket", **data)
    assert resp.status_code == status, resp.text
    assert w.record(tid) == before


def test_update_ticket_permissions(w: World) -> None:
    api = w.api
    ursula, tina = api.as_("ursula"), api.as_("tina")
    own = w.ticket(user="ursula", subject="Mine", body="Text")
    theirs = w.ticket(user="carl")
    # A plain user edits their own ticket, but not its subject, body, submitter, assignee.
    assert ursula.post("UpdateTicket", id=own, priority=1, statusId=2).status_code == 200
    rec = w.record(own)
    assert (rec["priority"], rec["status_id"]) == (1, 2)
    # ... which flags it as updated by the customer.
    assert (rec["updated_by_user"], rec["updated_for_tech_view"]) == (True, True)
    assert rec["updated_by_performer"] is False
    assert rec["last_updated_by_user_id"] == api.user_id("ursula")
    for change in (
        {"subject": "Changed"},
        {"body": "Changed"},
        {"userId": w.carl},
        {"assignedUserId": api.user_id("tina")},
    ):
        assert ursula.post("UpdateTicket", id=own, **change).status_code == 403, change
    # Sending the current values (a complete record) is not a change.
    same = ursula.post("UpdateTicket", id=own, subject="Mine", body="Text", priority=0)
    assert same.status_code == 200
    assert w.record(own)["priority"] == 0
    assert ursula.post("UpdateTicket", id=theirs, priority=1).status_code == 403
    assert ursula.post("UpdateTicket", id=own, categoryId=w.internal).status_code == 403
    # A technician edits everything; a category technician only in their categories.
    assert tina.post("UpdateTicket", id=theirs, subject="By tina").status_code == 200
    w.grant("tina", w.software)
    assert tina.post("UpdateTicket", id=theirs, priority=2).status_code == 403
    assert tina.post("UpdateTicket", id=own, subject="x").status_code == 403
    mine_elsewhere = w.ticket(user="tina", category=w.hardware)
    assert tina.post("UpdateTicket", id=mine_elsewhere, statusId=2).status_code == 200
    assert tina.post("UpdateTicket", id=mine_elsewhere, body="x").status_code == 403


def test_close(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula")
    resp = api.get("Close", id=tid, suppressNotification="true")
    assert (resp.status_code, resp.text) == (200, "OK")
    rec = w.record(tid)
    assert rec["status_id"] == 3 and rec["resolved_date"] is not None
    assert api.get("ticket", id=tid).json()["ResolvedDate"] == rec["resolved_date"]
    assert ids(api.get("Tickets", mode="unclosed")) == []
    # The submitter may close their own ticket; others may not.
    second = w.ticket(user="ursula")
    assert api.as_("ursula").get("Close", id=second).status_code == 200
    theirs = w.ticket(user="carl")
    assert api.as_("ursula").get("Close", id=theirs).status_code == 403
    assert api.get("Close").status_code == 400
    assert api.get("Close", id=999).status_code == 404
    assert api.get("Close", id=theirs, suppressNotification="maybe").status_code == 400
    assert w.record(theirs)["status_id"] == 1

from __future__ import annotations

from typing import Any

import pytest

from reconciler.sandbox import records
from reconciler.sandbox.store import Record
from tests.sandbox.conftest import Api

COMMENT_FIELDS: dict[str, Any] = {
    "CommentID": int,
    "IssueID": int,
    "UserID": int,
    "UserName": str,
    "Email": str,
    "FirstName": str,
    "LastName": str,
    "IsSystem": bool,
    "CommentDate": str,
    "ForTechsOnly": bool,
    "Body": str,
    "TicketSubject": (str, type(None)),
    "Recipients": str,
}


class World:
    def __init__(self, api: Api) -> None:
        self.api = api
        self.store = api.state.store
        self.hardware = self.store.insert("categories", records.category("Hardware"))["id"]
        self.software = self.store.insert("categories", records.category("Software"))["id"]
        self.carl = self.store.insert(
            "users", records.user("carl", "carl@example.com", first_name="Carl", last_name="C")
        )["id"]

    def ticket(self, user: str = "ursula", category: int | None = None, **kw: Any) -> int:
        rec = records.ticket(
            subject="Printer jam",
            body="It jams",
            category_id=category or self.hardware,
            user_id=self.api.user_id(user),
            now="2024-01-01T00:00:00.000Z",
        )
        return int(self.store.insert("tickets", {**rec, **kw})["id"])

    def record(self, table: str, rid: int) -> Record:
        rec = self.store.get(table, rid)
        assert rec is not None
        return dict(rec)

    def grant(self, username: str, category_id: int) -> None:
        self.store.insert(
            "tech_permissions",
            {"user_id": self.api.user_id(username), "category_id": category_id},
        )


@pytest.fixture
def w(api: Api) -> World:
    return World(api)


def test_add_and_list_comments(w: World) -> None:
    api = w.api
    tid = w.ticket()
    resp = api.post("comment", id=tid, body="Have you tried turning it off?")
    assert (resp.status_code, resp.text) == (200, "OK")
    api.as_("tina").post("comment", id=tid, body="Parts ordered", forTechsOnly="true")
    api.post("comment", id=tid, body="Status changed", isSystem="True")
    listed = api.get("comments", id=tid).json()
    assert [c["Body"] for c in listed] == [
        "Have you tried turning it off?",
        "Parts ordered",
        "Status changed",
    ]
    for item in listed:
        assert set(item) == set(COMMENT_FIELDS)
        for key, kind in COMMENT_FIELDS.items():
            assert isinstance(item[key], kind), key
    first = listed[0]
    assert first == {
        "CommentID": first["CommentID"],
        "IssueID": tid,
        "UserID": api.user_id("admin"),
        "UserName": "admin",
        "Email": "admin@example.com",
        "FirstName": "Admin",
        "LastName": "",
        "IsSystem": False,
        "CommentDate": first["CommentDate"],
        "ForTechsOnly": False,
        "Body": "Have you tried turning it off?",
        "TicketSubject": "Printer jam",
        "Recipients": "",
    }
    assert first["CommentDate"].endswith("Z")
    assert (listed[1]["UserName"], listed[1]["ForTechsOnly"]) == ("tina", True)
    assert listed[2]["IsSystem"] is True
    # The submitter is a viewer, but not of the comments for technicians only.
    mine = api.as_("ursula").get("comments", id=tid).json()
    assert [c["Body"] for c in mine] == ["Have you tried turning it off?", "Status changed"]


def test_comments_oldest_first_by_date(w: World) -> None:
    tid = w.ticket()
    for body, date in (("late", "2024-03-01T00:00:00Z"), ("early", "2024-02-01T00:00:00.000Z")):
        w.store.insert(
            "comments",
            records.comment(ticket_id=tid, user_id=w.carl, body=body, date=date),
        )
    assert [c["Body"] for c in w.api.get("comments", id=tid).json()] == ["early", "late"]
    other = w.ticket()
    assert w.api.get("comments", id=other).json() == []


def test_a_comment_updates_the_ticket(w: World) -> None:
    api = w.api
    tid = w.ticket()
    api.as_("tina").post("comment", id=tid, body="On it")
    rec = w.record("tickets", tid)
    assert rec["last_updated"] > "2024-01-01T00:00:00.000Z"
    assert rec["last_updated_by_user_id"] == api.user_id("tina")
    assert (rec["updated_by_performer"], rec["updated_by_user"]) == (True, False)
    item = api.get("Tickets").json()[0]
    assert (item["LastUpdatedByUserID"], item["LastUpdatedUsername"]) == (
        api.user_id("tina"),
        "tina",
    )
    # Posted as the submitter (fromUserId), it counts as a customer update.
    api.post("comment", id=tid, body="Still broken", fromUserId=api.user_id("ursula"))
    rec = w.record("tickets", tid)
    assert (rec["updated_by_performer"], rec["updated_by_user"]) == (False, True)
    assert rec["updated_for_tech_view"] is True
    assert api.get("comments", id=tid).json()[-1]["UserName"] == "ursula"
    assert api.get("Tickets", mode="unanswered").json()[0]["IssueID"] == tid


def test_comment_recipients(w: World) -> None:
    api = w.api
    subscribers = [api.user_id("tina"), w.carl, api.user_id("admin")]
    tid = w.ticket(subscriber_ids=subscribers)
    api.post("comment", id=tid, body="To everyone")
    api.post("comment", id=tid, body="To carl", recipientIds=f"{w.carl}")
    api.post("comment", id=tid, body="Techs", forTechsOnly="true")
    api.post("comment", id=tid, body="Two", recipientIds=f"{w.carl},{api.user_id('tina')}")
    listed = {c["Body"]: c["Recipients"] for c in api.get("comments", id=tid).json()}
    assert listed == {
        # Every subscriber but the author.
        "To everyone": "tina@example.com, carl@example.com",
        "To carl": "carl@example.com",
        # Only the subscribers who may read it.
        "Techs": "tina@example.com",
        "Two": "carl@example.com, tina@example.com",
    }


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({"body": "x"}, 400),
        ({"id": "x", "body": "x"}, 400),
        ({"id": 999, "body": "x"}, 404),
        ({"id": "T"}, 400),
        ({"id": "T", "body": "  "}, 400),
        ({"id": "T", "body": "x", "forTechsOnly": "perhaps"}, 400),
        ({"id": "T", "body": "x", "isSystem": "perhaps"}, 400),
        ({"id": "T", "body": "x", "recipientIds": "1,x"}, 400),
        ({"id": "T", "body": "x", "recipientIds": "999"}, 400),
        ({"id": "T", "body": "x", "fromUserId": 999}, 400),
        ({"id": "T", "body": "x", "fromUserId": "x"}, 400),
    ],
)
def test_add_comment_errors(w: World, form: dict[str, Any], status: int) -> None:
    tid = w.ticket()
    data = {k: tid if v == "T" else v for k, v in form.items()}
    resp = w.api.post("comment", **data)
    assert resp.status_code == status, resp.text
    assert w.store.rows("comments") == []


def test_add_comment_permissions(w: World) -> None:
    api = w.api
    own = w.ticket(user="ursula")
    # The spec's table: an administrator or a technician of the category, not the submitter.
    assert api.as_("ursula").post("comment", id=own, body="Any news?").status_code == 403
    assert api.as_("tina").post("comment", id=own, body="Yes").status_code == 200
    # Posting as another user needs an administrator.
    as_carl = api.as_("tina").post("comment", id=own, body="x", fromUserId=w.carl)
    assert as_carl.status_code == 403
    assert api.post("comment", id=own, body="x", fromUserId=w.carl).status_code == 200
    # A category technician comments in their categories only.
    w.grant("tina", w.software)
    assert api.as_("tina").post("comment", id=own, body="x").status_code == 403
    elsewhere = w.ticket(user="ursula", category=w.software)
    assert api.as_("tina").post("comment", id=elsewhere, body="x").status_code == 200
    assert [c["UserID"] for c in api.get("comments", id=own).json()] == [
        api.user_id("tina"),
        w.carl,
    ]


def test_list_comments_errors_and_viewers(w: World) -> None:
    api = w.api
    theirs = w.ticket(user="admin")
    assert api.get("comments").status_code == 400
    assert api.get("comments", id="x").status_code == 400
    assert api.get("comments", id=999).status_code == 404
    assert api.as_("ursula").get("comments", id=theirs).status_code == 403
    assert api.as_("tina").get("comments", id=theirs).status_code == 200
    w.grant("tina", w.software)
    assert api.as_("tina").get("comments", id=theirs).status_code == 403


def test_update_comment(w: World) -> None:
    api = w.api
    tid = w.ticket()
    api.as_("tina").post("comment", id=tid, body="Draft", forTechsOnly="true")
    cid = w.store.rows("comments")[0]["id"]
    resp = api.as_("tina").post("updatecomment", id=cid, body="Final", forTechsOnly="true")
    assert (resp.status_code, resp.text) == (200, "OK")
    assert (w.record("comments", cid)["body"], w.record("comments", cid)["for_techs_only"]) == (
        "Final",
        True,
    )
    # forTechsOnly defaults to false: omitting it makes the comment public.
    api.post("updatecomment", id=cid, body="Public")
    assert api.as_("ursula").get("comments", id=tid).json()[0]["Body"] == "Public"
    # Neither the author, a technician of the category nor an administrator: 403.
    assert api.as_("ursula").post("updatecomment", id=cid, body="Hacked").status_code == 403
    # The author may edit their comment even outside their categories.
    w.grant("tina", w.software)
    assert api.as_("tina").post("updatecomment", id=cid, body="Mine").status_code == 200
    api.post("comment", id=tid, body="By admin")
    other = w.store.rows("comments")[1]["id"]
    assert api.as_("tina").post("updatecomment", id=other, body="x").status_code == 403
    assert w.record("comments", other)["body"] == "By admin"
    assert api.post("updatecomment", body="x").status_code == 400
    assert api.post("updatecomment", id=999, body="x").status_code == 404
    assert api.post("updatecomment", id=cid).status_code == 400
    assert api.post("updatecomment", id=cid, body=" ").status_code == 400
    assert api.post("updatecomment", id=cid, body="x", forTechsOnly="?").status_code == 400

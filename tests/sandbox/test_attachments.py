"""Tests of `attachments.py` (`AttachFile`, `Attachments`, `attachment`, `DeleteFile`)
and of the files sent with `POST /ticket` and `POST /comment`."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import httpx
import pytest

from reconciler.sandbox.helpdesk.attachments import content_disposition
from reconciler.sandbox.helpdesk.tickets import MAX_FILE_SIZE
from tests.sandbox.conftest import Api
from tests.sandbox.test_tickets import World, assert_shape, build_world

ATTACHMENT_FIELDS: dict[str, Any] = {
    "FileName": str,
    "FileData": type(None),
    "FileID": int,
    "CommentID": int,
    "CommentDate": str,
    "FileHash": (str, type(None)),
    "FileSize": int,
    "IssueID": int,
    "UserID": int,
    "GoogleDriveUrl": (str, type(None)),
    "ForTechsOnly": bool,
    "Url": str,
}
LIST_FIELDS: dict[str, Any] = {
    "FileName": str,
    "FileID": int,
    "FileSize": int,
    "IssueID": int,
    "UserID": int,
    "Url": str,
}
BASE = "http://sandbox.test/helpdesk/api"

File = tuple[str, bytes, str]


@pytest.fixture
def w(api: Api) -> World:
    return build_world(api)


def upload(api: Api, path: str, files: list[File], **form: Any) -> httpx.Response:
    """A multipart request: `form` fields and one `uploadFile` part per file."""
    return api.client.post(
        f"/helpdesk/api/{path}",
        data={k: str(v) for k, v in form.items()},
        files=[("uploadFile", f) for f in files],
        headers=api.headers(),
    )


def attach(api: Api, ticket_id: int, *files: File) -> None:
    resp = upload(api, "AttachFile", list(files), id=ticket_id)
    assert (resp.status_code, resp.text) == (200, "OK"), resp.text


def stored(w: World) -> list[dict[str, Any]]:
    return [dict(r) for r in w.store.rows("attachments")]


# -- AttachFile, Attachments, attachment ----------------------------------------------


def test_attach_list_and_download(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula")
    assert api.get("Attachments", id=tid).json() == []
    attach(api.as_("ursula"), tid, ("notes.txt", b"hello", "text/plain"))
    attach(api, tid, ("a.bin", b"\x00\x01", "application/octet-stream"), ("b.png", b"PNG", ""))
    listed = api.get("Attachments", id=tid).json()
    for item in listed:
        assert_shape(item, LIST_FIELDS)
    first = listed[0]
    assert first == {
        "FileName": "notes.txt",
        "FileID": first["FileID"],
        "FileSize": 5,
        "IssueID": tid,
        "UserID": api.user_id("ursula"),
        "Url": f"{BASE}/attachment?id={first['FileID']}",
    }
    assert [i["FileName"] for i in listed] == ["notes.txt", "a.bin", "b.png"]
    # The ticket detail carries the full Attachment objects.
    files = api.get("ticket", id=tid).json()["Attachments"]
    for item in files:
        assert_shape(item, ATTACHMENT_FIELDS)
    rec = w.record(tid)
    assert files[0] == {
        "FileName": "notes.txt",
        "FileData": None,
        "FileID": first["FileID"],
        "CommentID": 0,
        "CommentDate": stored(w)[0]["date"],
        "FileHash": hashlib.sha256(b"hello").hexdigest(),
        "FileSize": 5,
        "IssueID": tid,
        "UserID": api.user_id("ursula"),
        "GoogleDriveUrl": None,
        "ForTechsOnly": False,
        "Url": first["Url"],
    }
    # Attaching counts as an update of the ticket by the caller.
    assert rec["last_updated_by_user_id"] == api.user_id("admin")
    # The download: bytes, type, name; the Url works as given.
    resp = api.client.get(first["Url"], headers=api.headers())
    assert resp.status_code == 200
    assert resp.content == b"hello"
    assert resp.headers["content-type"].startswith("text/plain")
    assert resp.headers["content-disposition"] == 'attachment; filename="notes.txt"'
    binary = api.get("attachment", id=listed[1]["FileID"])
    assert binary.content == b"\x00\x01"
    assert binary.headers["content-type"] == "application/octet-stream"
    # Without a part type, the type is guessed from the name.
    assert api.get("attachment", id=listed[2]["FileID"]).headers["content-type"] == "image/png"


def test_file_names(w: World) -> None:
    api = w.api
    tid = w.ticket()
    attach(api, tid, ("C:\\Users\\me\\report.pdf", b"%PDF", "application/pdf"))
    attach(api, tid, ("Übersicht Q1.txt", b"x", "text/plain"))
    # (A part with an empty file name arrives as a form field, not as a file.)
    attach(api, tid, ("C:\\Temp\\", b"x", "text/plain"))
    first, umlaut, unnamed = api.get("Attachments", id=tid).json()
    # Some browsers send the client's path: only the name is kept.
    assert first["FileName"] == "report.pdf"
    assert unnamed["FileName"] == "file"
    resp = api.get("attachment", id=umlaut["FileID"])
    assert resp.headers["content-disposition"] == (
        "attachment; filename=\"?bersicht Q1.txt\"; filename*=UTF-8''%C3%9Cbersicht%20Q1.txt"
    )
    # (Clients send a quote in a file name as %22; one stored with a quote is still safe.)
    assert content_disposition('say "hi".txt') == (
        "attachment; filename=\"say 'hi'.txt\"; filename*=UTF-8''say%20%22hi%22.txt"
    )


def test_attach_file_errors_and_permissions(w: World) -> None:
    api = w.api
    tid, theirs = w.ticket(user="ursula"), w.ticket(user="carl")
    small: File = ("a.txt", b"a", "text/plain")
    assert upload(api, "AttachFile", [small]).status_code == 400
    assert upload(api, "AttachFile", [small], id="x").status_code == 400
    assert upload(api, "AttachFile", [small], id=999).status_code == 404
    assert upload(api, "AttachFile", [], id=tid).status_code == 400
    # A form field named uploadFile is no file.
    assert api.post("AttachFile", id=tid, uploadFile="text").status_code == 400
    assert upload(api.as_("ursula"), "AttachFile", [small], id=theirs).status_code == 403
    # Over 10 MB: refused, and nothing is stored, not even the smaller file before it.
    big: File = ("big.bin", b"\x00" * (MAX_FILE_SIZE + 1), "application/octet-stream")
    resp = upload(api, "AttachFile", [small, big], id=tid)
    assert resp.status_code == 400 and "10 MB" in resp.text
    assert stored(w) == []
    assert w.record(tid)["last_updated_by_user_id"] is None
    # Exactly 10 MB is accepted.
    attach(api, tid, ("max.bin", b"\x00" * MAX_FILE_SIZE, "application/octet-stream"))
    assert stored(w)[0]["size"] == MAX_FILE_SIZE
    assert base64.b64decode(stored(w)[0]["data"]) == b"\x00" * MAX_FILE_SIZE


def test_attachments_and_download_errors(w: World) -> None:
    api = w.api
    tid, theirs = w.ticket(user="ursula"), w.ticket(user="carl")
    attach(api, theirs, ("a.txt", b"a", "text/plain"))
    file_id = stored(w)[0]["id"]
    assert api.get("Attachments").status_code == 400
    assert api.get("Attachments", id=999).status_code == 404
    assert api.as_("ursula").get("Attachments", id=theirs).status_code == 403
    assert api.as_("ursula").get("Attachments", id=tid).json() == []
    assert api.get("attachment").status_code == 400
    assert api.get("attachment", id="x").status_code == 400
    assert api.get("attachment", id=999).status_code == 404
    assert api.as_("ursula").get("attachment", id=file_id).status_code == 403
    assert api.as_("tina").get("attachment", id=file_id).status_code == 200
    # A file whose ticket is gone is gone too.
    w.store.delete("tickets", theirs)
    assert api.get("attachment", id=file_id).status_code == 404


# -- DeleteFile ----------------------------------------------------------------------


def test_delete_file(w: World) -> None:
    api = w.api
    tid = w.ticket()
    attach(api, tid, ("a.txt", b"a", "text/plain"), ("b.txt", b"b", "text/plain"))
    attach(api, tid, ("c.txt", b"c", "text/plain"))
    first, second, third = (r["id"] for r in stored(w))
    for who in ("tina", "ursula"):
        assert api.as_(who).get("DeleteFile", id=first).status_code == 403
    resp = api.get("DeleteFile", id=first)
    assert (resp.status_code, resp.text) == (200, "OK")
    assert api.get(f"DeleteFile/{second}").text == "OK"
    assert api.post("DeleteFile", id=third).text == "OK"
    assert stored(w) == []
    assert api.get("Attachments", id=tid).json() == []
    assert api.get("attachment", id=first).status_code == 404
    assert api.get("DeleteFile", id=first).status_code == 404
    assert api.get("DeleteFile").status_code == 400
    assert api.get("DeleteFile/abc").status_code == 400


# -- files of POST /ticket and POST /comment ------------------------------------------


def test_files_of_a_new_ticket(w: World) -> None:
    api = w.api
    form = {"categoryId": w.hardware, "subject": "Broken", "body": "See photo"}
    resp = upload(api.as_("ursula"), "ticket", [("photo.jpg", b"JPEG", "image/jpeg")], **form)
    assert resp.status_code == 200, resp.text
    tid = resp.json()["id"]
    files = api.get("ticket", id=tid).json()["Attachments"]
    assert [(f["FileName"], f["CommentID"], f["UserID"]) for f in files] == [
        ("photo.jpg", 0, api.user_id("ursula"))
    ]
    assert api.get("attachment", id=files[0]["FileID"]).content == b"JPEG"
    # The talep spelling too; a file over the limit creates nothing.
    big: File = ("big.bin", b"\x00" * (MAX_FILE_SIZE + 1), "application/octet-stream")
    assert upload(api, "talep", [big], **form).status_code == 400
    assert [t["id"] for t in w.store.rows("tickets")] == [tid]
    assert len(stored(w)) == 1


def test_files_of_a_comment(w: World) -> None:
    api = w.api
    tid = w.ticket(user="ursula")
    resp = upload(api, "comment", [("log.txt", b"log", "text/plain")], id=tid, body="See log")
    assert (resp.status_code, resp.text) == (200, "OK")
    resp = upload(
        api,
        "comment",
        [("secret.txt", b"s", "text/plain")],
        id=tid,
        body="Internal",
        forTechsOnly="true",
        fromUserId=api.user_id("tina"),
    )
    assert resp.status_code == 200, resp.text
    comments = api.get("comments", id=tid).json()
    files = api.get("ticket", id=tid).json()["Attachments"]
    assert [(f["FileName"], f["CommentID"], f["ForTechsOnly"], f["UserID"]) for f in files] == [
        ("log.txt", comments[0]["CommentID"], False, api.user_id("admin")),
        ("secret.txt", comments[1]["CommentID"], True, api.user_id("tina")),
    ]
    # Files of comments for technicians only are for technicians only.
    ursula = api.as_("ursula")
    assert [f["FileName"] for f in ursula.get("ticket", id=tid).json()["Attachments"]] == [
        "log.txt"
    ]
    assert [f["FileName"] for f in ursula.get("Attachments", id=tid).json()] == ["log.txt"]
    assert ursula.get("attachment", id=files[1]["FileID"]).status_code == 403
    assert ursula.get("attachment", id=files[0]["FileID"]).content == b"log"
    assert api.as_("tina").get("attachment", id=files[1]["FileID"]).content == b"s"
    # A refused comment stores no file.
    resp = upload(api, "comment", [("x.txt", b"x", "text/plain")], id=tid, body=" ")
    assert resp.status_code == 400
    assert len(stored(w)) == 2

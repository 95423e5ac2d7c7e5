"""Attachments: `AttachFile`, `Attachments`, `attachment` (the file itself) and
`DeleteFile` (also `/DeleteFile/{id}`).

Files are stored base64 in the `attachments` table (`records.attachment`); uploads are
read and stored by the helpers of `tickets.py`, shared with `POST /ticket` and
`POST /comment`, which store their `uploadFile` parts the same way.

Permissions: `AttachFile`, `Attachments` and `attachment` need a viewer of the ticket
(the spec's "caller"/"viewer"); files of comments for technicians only are for
technicians of the ticket's category. `DeleteFile` needs an administrator (the spec).

Decisions where the spec is silent:
- `AttachFile` stores every `uploadFile` part (at least one, else 400), each at most
  10 MB (400 otherwise, nothing stored), as files of the ticket itself (`CommentID` 0),
  answers `OK`, and counts as an update of the ticket by the caller.
- `Attachments` lists the files of the ticket and of its comments, oldest first.
- `attachment` answers the bytes with the stored `Content-Type` and
  `Content-Disposition: attachment` with the file name (RFC 6266, `filename*` for names
  that are not ASCII). A file whose ticket was deleted is 404.
- `DeleteFile` is served for GET (the spec) and POST; it does not change the ticket's
  update time.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from starlette.responses import Response

from reconciler.sandbox.errors import HttpError, not_found
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.helpdesk.ticket_files import (
    api_url,
    read_uploads,
    store_uploads,
    ticket_files,
)
from reconciler.sandbox.helpdesk.tickets import (
    is_ticket_tech,
    touched,
    viewed,
    viewed_ticket,
)
from reconciler.sandbox.store import Record


def list_form(ctx: Ctx, rec: Record) -> dict[str, Any]:
    """The item of `Attachments` (the detail's Attachment object is in `tickets.py`)."""
    return {
        "FileName": rec["file_name"],
        "FileID": rec["id"],
        "FileSize": rec["size"],
        "IssueID": rec["ticket_id"],
        "UserID": rec["user_id"],
        "Url": api_url(ctx, f"attachment?id={rec['id']}"),
    }


def content_disposition(name: str) -> str:
    ascii_name = name.encode("ascii", "replace").decode("ascii").replace('"', "'")
    value = f'attachment; filename="{ascii_name}"'
    if ascii_name != name:
        value += f"; filename*=UTF-8''{quote(name)}"
    return value


@endpoint("AttachFile", methods=("POST",))
async def attach_file(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    uploads = await read_uploads(ctx)
    if not uploads:
        raise HttpError(400, "No file: send it as the multipart part 'uploadFile'")
    store_uploads(ctx, uploads, ticket["id"])
    stamp = touched(ctx.store, ticket, ctx.caller, ctx.state.timestamp())
    ctx.store.update("tickets", ticket["id"], **stamp)
    return OK


@endpoint("Attachments")
async def attachments(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    return [list_form(ctx, a) for a in ticket_files(ctx, ticket)]


@endpoint("attachment")
async def attachment(ctx: Ctx) -> Any:
    rec = ctx.record("attachments", ctx.id_param("id"), "File")
    if ctx.store.get("tickets", rec["ticket_id"]) is None:
        raise not_found(f"File {rec['id']}")
    ticket = viewed(ctx, rec["ticket_id"])
    if rec["for_techs_only"] and not is_ticket_tech(ctx, ticket):
        raise HttpError(403, f"Access denied: file {rec['id']} is for technicians only")
    return Response(
        base64.b64decode(rec["data"]),
        media_type=rec["content_type"],
        headers={"Content-Disposition": content_disposition(rec["file_name"])},
    )


@endpoint("DeleteFile", methods=("GET", "POST"), permission=Permission.ADMIN)
async def delete_file(ctx: Ctx) -> Any:
    rec = ctx.record("attachments", ctx.id_param("id", "fileId"), "File")
    ctx.store.delete("attachments", rec["id"])
    return OK

"""Files of tickets and comments: reading `uploadFile` parts, storing them, and the
Attachment items (decisions in `tickets.py`)."""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import UploadFile

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import Ctx
from reconciler.sandbox.helpdesk.tickets import MAX_FILE_SIZE, is_ticket_tech
from reconciler.sandbox.store import Record

# -- uploads -------------------------------------------------------------------------


@dataclass(frozen=True)
class Upload:
    name: str
    content_type: str
    data: bytes


async def read_uploads(ctx: Ctx) -> list[Upload]:
    """The `uploadFile` parts of the request, read and checked before anything is written,
    so that a refused file leaves no half-done write behind."""
    out: list[Upload] = []
    for key, value in ctx.params.items():
        if key != "uploadfile" or not isinstance(value, UploadFile):
            continue
        # Some browsers send the client's full path as the file name.
        name = (value.filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip() or "file"
        data = await value.read(MAX_FILE_SIZE + 1)
        if len(data) > MAX_FILE_SIZE:
            raise HttpError(400, f"File '{name}' is larger than the limit of 10 MB")
        kind = value.content_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
        out.append(Upload(name, kind, data))
    return out


def store_uploads(
    ctx: Ctx, uploads: list[Upload], ticket_id: int, comment: Record | None = None
) -> None:
    """Files of a ticket, or of one of its comments (then by its author, and for
    technicians only when the comment is)."""
    for upload in uploads:
        rec = records.attachment(
            ticket_id=ticket_id,
            user_id=comment["user_id"] if comment else ctx.caller["id"],
            file_name=upload.name,
            content_type=upload.content_type,
            data=upload.data,
            date=ctx.state.timestamp(),
            comment_id=comment["id"] if comment else None,
            for_techs_only=bool(comment and comment["for_techs_only"]),
        )
        ctx.store.insert("attachments", rec)


def ticket_files(ctx: Ctx, ticket: Record) -> list[Record]:
    """The files of a ticket that the caller may see, oldest first."""
    tech = is_ticket_tech(ctx, ticket)
    return [
        a
        for a in ctx.store.rows("attachments")
        if a["ticket_id"] == ticket["id"] and (tech or not a["for_techs_only"])
    ]


def api_url(ctx: Ctx, path: str) -> str:
    """An address of this API as the request reached it, the install's prefix kept."""
    url = ctx.request.url
    prefix = url.path[: max(url.path.lower().find("/api/"), 0)]
    return f"{url.scheme}://{url.netloc}{prefix}/api/{path}"


def attachment_item(ctx: Ctx, rec: Record) -> dict[str, Any]:
    """The Attachment object of the ticket detail."""
    return {
        "FileName": rec["file_name"],
        "FileData": None,
        "FileID": rec["id"],
        "CommentID": rec["comment_id"] or 0,
        "CommentDate": rec["date"],
        "FileHash": rec["file_hash"],
        "FileSize": rec["size"],
        "IssueID": rec["ticket_id"],
        "UserID": rec["user_id"],
        "GoogleDriveUrl": None,
        "ForTechsOnly": rec["for_techs_only"],
        "Url": api_url(ctx, f"attachment?id={rec['id']}"),
    }

"""The response shapes of spec/helpdesk-api.md ("Resources and their fields"), written
from the spec alone, and a checker that lists every way an answer departs from them.

A shape maps each field the spec names to the types it allows. `TS` is a timestamp (an
ISO 8601 string); `NULL` marks a nullable field. A nested shape is checked recursively;
`[shape]` is a list whose items have that shape. Fields the spec does not list are
allowed (real versions add keys, and the quirks do too); a missing field or a wrong type
is a difference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

NULL = type(None)
TS = "timestamp"
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")

Shape = Mapping[str, Any]

USER: Shape = {
    "UserID": int,
    "Username": str,
    "Password": NULL,  # "always null when returned"
    "Email": str,
    "FirstName": str,
    "LastName": str,
    "Notes": str,
    "Location": str,
    "Phone": str,
    "CompanyName": (str, NULL),
    "CompanyId": (int, NULL),
    "CompanyNotes": (str, NULL),
    "IPAddress": str,
    "HostName": str,
    "Lang": str,
    "UserAgent": str,
    "AvatarURL": (str, NULL),
    "Signature": str,
    "Greeting": str,
    "IsAdmin": bool,
    "IsTech": bool,
    "IsManager": bool,
    "Disabled": bool,
    "SendEmail": bool,
    "LastSeen": (TS, NULL),
    "PushToken": (str, NULL),
    "FullNameAndLogin": str,
    "FullName": str,
}
# "Departman (Department) | string or null": the spec's own spelling.
USER_WITH_DEPARTMENT: Shape = {**USER, "Departman": (str, NULL)}

USER_LIST_ITEM: Shape = {
    "UserID": int,
    "FirstName": str,
    "LastName": str,
    "Notes": str,
    "Location": str,
    "Phone": str,
    "CompanyName": (str, NULL),
    "CompanyId": (int, NULL),
    "DepartmentID": (int, NULL),
    "LastSeen": (TS, NULL),
    "Username": str,
    "Email": str,
    "IsAdmin": bool,
    "Disabled": bool,
}
UPDATED_USER: Shape = {
    "UserID": int,
    "Username": str,
    "Email": str,
    "IsAdmin": bool,
    "Disabled": bool,
}

TAG: Shape = {"TagID": int, "Name": str, "TagCount": int}
ATTACHMENT: Shape = {
    "FileName": str,
    "FileData": NULL,
    "FileID": int,
    "CommentID": int,
    "CommentDate": TS,
    "FileHash": (str, NULL),
    "FileSize": int,
    "IssueID": int,
    "UserID": int,
    "GoogleDriveUrl": (str, NULL),
    "ForTechsOnly": bool,
    "Url": str,
}
ATTACHMENT_LIST_ITEM: Shape = {
    "FileName": str,
    "FileID": int,
    "FileSize": int,
    "IssueID": int,
    "UserID": int,
    "Url": str,
}

TICKET: Shape = {
    "TicketID": int,
    "Subject": str,
    "Body": str,
    "Priority": int,
    "StatusID": int,
    "Status": str,
    "CategoryID": int,
    "CategoryName": str,
    "UserID": int,
    "AssignedToUserID": (int, NULL),
    "SubmitterUserInfo": {"UserID": int},
    # "object: UserID plus further user properties"; an unassigned ticket has none.
    "AssigneeUserInfo": ({"UserID": int}, NULL),
    "OnBehalfUserName": (str, NULL),
    "IssueDate": TS,
    "StartDate": TS,
    "DueDate": (TS, NULL),
    "ResolvedDate": (TS, NULL),
    "TimeSpentInSeconds": int,
    "UpdatedByUser": bool,
    "UpdatedByPerformer": bool,
    "UpdatedForTechView": bool,
    "IsCurrentCategoryForTechsOnly": bool,
    "Attachments": [ATTACHMENT],
    "Tags": [TAG],
}

TICKET_LIST_ITEM: Shape = {
    "IssueID": int,
    "Priority": int,
    "StatusID": int,
    "IssueDate": TS,
    "Subject": str,
    "Status": str,
    "UpdatedByUser": bool,
    "UpdatedByPerformer": bool,
    "CategoryID": int,
    "UserName": str,
    "Technician": (str, NULL),
    "FirstName": str,
    "LastName": str,
    "DueDate": (TS, NULL),
    "TechFirstName": (str, NULL),
    "TechLastName": (str, NULL),
    "LastUpdated": TS,
    "UpdatedForTechView": bool,
    "UserID": int,
    "CompanyID": (int, NULL),
    "CompanyName": (str, NULL),
    "AssignedToUserID": (int, NULL),
    "ResolvedDate": (TS, NULL),
    "SectionID": (int, NULL),
    "Category": str,
    "Origin": str,
    "Email": str,
    "HasChildren": bool,
    "LastUpdatedByUserID": int,
    "LastUpdatedUsername": str,
    "StartDate": TS,
}
LINKED_TICKET: Shape = {
    "TicketID": int,
    "Subject": str,
    "StatusID": int,
    "UpdatedByUser": bool,
    "UpdatedByPerformer": bool,
    "CompanyID": (int, NULL),
    "UserID": int,
    "Username": str,
    "FirstName": str,
    "LastName": str,
    "IssueDate": TS,
}

COMMENT: Shape = {
    "CommentID": int,
    "IssueID": int,
    "UserID": int,
    "UserName": str,
    "Email": str,
    "FirstName": str,
    "LastName": str,
    "IsSystem": bool,
    "CommentDate": TS,
    "ForTechsOnly": bool,
    "Body": str,
    "TicketSubject": (str, NULL),
    "Recipients": str,
}
COMMENT_TEMPLATE: Shape = {
    "TemplateId": int,
    "Name": str,
    "Body": str,
    "CategoryIDs": [int],
    "GroupID": (int, NULL),
    "GroupName": (str, NULL),
}

CATEGORY: Shape = {
    "CategoryID": int,
    "Name": str,
    "SectionID": (int, NULL),
    "Section": (str, NULL),
    "NameWithSection": str,
    "ForTechsOnly": bool,
    "FromAddress": (str, NULL),
}

TICKET_FIELD_VALUE: Shape = {
    "FieldName": str,
    "FieldID": int,
    "Type": int,
    "UsageType": int,
    "Value": (str, NULL),
    "ValueWithOption": (str, NULL),
    "Mandatory": bool,
}
FIELD_DEFINITION: Shape = {
    "FieldID": int,
    "FieldName": str,
    "Type": int,
    "UsageType": int,
    "Mandatory": bool,
}
CATEGORY_FIELD: Shape = {
    "FieldName": str,
    "FieldID": int,
    "Type": int,
    "UsageType": int,
    "ForTechsOnly": bool,
    "Mandatory": bool,
    "OrderByNumber": int,
    "ShowInGrid": bool,
    # "list of dropdown options; element shape not shown" (null for other fields).
    "SelectionComboOptions": (list, NULL),
}
FIELD_VALUE: Shape = {"FieldName": str, "FieldID": int, "Type": int, "Value": (str, NULL)}

COMPANY: Shape = {"CompanyID": int, "Name": str, "EmailDomain": (str, NULL), "Notes": (str, NULL)}
DEPARTMENT: Shape = {"DepartmentID": int, "Name": str}
PRIORITY: Shape = {"PriorityID": int, "Name": str}
CATEGORY_TECHNICIAN: Shape = {
    "UserID": int,
    "Username": str,
    "FirstName": str,
    "LastName": str,
    "TicketsAssigned": int,
    "FullNameAndLogin": str,
    "FullName": str,
}
TICKET_TEMPLATE: Shape = {"Subject": str, "Body": str}
TIME_ENTRY: Shape = {
    "UserID": int,
    "UserName": str,
    "StatusID": int,
    "TimeSpentInSeconds": int,
    "Date": TS,
}
INTEGRATION_DATA: Shape = {
    name: (str, NULL)
    for name in (
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
}
STATS_ALL: Shape = {
    name: int
    for name in (
        "TotalTickets",
        "Closed",
        "InProcess",
        "NewTickets",
        "Unanswered",
        "Unassigned",
        "Unclosed",
        "HandledByMe",
    )
}
STATS_MINE: Shape = {
    name: int
    for name in (
        "NewTickets",
        "Unanswered",
        "Unassigned",
        "Unclosed",
        "HandledByMe",
        "SubmittedByMe",
        "InProcess",
    )
}
ARTICLE: Shape = {
    "ArticleId": int,
    "Subject": str,
    "Body": (str, NULL),
    "ForTechsOnly": bool,
    "CategoryID": int,
    "CategoryName": str,
    "CategoryNotes": (str, NULL),
    "TagString": (str, NULL),
    "UrlId": (str, NULL),
    "DateCreated": TS,
    "LastUpdated": TS,
    "Url": str,
    "Attachments": list,
    "Tags": (list, NULL),
}
ARTICLE_LISTING: Shape = {"Articles": [ARTICLE], "Categories": list, "Tags": list}
ASSET: Shape = {
    "ItemID": int,
    "Manufacturer": str,
    "Supplier": str,
    "ModelName": str,
    "TypeID": int,
    "Type": str,
    "ManufacturerID": int,
    "SupplierID": int,
    "SerialNumber": (str, NULL),
    "Location": (str, NULL),
    "Comments": (str, NULL),
    "Quantity": int,
    "TicketCount": int,
    "company": (dict, NULL),
    "CompanyID": (int, NULL),
    "Tickets": (list, NULL),
    "AssignedUsers": list,
    "Fields": list,
    "Attachments": (list, NULL),
}
CREATED: Shape = {"id": int}
CREATED_USER: Shape = {"userId": int}


def differences(value: Any, expected: Any, where: str = "$") -> list[str]:
    """Every way `value` departs from `expected` (a shape, a type, a tuple of choices, a
    one-item list of an item shape, `TS` or `NULL`), each naming its JSON path."""
    if isinstance(expected, tuple):
        tried = [differences(value, choice, where) for choice in expected]
        return [] if any(not found for found in tried) else min(tried, key=len)
    if isinstance(expected, list):
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        return [
            d
            for i, item in enumerate(value)
            for d in differences(item, expected[0], f"{where}[{i}]")
        ]
    if isinstance(expected, Mapping):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        out: list[str] = []
        for name, kind in expected.items():
            if name not in value:
                out.append(f"{where}.{name}: missing")
            else:
                out += differences(value[name], kind, f"{where}.{name}")
        return out
    if expected == TS:
        if isinstance(value, str) and _TIMESTAMP.match(value):
            return []
        return [f"{where}: expected an ISO 8601 timestamp, got {value!r}"]
    if expected is NULL:
        return [] if value is None else [f"{where}: expected null, got {value!r}"]
    if expected is int and isinstance(value, bool):
        return [f"{where}: expected int, got bool"]
    if isinstance(value, expected):
        return []
    return [f"{where}: expected {expected.__name__}, got {type(value).__name__} {value!r}"]

"""The response shapes of the helpdesk API spec ("Resources and their fields"), written
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

CATEGORY: Shape = {
    "CategoryID": int,
    "Name": str,
    "SectionID": (int, NULL),
    "Section": (str, NULL),
    "NameWithSection": str,
    "ForTechsOnly": bool,
    "FromAddress": (str, NULL),
}

FIELD_DEFINITION: Shape = {
    "FieldID": int,
    "FieldName": str,
    "Type": int,
    "UsageType": int,
    "Mandatory": bool,
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

"""Reading answers: bodies, error texts, the id of a created object, a rule's XML.

These are pure functions of what the server sent, tolerant of every shape that
`spec/real-world-notes.md` reports (a bare integer for `CreateUser`, element names in
any case, a rule document without name or state).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import httpx
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from reconciler.errors import ApiError

# Keys that name the id of a created object, most specific first (compared in lower case).
_ID_KEYS = ("id", "userid", "itemid", "assetid", "companyid", "categoryid", "ticketid")
_INTEGER = re.compile(r"^\s*-?\d+\s*$")
_SHOWN_BODY = 200


def parse_body(response: httpx.Response) -> Any:
    """JSON when the answer is JSON, otherwise its text (XML and `OK` stay text).

    A body that announces itself as text but reads as a JSON object or array is parsed
    too: some servers label JSON `text/html`. JSON in UTF-8 (no other charset named) is
    parsed from the bytes, as `json.loads` reads them, a byte-order mark included."""
    content_type = response.headers.get("content-type", "").lower()
    body: str | bytes
    if "json" in content_type:
        utf8 = "charset" not in content_type or "utf-8" in content_type
        body = response.content if utf8 else response.text
        if not body.strip():
            return None
    else:
        body = response.text
        if body.lstrip()[:1] not in ("{", "["):
            return body
    try:
        return _loads(body)
    except ValueError:
        return response.text


def _loads(text: str | bytes) -> Any:
    """`json.loads`, reading an answer nested deeper than the parser goes as not JSON
    (its text, which the caller refuses as the wrong shape)."""
    try:
        return json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _not_json(constant: str) -> Any:
    """`NaN`, `Infinity`: Python reads them, JSON has no such values (the body stays text)."""
    raise ValueError(f"{constant} is not JSON")


def error_message(response: httpx.Response) -> str:
    """The API's own explanation: plain text from the helpdesk, `error`/`message` from
    JSON services, else the status's reason phrase."""
    body = parse_body(response)
    if isinstance(body, dict):
        for key in ("error", "message", "detail", "title", "Message", "ExceptionMessage"):
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                return value
            if isinstance(value, dict) and isinstance(value.get("message"), str):
                return str(value["message"])
        errors = body.get("errors")
        if isinstance(errors, list) and errors:
            return "; ".join(str(e.get("message", e) if isinstance(e, dict) else e) for e in errors)
    if isinstance(body, str) and body.strip():
        return _shorten(body.strip(), 500)
    if not isinstance(body, str) and body not in (None, [], {}):
        return _shorten(json.dumps(body), 500)
    return response.reason_phrase or f"HTTP {response.status_code}"


def created_id(body: Any, *, path: str = "") -> int:
    """The id of an object a create returned: `{"id": N}`, `{"userId": N}`, another
    id-ish key, a bare integer (`CreateUser` on some versions) or a numeric string."""
    found = _find_id(body)
    if found is None:
        raise ApiError(
            None, "POST", path, f"the answer carries no id of the created object: {_shown(body)}"
        )
    return found


def _find_id(body: Any) -> int | None:
    if isinstance(body, bool):
        return None
    if isinstance(body, int):
        return body
    if isinstance(body, str):
        text = body.strip().strip('"')
        return int(text) if _INTEGER.match(text) else None
    if isinstance(body, dict):
        lowered = {str(k).lower(): v for k, v in body.items()}
        for key in _ID_KEYS:
            if key in lowered and (found := _scalar_id(lowered[key])) is not None:
                return found
        idish = [v for k, v in lowered.items() if k.endswith("id")]
        ids = [found for v in idish if (found := _scalar_id(v)) is not None]
        if len(ids) == 1:
            return ids[0]
        for wrapper in ("data", "result", "item"):
            if isinstance(lowered.get(wrapper), dict):
                return _find_id(lowered[wrapper])
    return None


def _scalar_id(value: Any) -> int | None:
    return None if isinstance(value, dict | list) else _find_id(value)


@dataclass(frozen=True)
class RuleInfo:
    """What a rule's XML says about it; None where the document does not say."""

    id: int | None
    name: str | None
    enabled: bool | None


_RULE_ROOTS = ("automationrule", "rule")
_RULE_ID = ("ruleid", "id")
_RULE_NAME = ("name", "rulename", "title")
_RULE_ENABLED = ("enabled", "isenabled", "active", "isactive")
_RULE_DISABLED = ("disabled", "isdisabled")
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def parse_rule(xml: str, *, rule_id: int | None = None) -> RuleInfo:
    """Read `GET /Rule/{id}`: root `AutomationRule` (any case, any namespace), with the
    id, name and enabled state as child elements or attributes when present. Raises
    `ApiError` when the document is not XML or not a rule."""
    path = f"/api/Rule/{rule_id}" if rule_id is not None else "/api/Rule"
    try:
        root = fromstring(xml.strip())
    except (ParseError, DefusedXmlException) as exc:
        raise ApiError(
            None, "GET", path, f"the answer is not a valid rule document: {exc}"
        ) from None
    if _local(root.tag) not in _RULE_ROOTS:
        raise ApiError(
            None, "GET", path, f"the answer is not a rule document (root <{_local(root.tag)}>)"
        )
    values = _values(root)
    enabled = _boolean(_first(values, _RULE_ENABLED))
    if enabled is None:
        disabled = _boolean(_first(values, _RULE_DISABLED))
        enabled = None if disabled is None else not disabled
    raw_id = _first(values, _RULE_ID)
    return RuleInfo(
        id=int(raw_id) if raw_id is not None and _INTEGER.match(raw_id) else None,
        name=_first(values, _RULE_NAME),
        enabled=enabled,
    )


def _local(tag: str) -> str:
    """`{namespace}Name` -> `name`."""
    return tag.rpartition("}")[2].lower()


def _values(root: Element) -> dict[str, str]:
    """Texts of the root's direct children, then its attributes, by lower-case local
    name; the first of a name wins."""
    values: dict[str, str] = {}
    for child in root:
        if isinstance(child.tag, str):
            values.setdefault(_local(child.tag), (child.text or "").strip())
    for key, value in root.attrib.items():
        values.setdefault(_local(key), value.strip())
    return values


def _first(values: dict[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        if values.get(name):
            return values[name]
    return None


def _boolean(text: str | None) -> bool | None:
    if text is None:
        return None
    lowered = text.strip().lower()
    return True if lowered in _TRUE else False if lowered in _FALSE else None


def _shown(body: Any) -> str:
    return _shorten(body if isinstance(body, str) else json.dumps(body, default=str), _SHOWN_BODY)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

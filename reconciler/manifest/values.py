"""Strict value types of the manifest models, each with the JSON Schema that says the same.

pydantic's lax mode would read `is_admin: "yes"`, `on` or `1` as true, and `quantity: "5"`
as 5. A manifest is a file people review, so a value means what it says:
- a boolean is `true` or `false`;
- a whole number is a number (not `true`, not `"5"`) within the 32 bits the API stores;
- an e-mail address is one (checked by email-validator, offline: no DNS lookup; the
  usual address by a pattern it is held to, without importing it);
- an e-mail domain is a host name (`;` is the API's separator: it would never converge).

`${NAME}` stands for text, and a value given entirely as `${NAME}` may also stand for a
boolean or a number: `enabled: ${RULES_ON}` with RULES_ON=true. The value the variable
gives is then read as strictly as a written one. The loader marks such values as
`FromVariable` (see `mark_variables`), which is how a variable's `"5"` is told from a
written `"5"`; the JSON Schema allows the `${NAME}` form wherever one is allowed here.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from reconciler.manifest.yamltree import Node

INT32_MAX = 2**31 - 1
VARIABLE_PATTERN = r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$"
# Labels of letters, digits and inner hyphens, joined by dots (no lookahead: JSON Schema
# tools differ in regex features); the 253-character limit is checked in code.
HOSTNAME_PATTERN = (
    r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)
_VARIABLE = re.compile(VARIABLE_PATTERN)
_HOSTNAME = re.compile(HOSTNAME_PATTERN)
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
# The usual address: an ASCII dot-atom, a domain of plain labels (no `--`, so no `xn--`)
# under a top level of letters. email-validator accepts every such address within the
# length limits, so it is not asked (0.1 ms an address: a tenth of `validate` for 5,000
# users, issue 13). tests/manifest/test_email_fast_path.py holds the two to agreement.
_PLAIN_EMAIL = re.compile(
    r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
    r"[A-Za-z]{2,63}"
)
# YAML 1.1 words some expect to be booleans; YAML 1.2 (and this tool) reads them as text.
_YAML11_BOOLEANS = {"yes", "no", "on", "off", "y", "n"}

VARIABLE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": VARIABLE_PATTERN,
    "description": (
        "${NAME}: the value of a variable (--var-file or the environment), checked as the "
        "field is when the manifests are loaded. The credential variables (HELPDESK_TOKEN, "
        "HELPDESK_PASSWORD, WORKSPACE_API_KEY, those in RECONCILER_SECRET_VARIABLES or "
        "under credentials in reconciler.yaml, a CI platform's token) are refused anywhere "
        "in a manifest, and so are names ending in _TOKEN, _PASSWORD, _SECRET or _KEY "
        "unless settings.allow_variables lists them."
    ),
}


class FromVariable(str):
    """A string value written entirely as `${NAME}`, after substitution."""


class Unresolved(str):
    """A `${NAME}` left as written: the variable is not set, which the loader has reported
    already. Validators let it pass, so that it is reported once."""


def mark_variables(node: Node) -> Any:
    """The node as plain data for pydantic (`Node.plain()`), with every string that was
    written as `${NAME}` alone marked as `FromVariable`."""
    return node.plain(_marked)


def _marked(node: Node) -> Any:
    value = node.value
    if isinstance(value, str) and node.raw is not None and _VARIABLE.match(node.raw):
        return Unresolved(value) if node.raw == value else FromVariable(value)
    return value


def _found(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, FromVariable):
        return f"'{value}' (from a variable)"
    if isinstance(value, str):
        return f"'{value}'"
    if value is None:
        return "nothing (null)"
    if isinstance(value, int | float):
        return str(value)
    return f"a {type(value).__name__}"


def _strict_bool(value: Any) -> Any:
    if isinstance(value, Unresolved):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, FromVariable) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    hint = ""
    if isinstance(value, str) and value.lower() in _YAML11_BOOLEANS:
        hint = " (YAML 1.2 reads it as text)"
    raise PydanticCustomError(
        "strict_bool",
        "expected true or false, found {found}{hint}",
        {"found": _found(value), "hint": hint},
    )


def _number(kind: type[int | float], minimum: int, maximum: int) -> Any:
    """The validator of a number (`int`: a whole number, which the API stores in 32 bits)
    from `minimum` to `maximum`, given as one or as a variable that gives one."""
    whole = kind is int
    pattern, noun = (_INTEGER, "a whole number") if whole else (_NUMBER, "a number")
    types = int if whole else (int, float)
    limit = " (the API stores it in 32 bits)" if whole else ""

    def check(value: Any) -> Any:
        number = value
        if isinstance(value, Unresolved):
            return minimum
        if isinstance(value, FromVariable) and pattern.match(value.strip()):
            number = kind(value)
        elif isinstance(value, bool) or not isinstance(value, types):
            raise PydanticCustomError(
                "strict_int" if whole else "strict_float",
                f"expected {noun}, found {{found}}",
                {"found": _found(value)},
            )
        if not minimum <= number <= maximum:
            raise PydanticCustomError(
                "int_range" if whole else "number_range",
                "{number} is out of range: from {minimum} to {maximum}" + limit,
                {"number": number, "minimum": minimum, "maximum": maximum},
            )
        return number

    return check


def _number_schema(kind: str, minimum: int, maximum: int) -> WithJsonSchema:
    bounded = {"type": kind, "minimum": minimum, "maximum": maximum}
    return WithJsonSchema({"anyOf": [bounded, VARIABLE_SCHEMA]})


StrictBool = Annotated[
    bool,
    BeforeValidator(_strict_bool),
    WithJsonSchema({"anyOf": [{"type": "boolean"}, VARIABLE_SCHEMA]}),
]


def plainly_valid_email(value: str) -> bool:
    """An address of the usual shape, which email-validator would accept (`_PLAIN_EMAIL`)."""
    local, _, domain = value.rpartition("@")
    return (
        len(value) <= 254
        and len(local) <= 64
        and "--" not in domain
        and _PLAIN_EMAIL.fullmatch(value) is not None
    )


def _email(value: Any) -> Any:
    if isinstance(value, Unresolved) or not isinstance(value, str):
        return value  # a wrong type is pydantic's to report
    value = value.strip()
    if plainly_valid_email(value):
        return value
    _both_services_accept(value)
    # Imported here: its module compiles large regular expressions (about 40 ms), which
    # the usual address, taken by the fast path above, never needs (issue 25).
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(value, check_deliverability=False, globally_deliverable=False)
    except EmailNotValidError as exc:
        if "special-use or reserved name" in str(exc):
            return value  # well-formed; `corp.local` is common on self-hosted installs
        raise PydanticCustomError(
            "email",
            "'{value}' is not an e-mail address: {reason}",
            {"value": value, "reason": str(exc)},
        ) from None
    return value


def _both_services_accept(value: str) -> None:
    """The rules of both services, checked before anything is written: the helpdesk wants
    a local part, an `@` and a domain, no space; the workspace also wants a `.` in the
    domain (`a@b` is refused with 422, after the helpdesk user was created)."""
    local, at, domain = value.rpartition("@")
    if at and local and domain and "." not in domain.strip("."):
        raise PydanticCustomError(
            "email",
            "'{value}' is not an e-mail address: the domain '{domain}' has no '.', and "
            "the workspace service refuses such an address",
            {"value": value, "domain": domain},
        )


def finite(value: Any) -> Any:
    """A custom field's value: an unquoted `.inf`, `.nan` (or a number too large, which YAML
    reads as infinite) would be written as the text "inf"/"nan"; quoted, it is text."""
    if isinstance(value, float) and not math.isfinite(value):
        written = str(value)  # "inf", "-inf" or "nan" (a NaN's sign is never shown)
        raise PydanticCustomError(
            "finite",
            "{written} is not a value a field can hold: YAML reads an unquoted .inf or .nan "
            "as a special number; quote it (for example '.{bare}') to write it as text",
            {"written": written, "bare": written.removeprefix("-")},
        )
    return value


def _hostname(value: Any) -> Any:
    if isinstance(value, Unresolved) or not isinstance(value, str):
        return value
    value = value.strip()
    if len(value) > 253 or not _HOSTNAME.match(value):
        why = (
            "holds ';'" if ";" in value else "holds white space" if re.search(r"\s", value) else ""
        )
        raise PydanticCustomError(
            "hostname",
            "'{value}' is not a domain name{why}: letters, digits, '-' and '.' (an "
            "internationalised domain in its xn-- form); one domain per list item",
            {"value": value, "why": f" (it {why})" if why else ""},
        )
    return value


Email = Annotated[
    str,
    BeforeValidator(_email),
    WithJsonSchema(
        {
            "anyOf": [
                # The format alone is "holds an @" in most validators; the pattern adds
                # what any address has: one @, text on both sides, no space, ';' or ','.
                {
                    "type": "string",
                    "format": "email",
                    "pattern": r"^[^@\s;,]+@[^@\s;,]+\.[^@\s;,]+$",
                },
                VARIABLE_SCHEMA,
            ]
        }
    ),
]
Hostname = Annotated[
    str,
    BeforeValidator(_hostname),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": HOSTNAME_PATTERN}, VARIABLE_SCHEMA]}),
]

# Ids the API stores as 32-bit integers (positive), and counts (zero allowed).
Id32 = Annotated[
    int, BeforeValidator(_number(int, 1, INT32_MAX)), _number_schema("integer", 1, INT32_MAX)
]
Count32 = Annotated[
    int, BeforeValidator(_number(int, 0, INT32_MAX)), _number_schema("integer", 0, INT32_MAX)
]
Percent = Annotated[
    float, BeforeValidator(_number(float, 0, 100)), _number_schema("number", 0, 100)
]

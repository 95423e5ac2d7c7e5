"""Automation rules: `Rule/{id}` (the rule as XML), `EnableRule/{id}`, `DisableRule/{id}`.

Every endpoint answers GET and POST (real clients use both) and takes the id from the path
or, failing that, from an `id` parameter. There is no endpoint that lists rules, as on the
real service: rules are addressed by id only.

Decisions where the spec is silent:
- Permissions (the spec lists none): every rule endpoint needs an administrator.
- The XML is `<AutomationRule>` holding `RuleID`, `Name`, `Enabled` (`true`/`false`),
  `conditions` and `actions`, served as `application/xml`. With quirk `rule-xml-minimal`
  only `conditions` and `actions` remain (nobody publicly knows whether the real document
  names the rule or its state).
- The stored `conditions`/`actions` are inner XML fragments and are embedded as they are.
  A fragment that is not well-formed XML on its own (or declares entities) is embedded as
  escaped text instead, so that the document always parses.
- `EnableRule`/`DisableRule` are idempotent and answer `OK`; an unknown id is 404.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import ParseError
from xml.sax.saxutils import escape

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring
from starlette.responses import Response

from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.store import Record

_METHODS = ("GET", "POST")
# Characters XML 1.0 cannot carry at all, not even escaped.
_INVALID_XML_CHARS = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    return escape(_INVALID_XML_CHARS.sub("", value))


def _fragment(tag: str, fragment: str) -> str:
    """`<tag>fragment</tag>`, with the fragment escaped when it is not well-formed."""
    element = f"<{tag}>{fragment}</{tag}>"
    try:
        fromstring(element)
    except (ParseError, DefusedXmlException):
        return f"<{tag}>{_text(fragment)}</{tag}>"
    return element


def rule_xml(rec: Record, *, minimal: bool) -> str:
    parts = ['<?xml version="1.0" encoding="utf-8"?>', "<AutomationRule>"]
    if not minimal:
        parts.append(f"<RuleID>{rec['id']}</RuleID>")
        parts.append(f"<Name>{_text(rec['name'])}</Name>")
        parts.append(f"<Enabled>{'true' if rec['enabled'] else 'false'}</Enabled>")
    parts.append(_fragment("conditions", rec["conditions"]))
    parts.append(_fragment("actions", rec["actions"]))
    parts.append("</AutomationRule>")
    return "\n".join(parts)


def _rule(ctx: Ctx) -> Record:
    return ctx.record("rules", ctx.id_param("id"), "Rule")


@endpoint("Rule", methods=_METHODS, permission=Permission.ADMIN)
async def get_rule(ctx: Ctx) -> Any:
    xml = rule_xml(_rule(ctx), minimal=ctx.quirk("rule-xml-minimal"))
    return Response(xml.encode("utf-8"), media_type="application/xml")


def _switch(ctx: Ctx, enabled: bool) -> Any:
    """Idempotent: switching a rule to the state it is in answers `OK` and writes nothing
    (clients that cannot read the state send the switch on every run)."""
    rule = _rule(ctx)
    if rule["enabled"] is not enabled:
        ctx.store.update("rules", rule["id"], enabled=enabled)
    return OK


@endpoint("EnableRule", methods=_METHODS, permission=Permission.ADMIN)
async def enable_rule(ctx: Ctx) -> Any:
    return _switch(ctx, True)


@endpoint("DisableRule", methods=_METHODS, permission=Permission.ADMIN)
async def disable_rule(ctx: Ctx) -> Any:
    return _switch(ctx, False)

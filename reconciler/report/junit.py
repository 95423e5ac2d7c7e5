"""JUnit XML for CI test dashboards: one test suite per environment, one test case per
kind, failing when the kind has changes (drift); a plan with errors adds a test case
`plan` with an `<error>` per error. Kinds with no change pass. Values are written as the
text plan writes them on one line (`null`, `true`, `"a\\nb"`, `(known after apply)`). A
labelled plan (docs/drift.md) names each change's cause and counts them in the message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.etree import ElementTree as ET

from reconciler.applied.labels import Cause, counts_line
from reconciler.masking import mask
from reconciler.render.values import KNOWN_AFTER_APPLY, format_value
from reconciler.report.digest import Planned, counts_by_kind, describe_counts

MAX_FIELDS_LISTED = 20
_CAUSES = frozenset(cause.value for cause in Cause)


def _change_text(change: Mapping[str, Any]) -> str:
    cause = f" [{change['cause']}]" if change.get("cause") else ""  # docs/drift.md
    lines = [
        f"{change['action']} {change['address']}{cause}"
        + (f" ({change['source']})" if change.get("source") else "")
    ]
    fields = list(change.get("fields") or ())
    for field in fields[:MAX_FIELDS_LISTED]:
        before, after = _value(field.get("before")), _value(field.get("after"))
        shown = {"create": after, "delete": before}.get(change["action"], f"{before} -> {after}")
        lines.append(f"    {field['path']}: {shown}")
    if len(fields) > MAX_FIELDS_LISTED:
        lines.append(f"    ... and {len(fields) - MAX_FIELDS_LISTED} more fields")
    return "\n".join(lines)


def _value(value: Any) -> str:
    """A value of the plan's JSON as the text plan shows it (a reference's marker too)."""
    if isinstance(value, Mapping) and set(value) == {"known_after_apply"}:
        return KNOWN_AFTER_APPLY
    return format_value(value)


def _suite(planned: Planned, several: bool) -> ET.Element:
    name = f"reconciler plan: {planned.label}" if several else "reconciler plan"
    classname = f"reconciler.{planned.label}" if several else "reconciler"
    suite = ET.Element("testsuite", name=mask(name))
    failures = 0
    for kind, counts in counts_by_kind(planned).items():
        case = ET.SubElement(suite, "testcase", classname=mask(classname), name=mask(kind))
        if sum(counts.values()):
            failures += 1
            changes = [c for c in planned.changes if c["kind"] == kind]
            failure = ET.SubElement(case, "failure", type="drift")
            causes = counts_line({c["address"]: Cause(c["cause"]) for c in changes
                                  if c.get("cause") in _CAUSES})  # fmt: skip
            label = f" ({causes.removeprefix('Causes: ').rstrip('.')})" if causes else ""
            failure.set("message", f"{kind}: {describe_counts(counts)}{label}")
            failure.text = mask("\n".join(_change_text(c) for c in changes))
    if planned.errors:
        case = ET.SubElement(suite, "testcase", classname=mask(classname), name="plan")
        for item in planned.errors:
            where = f"{item['location']}: " if item.get("location") else ""
            subject = f"{item['address']}: " if item.get("address") else ""
            element = ET.SubElement(case, "error", type="plan-error")
            element.set("message", mask(f"{where}{subject}{item['message']}"))
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", str(len(planned.errors)))
    return suite


def junit_xml(plans: Sequence[Planned]) -> str:
    root = ET.Element("testsuites", name="reconciler")
    several = len(plans) > 1
    for planned in plans:
        root.append(_suite(planned, several))
    for name in ("tests", "failures", "errors"):
        root.set(name, str(sum(int(s.attrib[name]) for s in root)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

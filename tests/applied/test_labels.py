"""Labels from two plans' JSON forms (the real one, and the applied commit's against the
same live state), and which labels `--fail-on` counts. Data-driven: each case is the two
plans' changes and the label expected."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from reconciler.applied.labels import Cause, FailOn, counts_line, fails, label


def change(
    key: str, action: str = "update", kind: str = "companies", **extra: Any
) -> dict[str, Any]:
    fields = extra.pop("fields", [("notes", "live", "wanted")])
    return {
        "address": f'{kind}["{key}"]',
        "kind": kind,
        "key": key,
        "action": action,
        "fields": [{"path": p, "before": b, "after": a} for p, b, a in fields],
        "operations": [],
        **extra,
    }


def plan(*changes: dict[str, Any]) -> dict[str, Any]:
    return {"format_version": 1, "changes": list(changes)}


CUSTOM = [("custom_fields.Tier", "Silver", {"option": "Gold", "since": [2024, 1]})]
CUSTOM_LATER = [("custom_fields.Tier", "Silver", {"option": "Gold", "since": [2024, 2]})]
DOMAINS = [("email_domains", ["acme.com"], ["acme.com", "acme.co.uk"])]

# (case, the real plan's change, the applied plan's change at that object or None, label)
CASES: list[tuple[str, dict[str, Any], dict[str, Any] | None, Cause]] = [
    ("same change: a hand change", change("Acme"), change("Acme"), Cause.drift),
    ("applied plan has none: merged since", change("Acme"), None, Cause.pending),
    ("another value wanted since", change("Acme"),
     change("Acme", fields=[("notes", "live", "older")]), Cause.both),
    ("a field more since", change("Acme", fields=[("notes", "a", "b"), ("name", "x", "y")]),
     change("Acme", fields=[("notes", "a", "b")]), Cause.both),
    ("nested custom field, same", change("Acme", fields=CUSTOM), change("Acme", fields=CUSTOM),
     Cause.drift),
    ("nested custom field, one leaf differs", change("Acme", fields=CUSTOM),
     change("Acme", fields=CUSTOM_LATER), Cause.both),
    ("list of domains, same", change("Acme", fields=DOMAINS), change("Acme", fields=DOMAINS),
     Cause.drift),
    ("list of domains, one more since", change("Acme", fields=DOMAINS),
     change("Acme", fields=[("email_domains", ["acme.com"], ["acme.com"])]), Cause.both),
    ("list of technicians in another order: the manifests changed",
     change("IT", kind="categories", fields=[("technicians", [], ["ann", "bob"])]),
     change("IT", kind="categories", fields=[("technicians", [], ["bob", "ann"])]), Cause.both),
    ("fields listed in another order", change("Acme", fields=[("a", 1, 2), ("b", 3, 4)]),
     change("Acme", fields=[("b", 3, 4), ("a", 1, 2)]), Cause.drift),
    ("only where it comes from differs",
     change("Acme", source="manifests/a.yaml:3", reason="r", operations=[{"path": "/x"}]),
     change("Acme", source="/tmp/x/manifests/a.yaml:9"), Cause.drift),
    ("a number is not its string", change("Acme", fields=[("n", 1, 2)]),
     change("Acme", fields=[("n", 1, "2")]), Cause.both),
    ("created again after a hand delete", change("Acme", "create"), change("Acme", "create"),
     Cause.drift),
    ("deleted from the manifests since", change("Acme", "delete"),
     change("Acme", fields=[("notes", "live", "older")]), Cause.both),
    ("renamed since, and changed by hand", change("Acme Inc", renamed_from="Acme"),
     change("Acme"), Cause.both),
    ("renamed since, live as applied", change("Acme Inc", renamed_from="Acme"), None,
     Cause.pending),
    ("same key, another kind", change("Acme", kind="departments"), change("Acme"),
     Cause.pending),
]  # fmt: skip


@pytest.mark.parametrize(("real", "applied", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_label(real: dict[str, Any], applied: dict[str, Any] | None, expected: Cause) -> None:
    others = [change("Other", fields=[("notes", "1", "2")])]
    applied_plan = plan(*others, *([applied] if applied else []))
    assert label(plan(real, *others), applied_plan) == {
        real["address"]: expected,
        'companies["Other"]': Cause.drift,
    }


def test_only_the_real_plans_changes_are_labelled() -> None:
    assert label(plan(), plan(change("Acme"))) == {}
    assert label({"changes": []}, {}) == {}


def test_labels_are_written_as_the_docs_name_them() -> None:
    assert [c.value for c in Cause] == ["drift", "pending", "drift+pending"]


D, P, B = Cause.drift, Cause.pending, Cause.both

# (labels of the plan's changes, None where a change has none; --fail-on; exit 2?)
FAIL_ON: list[tuple[list[Cause | None] | None, str, bool]] = [
    ([], "any", False), ([], "drift", False), ([], "pending", False),
    ([D], "any", True), ([D], "drift", True), ([D], "pending", False),
    ([P], "any", True), ([P], "drift", False), ([P], "pending", True),
    ([B], "any", True), ([B], "drift", True), ([B], "pending", True),
    ([P, P], "drift", False), ([D, D], "pending", False), ([P, D], "drift", True),
    ([None], "drift", True), ([None], "pending", True), ([P, None], "drift", True),
    (None, "drift", True), (None, "pending", True), (None, "any", True),
]  # fmt: skip


@pytest.mark.parametrize(("causes", "fail_on", "expected"), FAIL_ON)
def test_fail_on(causes: list[Cause | None] | None, fail_on: str, expected: bool) -> None:
    # None for the whole plan: no mark; 1 change then, unless the list says how many.
    addresses = [f'users["u{i}"]' for i in range(len(causes) if causes is not None else 1)]
    labels = None
    if causes is not None:
        labels = {a: c for a, c in zip(addresses, causes, strict=True) if c is not None}
    assert fails(addresses, labels, FailOn(fail_on)) is expected
    assert fails(addresses, labels, fail_on) is expected


def test_fail_on_refuses_an_unknown_value() -> None:
    with pytest.raises(ValueError) as refused:
        fails([], {}, "hand")
    assert str(refused.value) == "'hand' is not a valid FailOn"  # the enum's own refusal


def test_the_counts_line_names_each_cause_present() -> None:
    causes = {"a": D, "b": P, "c": P, "d": B, "e": D}
    assert counts_line(causes) == "Causes: 2 drift, 2 pending, 1 drift+pending."
    assert counts_line({"a": P}) == "Causes: 1 pending."
    assert counts_line({}) is None


def test_rendering_labels_loads_neither_deepdiff_nor_git_helpers() -> None:
    # deepdiff takes over half a second to import: only a plan with a mark may pay for it.
    code = (
        "import sys, reconciler.render, reconciler.applied.labels\n"
        "heavy = {'deepdiff', 'reconciler.applied.mark', 'reconciler.manifest'}\n"
        "loaded = heavy & set(sys.modules)\n"
        "print(sorted(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"

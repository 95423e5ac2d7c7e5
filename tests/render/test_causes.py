"""The changes' causes (drift, pending, drift+pending) in the text, JSON and Markdown
plans: after each address, counted under the summary, `"cause"` in JSON; without labels
every format is exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.applied.labels import Cause
from reconciler.plans import Action, Change, FieldChange, Plan
from reconciler.render import format_json, format_markdown, format_text, markdown_parts

PLAN = Plan(
    changes=(
        Change("users", "dmitri", Action.update, (FieldChange("phone", "555-0101", "555-0100"),)),
        Change("companies", "Globex", Action.update, (FieldChange("notes", "old", "merged"),)),
        Change("companies", "Initech", Action.update, (FieldChange("notes", "hand", "merged"),)),
        Change("departments", "Sales", Action.create, (FieldChange("name", None, "Sales"),)),
        Change("departments", "Legacy", Action.delete, removal=True),
    )
)
CAUSES = {
    'users["dmitri"]': Cause.drift,
    'companies["Globex"]': Cause.pending,
    'companies["Initech"]': Cause.both,
    'departments["Sales"]': Cause.pending,
    'departments["Legacy"]': Cause.drift,
}

TEXT = """\
~ users["dmitri"] (drift)
    phone: "555-0101" -> "555-0100"

~ companies["Globex"] (pending)
    notes: "old" -> "merged"

~ companies["Initech"] (drift+pending)
    notes: "hand" -> "merged"

+ departments["Sales"] (pending)
    name: "Sales"

- departments["Legacy"] (drift)

Plan: 1 to create, 3 to update, 1 to delete, 0 to enable, 0 to disable.
Causes: 2 drift, 2 pending, 1 drift+pending.
"""


def test_text_names_each_cause_and_counts_them() -> None:
    assert format_text(PLAN, causes=CAUSES) == TEXT


def test_text_in_colour_shows_the_same_characters() -> None:
    coloured = format_text(PLAN, causes=CAUSES, color=True)
    assert "\x1b[1;35m(drift)\x1b[0m" in coloured
    assert "\x1b[36m(pending)\x1b[0m" in coloured


@pytest.mark.parametrize("causes", [None, {}])
def test_without_labels_the_text_is_as_before(causes: dict[str, Cause] | None) -> None:
    shown = format_text(PLAN, causes=causes)
    assert shown == format_text(PLAN)
    assert "(drift" not in shown
    assert "pending" not in shown
    assert "Causes" not in shown


def test_a_change_without_a_label_is_shown_and_counted_without_one() -> None:
    labels = {'users["dmitri"]': Cause.drift, 'users["gone"]': Cause.pending}
    shown = format_text(PLAN, causes=labels)
    assert '~ users["dmitri"] (drift)\n' in shown
    assert '~ companies["Globex"]\n' in shown
    assert shown.endswith("Causes: 1 drift.\n")  # a label of no change is not counted


def test_json_has_the_cause_as_each_changes_last_key() -> None:
    data = PLAN.to_dict()
    shown = json.loads(format_json(PLAN, data=data, causes=CAUSES))
    assert [c["cause"] for c in shown["changes"]] == [c.value for c in CAUSES.values()]
    assert all(list(c)[-1] == "cause" for c in shown["changes"])
    assert "cause" not in data["changes"][0]  # the caller's dict, shared with reports
    assert format_json(PLAN, causes=None) == format_json(PLAN)
    assert "cause" not in format_json(PLAN, causes={})


def test_markdown_names_the_cause_of_each_change_and_removal() -> None:
    shown = format_markdown(PLAN, causes=CAUSES)
    assert '! users["dmitri"] (drift)\n' in shown
    assert '! companies["Initech"] (drift+pending)\n' in shown
    assert '+ departments["Sales"] (pending)\n' in shown
    assert '- `departments["Legacy"]` (delete, drift)\n' in shown
    assert "**Causes: 2 drift, 2 pending, 1 drift+pending.**" in shown


def test_markdown_with_source_links_names_the_causes() -> None:
    linked = Plan(changes=(Change("users", "dmitri", Action.update, source="m/u.yaml:3"),))
    parts = markdown_parts(linked, source_url="https://x/blob/1", causes=CAUSES)
    assert '! users["dmitri"] (drift)\n' in parts[0]


def test_without_labels_the_markdown_is_as_before() -> None:
    assert format_markdown(PLAN, causes=None) == format_markdown(PLAN)
    assert markdown_parts(PLAN, causes={}) == markdown_parts(PLAN)
    assert "drift" not in format_markdown(PLAN)


def test_the_text_plan_in_the_drift_page_is_what_reconciler_prints() -> None:
    page = (Path(__file__).parents[2] / "docs" / "drift.md").read_text(encoding="utf-8")
    shown = page.split("```text\n", 1)[1].split("```", 1)[0]
    two = Plan(changes=PLAN.changes[:2])
    assert format_text(two, causes=CAUSES) == shown

"""The coverage and unmanaged objects in text and Markdown: figures per kind, why a kind was
not read in full, and the unmanaged keys, bounded (ten named in text, fifty listed in
Markdown, each just at and just past its bound; the JSON lists them all) so that the
Markdown parts still hold every change."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.live.coverage import NOT_LISTABLE
from reconciler.plans import Action, Change, Plan
from reconciler.plans.coverage import Coverage, KindCoverage
from reconciler.render import format_json, format_markdown, format_text, markdown_parts
from reconciler.render.markdown_blocks import MAX_UNMANAGED_ITEMS
from reconciler.render.text import MAX_UNMANAGED_SHOWN
from tests.render.strategies import plans, texts
from tests.render.test_markdown import read_parts
from tests.render.test_text import CONTROL

COVERAGE = Coverage(
    {
        "companies": KindCoverage(3, 3),
        "users": KindCoverage(12, 10, ("yan", "zoe")),
    },
    {"automation_rules": NOT_LISTABLE},
)


def test_text_gives_the_figures_per_kind_and_why_a_kind_was_not_read() -> None:
    text = format_text(Plan((), coverage=COVERAGE))
    assert (
        "Coverage (live objects the manifests manage; the others are unmanaged, not changes):\n"
        "  companies         3 of 3 (100%)\n"
        '  users             10 of 12 (83.3%); unmanaged: "yan", "zoe"\n'
        "  automation_rules  not read in full: the API cannot list them\n"
        "\n"
        "No changes. The live state matches the manifests.\n"
    ) in text


def test_json_lists_every_unmanaged_key() -> None:
    keys = tuple(f"user{i:04}" for i in range(500))
    plan = Plan((), coverage=Coverage({"users": KindCoverage(600, 100, keys)}))
    data = json.loads(format_json(plan))
    assert data["unmanaged"] == {"users": list(keys)}
    assert data["coverage"] == {"users": {"live": 600, "managed": 100, "percent": 16.6}}
    assert data["not_read_in_full"] == {}
    text = format_text(plan)
    assert f'"user{MAX_UNMANAGED_SHOWN - 1:04}" and 490 more' in text
    assert f'"user{MAX_UNMANAGED_SHOWN:04}"' not in text


def test_markdown_has_the_table_in_part_one_and_a_bounded_list() -> None:
    keys = tuple(f"user{i:04}" for i in range(500))
    coverage = Coverage({"users": KindCoverage(600, 100, keys)}, {"automation_rules": "x"})
    changes = tuple(Change("companies", f"Company {i:04}", Action.create) for i in range(400))
    plan = Plan(changes, coverage=coverage)
    parts = markdown_parts(plan, limit=6_000)
    assert len(parts) > 2
    assert "| users | 600 | 100 | 16.6% | 500 |" in parts[0]
    assert "| automation\\_rules | | | not read in full: x | |" in parts[0]
    whole = read_parts(parts, limit=6_000)
    # Every change is still there, and the unmanaged list is bounded.
    assert sum(line.startswith("+ companies[") for line in whole.lines) == 400
    listed = [item for item in whole.items if item.startswith('users["user')]
    assert len(listed) == MAX_UNMANAGED_ITEMS
    assert "450 more of users (the JSON plan lists every one)" in whole.items
    assert "### Unmanaged objects (500)" in "".join(parts)


def test_nothing_is_said_of_a_plan_without_coverage() -> None:
    plan = Plan((Change("companies", "Acme", Action.create),))
    assert "Coverage" not in format_text(plan) and "Coverage" not in format_markdown(plan)
    assert "unmanaged" not in json.loads(format_json(plan))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(texts, min_size=1, max_size=20).map(tuple),
    st.sampled_from(["users", "companies", "workspace.employees"]),
    texts,
    plans,
)
def test_hostile_keys_cannot_break_the_text_or_the_comment(
    keys: tuple[str, ...], kind: str, why: str, plan: Plan
) -> None:
    coverage = Coverage({kind: KindCoverage(len(keys) + 1, 1, keys)}, {"automation_rules": why})
    plan = replace(plan, coverage=coverage)
    plain = format_text(plan)
    assert not CONTROL.search(plain)
    read_parts(markdown_parts(plan, limit=3_000), limit=3_000)


def _unmanaged(count: int) -> Plan:
    keys = tuple(f"u{i:02}" for i in range(count))
    return Plan((), coverage=Coverage({"users": KindCoverage(count + 1, 1, keys)}))


@pytest.mark.parametrize(
    ("count", "percent", "shown"),
    [
        (10, "9", ", ".join(f'"u{i:02}"' for i in range(10))),
        (11, "8.3", ", ".join(f'"u{i:02}"' for i in range(10)) + " and 1 more"),
    ],
)
def test_text_names_ten_unmanaged_keys_then_counts_the_rest(
    count: int, percent: str, shown: str
) -> None:
    assert format_text(_unmanaged(count)) == (
        "Coverage (live objects the manifests manage; the others are unmanaged, not changes):\n"
        f"  users  1 of {count + 1} ({percent}%); unmanaged: {shown}"
        + (" (the JSON plan lists every one)" if count > 10 else "")
        + "\n\nNo changes. The live state matches the manifests.\n"
    )


@pytest.mark.parametrize("count", [50, 51])
def test_markdown_lists_fifty_unmanaged_keys_then_counts_the_rest(count: int) -> None:
    items = "".join(f'- `users["u{i:02}"]`\n' for i in range(50))
    if count > 50:
        items += "- 1 more of users (the JSON plan lists every one)\n"
    percent = "1.9"
    assert format_markdown(_unmanaged(count)) == (
        "## reconciler plan\n\n"
        "**No changes. The live state matches the manifests.**\n\n"
        "**Coverage** (live objects the manifests manage; the others are unmanaged, "
        "not changes):\n\n"
        "| kind | live | managed | coverage | unmanaged |\n|:--|--:|--:|--:|--:|\n"
        f"| users | {count + 1} | 1 | {percent}% | {count} |\n\n"
        f"### Unmanaged objects ({count})\n\n"
        "Live objects no manifest entry names: not changes, `apply` leaves them alone.\n\n"
        f"{items}"
    )

"""The bounds of what text and Markdown show, each just at and just past its value: the
unmanaged keys named in text (10) and listed in Markdown (50), and an address in the
Markdown removals list (300 characters). Whole outputs, so any other change shows too."""

from __future__ import annotations

import pytest

from reconciler.plans import Action, Change, Plan
from reconciler.plans.coverage import Coverage, KindCoverage
from reconciler.render import format_markdown, format_text


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


@pytest.mark.parametrize("length", [300, 301])
def test_an_address_in_the_removals_list_is_shortened_past_300_characters(length: int) -> None:
    key = "k" * (length - len('users[""]'))
    plan = Plan((Change("users", key, Action.delete),))
    removals = format_markdown(plan).split("### Removals and disables (1)\n\n")[1]
    line = removals.split("\n")[0]
    shown = f'users["{key}"]' if length <= 300 else f'users["{key}'[:297] + "..."
    assert line == f"- `{shown}` (delete)"

"""The estimate `apply` prints before it writes (applying/estimate.py): every call it will
send counted with its service, the time at the helpdesk's budget at the edges of each
minute, and the sentence the user reads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from reconciler.applying.estimate import (
    Estimate,
    budget_seconds,
    duration_text,
    estimate,
    estimate_text,
)
from reconciler.plans import Action, Change
from tests.applying.fakes import change, op, plan_of


def test_the_asserted_operations_count_as_calls_of_their_service() -> None:
    """`apply` sends the asserted operations too (a rule's state the API does not show):
    a helpdesk one is a helpdesk call within the budget, not a workspace call."""
    asserted = Change(
        "automation_rules",
        "101",
        Action.enable,
        operations=(op("r1", "/api/EnableRule"), op("r2", "/api/EnableRule")),
        asserted=True,
    )
    plan = replace(
        plan_of(change("workspace.employees", "e", op("e1", service="workspace"))),
        asserted=(asserted,),
    )
    found = estimate(plan, 1)
    assert (found.helpdesk_calls, found.workspace_calls, found.calls) == (2, 1, 3)
    assert found.seconds == 60  # one call a minute: the second a minute after the first
    assert estimate_text(found, 1) == (
        "3 API calls; at the helpdesk's 1 calls a minute this takes about 1 min."
    )
    only_asserted = replace(plan_of(), asserted=(asserted,))
    assert estimate_text(estimate(only_asserted, 90), 90) == (
        "2 API calls; at the helpdesk's 90 calls a minute this takes under a minute."
    )


@pytest.mark.parametrize(
    ("calls", "per_minute", "used", "seconds"),
    [
        (0, 90, 0, 0),
        (-1, 90, 0, 0),
        (5, 0, 0, 0),  # no limit
        (5, -1, 0, 0),
        (1, 1, 0, 0),  # the first call starts at once
        (2, 1, 0, 60),
        (90, 90, 0, 0),
        (91, 90, 0, 60),
        (180, 90, 0, 60),
        (181, 90, 0, 120),
        (1, 90, 89, 0),  # the 90th call of this minute
        (2, 90, 89, 60),
        (1, 90, 90, 60),  # this minute is spent
        (1, 90, 500, 60),  # more than the limit counts as the limit
    ],
)
def test_seconds_at_the_budget(calls: int, per_minute: int, used: int, seconds: float) -> None:
    assert budget_seconds(calls, per_minute, used) == seconds


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "under a minute"),
        (59.9, "under a minute"),
        (60, "about 1 min"),
        (89, "about 1 min"),
        (91, "about 2 min"),
        (3_569, "about 59 min"),
        (3_571, "about 1 h 00 min"),
        (3_600, "about 1 h 00 min"),
        (4_000, "about 1 h 07 min"),
        (36_000, "about 10 h 00 min"),
    ],
)
def test_a_duration_in_words(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text


@pytest.mark.parametrize(
    ("found", "per_minute", "text"),
    [
        (
            Estimate(1, 0, 0),
            90,
            "1 API call; at the helpdesk's 90 calls a minute this takes under a minute.",
        ),
        (
            Estimate(1_200, 34, 780),
            90,
            "1,234 API calls; at the helpdesk's 90 calls a minute this takes about 13 min.",
        ),
        (Estimate(0, 1, 0), 90, "1 API call; no rate limit applies."),  # workspace only
        (Estimate(0, 0, 0), 90, "0 API calls; no rate limit applies."),
        (Estimate(5, 0, 0), 0, "5 API calls; no rate limit applies."),
    ],
)
def test_the_estimate_sentence(found: Estimate, per_minute: int, text: str) -> None:
    assert estimate_text(found, per_minute) == text

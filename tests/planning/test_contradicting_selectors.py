"""`--target` and `--exclude` that contradict each other (plans/addresses.py `selections`):
a target an exclude covers in full is refused with the message naming both as written,
rather than planned as nothing; the combinations that select something are accepted."""

from __future__ import annotations

import pytest

from reconciler.errors import UsageError
from reconciler.plans.addresses import selections


@pytest.mark.parametrize(
    ("targets", "excludes", "shown"),
    [
        (["companies"], ["companies"], "--target companies and --exclude companies"),
        (["users/Bob"], ["users/ bob "], "--target users/Bob and --exclude users/ bob "),
        (["users/bob"], ["users"], "--target users/bob and --exclude users"),
        (['users["Bob"]'], ["users/BOB"], '--target users["Bob"] and --exclude users/BOB'),
        (["assets", "users/a"], ["companies", "users/A"], "--target users/a and --exclude users/A"),
        (["users"], ["users"], "--target users and --exclude users"),
        (["users/Bob"], ["users"], "--target users/Bob and --exclude users"),
        (['users["bob"]'], ["users/ BOB"], '--target users["bob"] and --exclude users/ BOB'),
    ],
)
def test_a_target_an_exclude_covers_is_refused(
    targets: list[str], excludes: list[str], shown: str
) -> None:
    with pytest.raises(UsageError) as refused:
        selections(targets, excludes)
    assert str(refused.value) == (
        f"{shown} contradict each other: the target would select nothing; drop one of them"
    )


@pytest.mark.parametrize(
    ("targets", "excludes"),
    [
        (["users"], ["users/bob"]),  # every user but one
        (["users/a"], ["users/b"]),
        (["companies"], ["users"]),
        ([], ["users"]),
        (["users"], []),
        (["users/ann"], ["users/bob"]),
        (["users"], ["companies"]),
    ],
)
def test_selections_that_select_something_are_accepted(
    targets: list[str], excludes: list[str]
) -> None:
    selected, left_out = selections(targets, excludes)
    assert [s.text for s in selected] == targets
    assert [s.text for s in left_out] == excludes

"""Who has implicit access to every category (administrators, and technicians listed in
every category on a helpdesk that lists implicit access): such users are never planned
for removal. Tables of what `TechsForCategory` answers, and who is told apart."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from reconciler.kinds.tech_permissions.reader import (
    ADMIN_ROLE,
    EVERY_CATEGORY,
    NONE,
    ImplicitAccess,
    Technician,
    access_notes,
    implicit_access,
    listed_everywhere,
    worth_reading_all,
)

ADA, BEN, CY = Technician(1, "ada"), Technician(2, "Ben"), Technician(3, "cy")


def listing(**by_category: list[Technician]) -> dict[int, list[Technician]]:
    return {int(k[1:]): v for k, v in by_category.items()}


@pytest.mark.parametrize(
    ("by_category", "live_ids", "everywhere"),
    [
        (listing(c1=[ADA, BEN]), [1], set()),  # one category: nobody can be told apart
        (listing(c1=[ADA, BEN]), [1, 2], set()),  # category 2 not read
        (listing(c1=[ADA, BEN], c2=[BEN, CY]), [1, 2], {2}),
        (listing(c1=[ADA], c2=[BEN], c3=[ADA, BEN]), [1, 2, 3], set()),
        (listing(c1=[ADA, BEN], c2=[ADA, BEN], c3=[CY]), [1, 2], {1, 2}),  # 3 not live
        (listing(c1=[], c2=[]), [1, 2], set()),
    ],
)
def test_who_is_listed_in_every_live_category(
    by_category: Mapping[int, list[Technician]], live_ids: list[int], everywhere: set[int]
) -> None:
    assert listed_everywhere(by_category, live_ids) == everywhere


@pytest.mark.parametrize(
    ("admins", "by_category", "through"),
    [
        # an administrator listed everywhere: the helpdesk lists implicit access
        ([1], listing(c1=[ADA, BEN], c2=[ADA, BEN, CY]), {1: ADMIN_ROLE, 2: EVERY_CATEGORY}),
        # no administrator listed everywhere: permission rows only, each removable
        ([1], listing(c1=[ADA, BEN], c2=[BEN]), {1: ADMIN_ROLE}),
        ([], listing(c1=[BEN], c2=[BEN]), {}),
        ([3], listing(c1=[BEN]), {3: ADMIN_ROLE}),  # one category: only the role counts
    ],
)
def test_implicit_access_comes_from_the_answers(
    admins: list[int], by_category: Mapping[int, list[Technician]], through: dict[int, str]
) -> None:
    found = implicit_access(admins, by_category, sorted(by_category))
    assert dict(found.through) == through


def test_only_a_user_id_with_implicit_access_is_covered() -> None:
    access = ImplicitAccess({1: ADMIN_ROLE})
    assert access.covers(1)
    assert not access.covers(2)
    assert not access.covers("1")  # a user the plan creates has no id yet
    assert not NONE.covers(1)


@pytest.mark.parametrize(
    ("by_category", "wanted", "count", "worth"),
    [
        # ada (admin) and Ben listed in both categories read, Ben not wanted in one
        (listing(c1=[ADA, BEN], c2=[ADA, BEN]), {1: {"ben"}}, 3, True),
        (listing(c1=[ADA, BEN], c2=[ADA, BEN]), {1: {"ben"}, 2: {"ben"}}, 3, False),
        (listing(c1=[ADA, BEN]), {}, 2, True),
        (listing(c1=[ADA, BEN]), {}, 1, False),  # one live category: nothing to tell
        ({}, {}, 3, False),  # nothing read yet
        (listing(c1=[BEN], c2=[BEN]), {}, 3, False),  # no admin listed: rows only
        (listing(c1=[ADA], c2=[ADA, BEN]), {}, 3, False),  # Ben not everywhere
        (listing(c1=[ADA, CY], c2=[ADA, CY, BEN]), {2: {"cy"}}, 3, True),  # cy, not in 1
    ],
)
def test_whether_the_other_categories_are_worth_reading(
    by_category: Mapping[int, list[Technician]],
    wanted: dict[int, set[str]],
    count: int,
    worth: bool,
) -> None:
    assert worth_reading_all(by_category, {1}, wanted, count) is worth


def test_one_note_per_implicit_technician_in_username_order() -> None:
    access = ImplicitAccess({1: ADMIN_ROLE, 2: EVERY_CATEGORY})
    notes = access_notes(access, {1: "ada", 2: "Ben"}, "users")
    assert [(n.severity, n.text()) for n in notes] == [
        (
            "note",
            'users["ada"]: ada has access through the administrator role: listed by '
            "TechsForCategory, not managed as a category permission (nothing to do: an "
            "administrator works in every category)",
        ),
        (
            "note",
            'users["Ben"]: Ben has access through every category: listed by TechsForCategory, '
            "not managed as a category permission (nothing to do for a technician of every "
            "category; if the user was granted each category one by one, remove the ones "
            "to drop in the helpdesk itself)",
        ),
    ]
    assert access_notes(access, {2: "zed", 1: "Amy"}, "users")[0].address == 'users["Amy"]'

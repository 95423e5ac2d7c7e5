"""A create whose answer was lost (the connection dropped after the request was sent):
apply asks the kind's `locate` whether the object exists now. Found, it is not created
twice; an error other than "not found" while looking is an error, never "not there"
(which would create a duplicate)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest

from reconciler.errors import ApiError
from reconciler.kinds.assets.planner import AssetsResource
from reconciler.kinds.categories.planner import CategoriesResource
from reconciler.kinds.companies.planner import CompaniesResource
from reconciler.kinds.employees.planner import EmployeesResource
from reconciler.kinds.users.planner import UsersResource
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Action, Change, FieldChange

NO_DESIRED = cast(DesiredState, None)  # locate looks only at the live service


class Helpdesk:
    def __init__(self, companies: list[dict[str, Any]], user: Any) -> None:
        self._companies = companies
        self._user = user
        self.asked: list[tuple[str, str, dict[str, Any], bool]] = []

    async def companies(self) -> list[dict[str, Any]]:
        return self._companies

    async def request(
        self, method: str, path: str, params: dict[str, Any], *, write: bool, **_: Any
    ) -> Any:
        # `write` is required, as by the real client: a read-only client refuses a write,
        # and a write is not retried as a read is.
        self.asked.append((method, path, params, write))
        if isinstance(self._user, Exception):
            raise self._user
        return self._user


def locate(resource: Any, kind: str, key: str, helpdesk: Helpdesk) -> Any:
    change = Change(kind, key, Action.create)
    return asyncio.run(resource.locate(change, helpdesk, None, NO_DESIRED))


def test_a_company_whose_create_was_lost_is_found_by_its_name() -> None:
    listed = [{"CompanyID": 3, "Name": "Globex"}, {"CompanyID": 9, "Name": "Acme  Corp"}]
    assert locate(CompaniesResource(), "companies", "acme corp", Helpdesk(listed, None)) == 9
    assert locate(CompaniesResource(), "companies", "Initech", Helpdesk(listed, None)) is None


def test_a_user_whose_create_was_lost_is_found_by_username() -> None:
    helpdesk = Helpdesk([], {"UserID": 41, "Username": "jdoe"})
    assert locate(UsersResource(), "users", "jdoe", helpdesk) == 41
    # A lookup, asked as a read.
    assert helpdesk.asked == [("GET", "/UserByUsername", {"username": "jdoe"}, False)]
    missing = Helpdesk([], ApiError(404, "GET", "/UserByUsername", "not found"))
    assert locate(UsersResource(), "users", "jdoe", missing) is None


@pytest.mark.parametrize("answer", [None, "", []])
def test_a_user_lookup_answered_without_a_user_object_finds_no_user(answer: Any) -> None:
    # An empty body, or one that is no User object: nothing says the create went through.
    assert locate(UsersResource(), "users", "jdoe", Helpdesk([], answer)) is None


def test_an_error_while_looking_for_a_user_is_not_taken_for_absence() -> None:
    error = ApiError(500, "GET", "/UserByUsername", "internal error")
    with pytest.raises(ApiError) as raised:
        locate(UsersResource(), "users", "jdoe", Helpdesk([], error))
    assert raised.value is error  # passed on as it was, not taken for "no such user"


# Assets and employees: apply asks `locate` whether the object exists now, and a wrong answer
# either creates a duplicate (None where one exists) or takes another object for it (the wrong
# id). Assets are matched by serial number over every asset, disabled ones included (the API has
# no serial filter); employees by the manifests' `employee_key`, as the workspace compares it.

ASSETS = [
    {"ItemID": 2, "SerialNumber": None, "ModelName": "no serial"},
    {"ItemID": 3, "SerialNumber": "SN-0001"},
    {"ItemID": 4, "SerialNumber": " sn-0002 "},
    {"ItemID": 5, "SerialNumber": "SN-0002"},  # a later one of the same serial: the first wins
]

EMPLOYEES = [
    {"id": 11, "email": None, "employeeNumber": "E-1"},
    {"id": 12, "email": "Ann@Acme.com", "employeeNumber": "e-2"},
    {"id": 13, "email": "bob@acme.com", "employeeNumber": "E-2"},
]


class AssetsHelpdesk:
    def __init__(self) -> None:
        self.asked: list[bool] = []

    async def assets(self, include_disabled: bool) -> list[dict[str, Any]]:
        self.asked.append(include_disabled)
        return ASSETS


class Workspace:
    async def employees(self) -> list[dict[str, Any]]:
        return EMPLOYEES


@pytest.mark.parametrize(
    ("serial", "found"),
    [("SN-0001", 3), ("sn-0001", 3), ("SN-0002", 4), ("SN-0003", None)],
)
def test_a_lost_asset_is_found_by_its_serial_among_every_asset(
    serial: str, found: int | None
) -> None:
    helpdesk = AssetsHelpdesk()
    change = Change("assets", serial, Action.create)
    assert asyncio.run(AssetsResource().locate(change, helpdesk, None, None)) == found  # type: ignore[arg-type]
    assert helpdesk.asked == [True]


@pytest.mark.parametrize(
    ("employee_key", "key", "found"),
    [
        ("email", "ann@acme.com", 12),
        ("email", "BOB@ACME.COM", 13),
        ("email", "carl@acme.com", None),
        ("employeeNumber", "E-1", 11),
        ("employeeNumber", "E-2", 13),
        ("employeeNumber", "e-2", 12),
        ("employeeNumber", "E-3", None),
    ],
)
def test_a_lost_employee_is_found_by_the_manifests_key(
    employee_key: str, key: str, found: int | None, tmp_path: Path
) -> None:
    manifest = tmp_path / "settings.yaml"
    manifest.write_text(f"settings: {{employee_key: {employee_key}}}\n")
    desired = load_manifests([manifest], env={})
    change = Change("employees", key, Action.create)
    located = asyncio.run(EmployeesResource().locate(change, None, Workspace(), desired))
    assert located == found


# A category create whose answer was lost: apply asks `locate` whether it exists now. A name may
# live in several sections, so the category found is the one in the section the change creates it
# in, never a namesake elsewhere (which would be taken for the new one and the create skipped).

LISTED = [
    {"CategoryID": 3, "Name": "Hardware", "SectionID": 1, "Section": "IT"},
    {"CategoryID": 5, "Name": "hardware", "SectionID": 2, "Section": "Facilities"},
]


class CategoriesHelpdesk:
    async def categories(self) -> list[dict[str, Any]]:
        return LISTED


def locate_category(key: str, section: str | None) -> Any:
    fields = [FieldChange("name", None, key)]
    if section is not None:
        fields.append(FieldChange("section", None, section))
    change = Change("categories", key, Action.create, tuple(fields))
    return asyncio.run(CategoriesResource().locate(change, CategoriesHelpdesk(), None, NO_DESIRED))


def test_a_lost_category_create_is_found_in_its_own_section() -> None:
    assert locate_category("Hardware", "facilities") == 5
    assert locate_category("Hardware", "IT") == 3
    assert locate_category("Hardware", "Finance") is None
    assert locate_category("Software", "IT") is None


def test_without_a_section_the_first_of_that_name_is_found() -> None:
    assert locate_category("HARDWARE", None) == 3

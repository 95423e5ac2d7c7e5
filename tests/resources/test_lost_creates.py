"""A create whose answer was lost (the connection dropped after the request was sent):
apply asks the kind's `locate` whether the object exists now. Found, it is not created
twice; an error other than "not found" while looking is an error, never "not there"
(which would create a duplicate)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from reconciler.errors import ApiError
from reconciler.manifest import DesiredState
from reconciler.plans import Action, Change
from reconciler.resources.companies import CompaniesResource
from reconciler.resources.users import UsersResource

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


def test_an_error_while_looking_for_a_user_is_not_taken_for_absence() -> None:
    failing = Helpdesk([], ApiError(500, "GET", "/UserByUsername", "internal error"))
    with pytest.raises(ApiError) as raised:
        locate(UsersResource(), "users", "jdoe", failing)
    assert raised.value.status == 500

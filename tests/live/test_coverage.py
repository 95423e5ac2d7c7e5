"""Unmanaged objects and coverage, computed by the planner from what it
read (`reconciler/live/coverage.py`): the figures per kind, what is never unmanaged noise (the
account reconciler runs as, disabled objects, implicit technicians), and the kinds not
read in full, reported as such rather than guessed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import UsageError
from reconciler.live.coverage import NAMED_ONLY, NOT_LISTABLE, STATE_UNKNOWN
from reconciler.plans import Plan
from reconciler.plans.coverage import KindCoverage
from reconciler.terminal.console import refuse_partial_coverage
from tests.planning.test_cases import run_case


def user(ident: int, name: str, *, admin: bool = False, disabled: bool = False) -> Any:
    return {"UserID": ident, "Username": name, "Email": f"{name}@acme.com",
            "IsAdmin": admin, "Disabled": disabled}  # fmt: skip


def asset(ident: int, serial: str, **more: Any) -> Any:
    return {"ItemID": ident, "SerialNumber": serial, "ModelName": "X1", "Manufacturer": "Lenovo",
            "Type": "Laptop", "Supplier": "CDW", "Quantity": 1, "AssignedUsers": [],
            "Fields": [], **more}  # fmt: skip


def tech(ident: int, name: str) -> Any:
    return {"UserID": ident, "Username": name, "FirstName": name, "LastName": "T"}


USERS = [
    user(1, "admin", admin=True),  # the account reconciler runs as
    user(2, "tina"),
    user(3, "Zoe"),  # no entry: unmanaged
    user(4, "ivan", disabled=True),  # named, disabled: managed
    user(5, "old", disabled=True),  # no entry, disabled: not counted
    user(6, "root", admin=True),  # another administrator, no entry: unmanaged
]


def planned(tmp_path: Path, desired: Any, helpdesk: Any, **options: Any) -> Plan:
    case = {"desired": desired, "live": {"helpdesk": helpdesk}, "options": options}
    return run_case(case, tmp_path)[0]


def test_users_figures_leave_out_the_caller_and_disabled_users(tmp_path: Path) -> None:
    ivan = {"username": "ivan", "email": "ivan@acme.com", "disabled": True}
    desired = {"users": [{"username": "tina", "email": "tina@acme.com"}, ivan]}
    live = {"Users": USERS, "Departments": [], "Authorization": USERS[0]}
    coverage = planned(tmp_path, desired, live).coverage
    assert coverage is not None
    # Live: tina, Zoe, ivan, root (admin is the caller, old is disabled); managed: tina, ivan.
    assert coverage.kinds == {"users": KindCoverage(4, 2, ("root", "Zoe"))}
    assert coverage.kinds["users"].percent == 50.0
    assert coverage.not_read_in_full == {}
    data = coverage.to_dict()
    assert data["unmanaged"] == {"users": ["root", "Zoe"]}
    assert data["coverage"] == {"users": {"live": 4, "managed": 2, "percent": 50.0}}


def test_the_percentage_is_rounded_down_never_up_to_complete(tmp_path: Path) -> None:
    assert KindCoverage(3, 2).percent == 66.6
    assert KindCoverage(2_000, 1_999).percent == 99.9
    assert KindCoverage(0, 0).percent == 100.0


def test_a_removal_is_managed_and_disabled_assets_are_not_counted(tmp_path: Path) -> None:
    desired = {"settings": {"prune": ["assets"]}, "assets": [{"serial_number": "SN-1"}]}
    live = {
        "Assets": [asset(1, "SN-1", Disabled=False), asset(2, "SN-2", Disabled=False),
                   asset(3, "SN-3", Disabled=True)],
    }  # fmt: skip
    result = planned(tmp_path, desired, live)
    assert [c.address for c in result.changes] == ['assets["SN-2"]']
    assert result.coverage is not None
    assert result.coverage.kinds == {"assets": KindCoverage(2, 2, ())}
    # Without the prune the same live asset is unmanaged.
    kept = planned(tmp_path, {"assets": [{"serial_number": "SN-1"}]}, live)
    assert kept.coverage is not None
    assert kept.coverage.kinds == {"assets": KindCoverage(2, 1, ("SN-2",))}


def test_assets_whose_state_the_listing_hides_are_not_guessed(tmp_path: Path) -> None:
    live = {"Assets": [asset(1, "SN-1"), asset(2, "SN-2")]}  # no Disabled flag
    result = planned(tmp_path, {"assets": [{"serial_number": "SN-1"}]}, live)
    assert result.coverage is not None
    assert result.coverage.kinds == {}
    assert result.coverage.not_read_in_full == {"assets": STATE_UNKNOWN}


CATEGORIES = [
    {"CategoryID": 1, "Name": "Hardware", "SectionID": None, "Section": None},
    {"CategoryID": 2, "Name": "Software", "SectionID": None, "Section": None},
    {"CategoryID": 3, "Name": "Network", "SectionID": None, "Section": None},
]


def test_tech_permissions_only_when_every_category_was_read(tmp_path: Path) -> None:
    desired: Any = {"tech_permissions": [{"category": "Hardware", "technicians": ["tina"]}]}
    live = {
        "categories": CATEGORIES,
        "Users": USERS,
        "TechsForCategory?id=1": [tech(2, "tina"), tech(1, "admin")],
        # Only administrators (implicit technicians): no permission list of its own.
        "TechsForCategory?id=2": [tech(1, "admin"), tech(6, "root")],
        "TechsForCategory?id=3": [tech(3, "Zoe"), tech(1, "admin")],
    }
    partial = planned(tmp_path, desired, live)
    assert partial.coverage is not None
    assert partial.coverage.not_read_in_full == {"tech_permissions": NAMED_ONLY}
    # A prune reads every category: Network is someone's (Zoe's) and no entry names it.
    desired["settings"] = {"prune": ["tech_permissions"]}
    pruned = planned(tmp_path, desired, live)
    assert pruned.coverage is not None
    removal = 'tech_permissions["Network"]'
    assert [c.address for c in pruned.changes] == [removal]
    assert pruned.coverage.kinds == {"tech_permissions": KindCoverage(2, 2, ())}


def test_rules_cannot_be_listed_and_unused_kinds_are_not_reported(tmp_path: Path) -> None:
    desired = {"automation_rules": [{"id": 101, "enabled": True}]}
    rule = "<Rule><ID>101</ID><Name>R</Name><Enabled>true</Enabled></Rule>"
    result = planned(tmp_path, desired, {"Rule/101": rule})
    assert result.coverage is not None
    assert result.coverage.kinds == {}
    assert result.coverage.not_read_in_full == {"automation_rules": NOT_LISTABLE}


@dataclass
class Scope:
    partial: bool


def test_fail_on_unmanaged_refuses_a_partial_plan() -> None:
    refuse_partial_coverage(Scope(partial=False), True)  # --changed-since planned everything
    refuse_partial_coverage(Scope(partial=True), False)
    with pytest.raises(UsageError) as refused:
        refuse_partial_coverage(Scope(partial=True), True)
    assert (
        str(refused.value)
        == "--fail-on-unmanaged needs the full plan (every entry): leave out --changed-since"
    )


# The coverage a plan reports (live/coverage.py), as the plan's JSON gives it, whole: per kind
# read in full the figures and the unmanaged keys as the live state spells them (sorted ignoring
# case), and per kind not read in full the reason in the user's words.


def coverage_of(tmp_path: Path, desired: Any, live: Any) -> dict[str, Any]:
    result = planned(tmp_path, desired, live)
    assert result.coverage is not None
    return result.coverage.to_dict()


def test_the_coverage_of_every_kind_listed_in_full(tmp_path: Path) -> None:
    desired = {
        "companies": [{"name": "acme"}],
        "departments": [{"name": "IT"}],
        "categories": [{"name": "Hardware"}],
        "users": [{"username": "tina", "email": "tina@acme.com"}],
        "assets": [{"serial_number": "SN-1"}],
    }
    live = {
        "Companies": [{"CompanyID": 1, "Name": "Acme"}, {"CompanyID": 2, "Name": "beta"},
                      {"CompanyID": 3, "Name": "Zeta"}],
        "Departments": [{"DepartmentID": 1, "Name": "IT"}, {"DepartmentID": 2, "Name": "Sales"}],
        "categories": CATEGORIES,
        "Users": USERS,
        "Authorization": USERS[0],
        "Assets": [asset(1, "SN-1", Disabled=False), asset(2, "sn-9", Disabled=False),
                   asset(3, "SN-3", Disabled=True)],
    }  # fmt: skip
    assert coverage_of(tmp_path, desired, live) == {
        "unmanaged": {
            "companies": ["beta", "Zeta"],
            "departments": ["Sales"],
            "categories": ["Network", "Software"],
            "users": ["root", "Zoe"],  # ivan and old are disabled, admin is the caller
            "assets": ["sn-9"],
        },
        "coverage": {
            "companies": {"live": 3, "managed": 1, "percent": 33.3},
            "departments": {"live": 2, "managed": 1, "percent": 50.0},
            "categories": {"live": 3, "managed": 1, "percent": 33.3},
            "users": {"live": 3, "managed": 1, "percent": 33.3},
            "assets": {"live": 2, "managed": 1, "percent": 50.0},
        },
        "not_read_in_full": {},
    }


def test_why_a_kind_is_not_read_in_full_in_the_users_words(tmp_path: Path) -> None:
    desired = {
        "tech_permissions": [{"category": "Hardware", "technicians": ["tina"]}],
        "assets": [{"serial_number": "SN-1"}],
        "automation_rules": [{"id": 101, "enabled": True}],
    }
    live = {
        "categories": CATEGORIES,
        "Users": USERS,
        "TechsForCategory?id=1": [tech(2, "tina")],
        "Assets": [asset(1, "SN-1")],  # the listing does not say which are disabled
        "Rule/101": "<Rule><ID>101</ID><Name>R</Name><Enabled>true</Enabled></Rule>",
    }
    assert coverage_of(tmp_path, desired, live)["not_read_in_full"] == {
        "tech_permissions": (
            "a plan reads only the categories its entries name (--prune reads them all)"
        ),
        "assets": "the listing does not say which are disabled",
        "automation_rules": "the API cannot list them",
    }

"""The coverage a plan reports (live/coverage.py), as the plan's JSON gives it, whole:
per kind read in full the figures and the unmanaged keys as the live state spells them
(sorted ignoring case), and per kind not read in full the reason in the user's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.live.test_coverage import CATEGORIES, USERS, asset, planned, tech


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

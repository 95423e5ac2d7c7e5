"""Tech permissions and categories beyond the data-driven cases: the order in which the
changes of the three kinds apply, where errors point, and how entries match categories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reconciler.kinds.categories.reader import LiveCategories, LiveCategory, section_wishes
from reconciler.kinds.tech_permissions.planner import TechPermissionsResource
from reconciler.kinds.tech_permissions.reader import LiveTechPermissions
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.planning.order import dependencies
from reconciler.resources.base import PlanContext
from tests.planning.test_cases import run_case

USER = {"Email": "x@acme.com", "IsAdmin": False, "Disabled": False}


def test_a_permission_depends_on_the_user_and_the_category_it_creates(tmp_path: Path) -> None:
    case = {
        "desired": {
            "categories": [{"name": "Laptops"}],
            "users": [{"username": "newtech", "email": "newtech@acme.com"}],
            "tech_permissions": [{"category": "laptops", "technicians": ["NewTech"]}],
        },
        "live": {"helpdesk": {"categories": [], "Departments": [], "Users": []}},
    }
    result, _, _ = run_case(case, tmp_path)
    permission = result.changes[-1]
    assert permission.address == 'tech_permissions["laptops"]'
    assert dependencies(permission) == {'users["newtech"]', 'categories["Laptops"]'}


def test_pruned_permissions_are_removed_before_the_users_they_name_are_disabled(
    tmp_path: Path,
) -> None:
    case = {
        "desired": {
            "settings": {"prune": ["users", "tech_permissions"]},
            "users": [{"username": "tina"}],
            "tech_permissions": [{"category": "Hardware", "technicians": ["tina"]}],
        },
        "live": {
            "helpdesk": {
                "Authorization": {"UserID": 1},
                "categories": [
                    {"CategoryID": 1, "Name": "Hardware"},
                    {"CategoryID": 2, "Name": "Network"},
                ],
                "Departments": [],
                "Users": [
                    {"UserID": 1, "Username": "admin", **USER, "IsAdmin": True},
                    {"UserID": 2, "Username": "tina", **USER},
                    {"UserID": 3, "Username": "bob", **USER},
                ],
                "User?userId=3": {"UserID": 3, "Username": "bob"},
                "TechsForCategory?id=1": [{"UserID": 2, "Username": "tina"}],
                "TechsForCategory?id=2": [{"UserID": 3, "Username": "bob"}],
            }
        },
    }
    result, _, _ = run_case(case, tmp_path)
    assert [(c.address, c.action.value, c.removal) for c in result.changes] == [
        ('tech_permissions["Network"]', "delete", True),
        ('users["bob"]', "disable", True),
    ]
    # No technician-role warning for bob: the same plan disables him.
    assert [w.address for w in result.warnings] == ['users["admin"]']


def test_errors_point_at_the_value_in_the_manifest(tmp_path: Path) -> None:
    case = {
        "desired": {
            "categories": [{"name": "Printers", "section": "Ofice"}],
            "tech_permissions": [{"category": "Hardware", "technicians": ["tina", "nobody"]}],
        },
        "live": {
            "helpdesk": {
                "categories": [
                    {"CategoryID": 1, "Name": "Hardware", "SectionID": 5, "Section": "Office"}
                ],
                "Users": [{"UserID": 2, "Username": "tina", **USER}],
                "TechsForCategory?id=1": [],
            }
        },
    }
    result, _, _ = run_case(case, tmp_path)
    pointed = {}
    for diagnostic in result.errors:
        path, line, column = (diagnostic.location or "").rsplit(":", 2)
        text = Path(path).read_text().splitlines()[int(line) - 1]
        pointed[diagnostic.address] = text[int(column) - 1 :]
    assert pointed['categories["Printers"]'].startswith("Ofice")
    assert pointed['tech_permissions["Hardware"]'].startswith("nobody")


def _live(*items: tuple[int, str, str | None]) -> LiveCategories:
    sections = {"IT": 4, "Office": 5}
    return LiveCategories.from_items(
        [LiveCategory(i, name, sections[s] if s else None, s) for i, name, s in items]
    )


def _wishes(*categories: dict[str, Any]) -> dict[str, str | None]:
    return section_wishes(
        DesiredState.from_manifest(Manifest.model_validate({"categories": list(categories)}))
    )


def test_an_entry_matches_the_category_in_its_section() -> None:
    live = _live((1, "Printers", "IT"), (2, "printers", "Office"), (3, "Keys", None))
    assert (
        live.match("PRINTERS", _wishes({"name": "printers", "section": " office "})).live
        == (live.named("printers")[1])
    )
    # No section given: not managed, so any one category of that name matches...
    assert live.match("keys", _wishes({"name": "Keys"})).live is not None
    # ...but a name in several sections is ambiguous.
    assert live.match("Printers", {}).ambiguous
    # `section: null` means no section: a category in a section is not it.
    found = live.match("Printers", _wishes({"name": "Printers", "section": None}))
    assert found.live is None
    assert [c.id for c in found.others] == [1, 2]
    assert live.match("keys", _wishes({"name": "keys", "section": None})).live is not None


def test_sections_are_known_through_their_categories() -> None:
    live = _live((1, "Printers", "IT"), (2, "Keys", None), (3, "Desks", "Office"))
    assert live.sections() == {"it": (4, "IT"), "office": (5, "Office")}


def test_categories_whose_technicians_were_not_read_are_an_error_when_pruning() -> None:
    """`read` covers every category when pruning; should a caller plan with prune on live
    state read without it, the plan says so rather than pruning nothing quietly."""
    desired = DesiredState.from_manifest(
        Manifest.model_validate({"tech_permissions": [{"category": "Hardware", "technicians": []}]})
    )
    categories = _live((1, "Hardware", None), (2, "Network", None), (3, "Printers", None))
    live = {"categories": categories, "tech_permissions": LiveTechPermissions({1: ()})}
    ctx = PlanContext(desired, live, frozenset({"tech_permissions"}))
    result = TechPermissionsResource().diff(ctx)
    assert result.changes == []
    assert [(d.severity, d.address, d.message, d.remedy) for d in result.diagnostics] == [
        (
            "error",
            None,
            "the technicians of 2 categories not in the manifests were not read, so their "
            "permissions cannot be pruned (Network, Printers)",
            "plan again; if this persists, it is a bug of the reconciler",
        )
    ]


def test_prune_reads_the_technicians_of_every_category(tmp_path: Path) -> None:
    case = {
        "options": {"prune": True},
        "desired": {"tech_permissions": [{"category": "Hardware", "technicians": []}]},
        "live": {
            "helpdesk": {
                "categories": [
                    {"CategoryID": 1, "Name": "Hardware"},
                    {"CategoryID": 2, "Name": "Network"},
                ],
                "TechsForCategory?id=1": [],
                "TechsForCategory?id=2": [{"UserID": 3, "Username": "bob"}],
                "Users": [],
            }
        },
    }
    result, helpdesk, _ = run_case(case, tmp_path)
    assert [(c.address, c.removal) for c in result.changes] == [
        ('tech_permissions["Network"]', True)
    ]
    assert sorted(helpdesk.reads) == [
        "TechsForCategory?id=1",
        "TechsForCategory?id=2",
        "Users",  # the administrators: implicit technicians are never pruned
        "categories",
    ]

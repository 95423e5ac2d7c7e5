"""`named_references`: every name an entry gives for an object of another kind, in the
order the checks that use it report them: names in fields, then keys that are names (a
permission's category), then the items of lists."""

from __future__ import annotations

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import Kind
from reconciler.manifest.references import named_references


def test_names_in_fields_come_before_keys_that_are_names_then_list_items() -> None:
    desired = DesiredState.from_manifest(
        Manifest.model_validate(
            {
                "users": [{"username": "amy", "company": "Acme", "department": "IT"}],
                "tech_permissions": [{"category": "Printers", "technicians": ["amy", "bob"]}],
                "assets": [{"serial_number": "PF1", "company": "Globex"}],
            }
        )
    )
    assert list(named_references(desired)) == [
        (Kind.users, "amy", ("company",), Kind.companies, "Acme"),
        (Kind.users, "amy", ("department",), Kind.departments, "IT"),
        (Kind.assets, "PF1", ("company",), Kind.companies, "Globex"),
        (Kind.tech_permissions, "Printers", ("category",), Kind.categories, "Printers"),
        (Kind.tech_permissions, "Printers", ("technicians", 0), Kind.users, "amy"),
        (Kind.tech_permissions, "Printers", ("technicians", 1), Kind.users, "bob"),
    ]

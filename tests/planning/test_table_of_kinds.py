"""The table of kinds (`manifest/kinds.py`) names, per row, the module and class of the
resource that plans it; `reconciler.resources` builds `RESOURCES` from it when imported.
Each row must build the resource of its own kind, and a row that names the resource of
another kind must be refused at once, naming both (a kind planned twice, or not at all,
would otherwise pass unnoticed until a plan came out wrong).

The building is called again here, at test time: at import it runs before any test, where
a mutation tester that forks from an importing process cannot reach it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from reconciler.manifest.kinds import KINDS, KindSpec
from reconciler.resources import BY_KIND, RESOURCES, _resource


@pytest.mark.parametrize("row", KINDS, ids=[row.name for row in KINDS])
def test_each_row_builds_the_resource_that_plans_its_kind(row: KindSpec) -> None:
    resource = _resource(row)
    module, _, name = row.resource.partition(":")
    assert (type(resource).__module__, type(resource).__name__) == (module, name)
    assert resource.kind == row.name
    assert type(resource) is type(BY_KIND[resource.kind])


def test_resources_are_the_catalogue_then_the_kinds_in_table_order() -> None:
    assert [r.kind for r in RESOURCES] == ["custom_fields", *(row.name for row in KINDS)]


def test_a_row_naming_the_resource_of_another_kind_is_refused() -> None:
    companies = next(row for row in KINDS if row.name == "companies")
    misnamed = replace(companies, module="users")  # companies, planned by users.py
    with pytest.raises(RuntimeError) as raised:
        _resource(misnamed)
    assert str(raised.value) == (
        "reconciler.resources.users:UsersResource plans 'users', not 'companies'"
    )

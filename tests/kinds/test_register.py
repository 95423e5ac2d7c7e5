"""The register of kinds (`kinds/register.py`): each row of the table of kinds
(`kinds/table.py`) has one resource in `RESOURCES` and one converter in `CONVERTERS`, both
imported by name where the import check sees them and listed in the table's order (a
kind planned twice, or not at all, would otherwise pass unnoticed until a plan came out
wrong)."""

from __future__ import annotations

import pytest

from reconciler.kinds.register import BY_KIND, CONVERTERS, RESOURCES
from reconciler.kinds.table import KIND_NAMES, KINDS
from reconciler.manifest.kinds import KindSpec


def test_resources_are_the_catalogue_then_the_kinds_in_table_order() -> None:
    assert [r.kind for r in RESOURCES] == ["custom_fields", *(row.name for row in KINDS)]


@pytest.mark.parametrize("row", KINDS, ids=[row.name for row in KINDS])
def test_each_kind_has_one_resource_that_plans_it(row: KindSpec) -> None:
    planners = [r for r in RESOURCES if r.kind == row.name]
    assert planners == [BY_KIND[row.name]]


def test_each_kind_has_one_converter_named_as_it_in_table_order() -> None:
    assert tuple(CONVERTERS) == KIND_NAMES
    assert [c.__name__ for c in CONVERTERS.values()] == [row.kind.name for row in KINDS]

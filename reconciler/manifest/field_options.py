"""`settings.custom_field_options`: dropdown option ids by kind, then field name, then
option name, for the fields whose options the API does not list (DESIGN §9).

A companies field and a users field of the same name are two fields with their own
options, so the table is keyed by the kind first, as the manifests spell it. The fields
here are the kinds that have custom fields (the table of kinds' `custom_field_usage`;
tests hold the two to agreement). A flat table (field name first) is refused by the
loader with the form to write instead (`schema_errors.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from reconciler.manifest.values import Id32

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# Field name -> option name -> option id.
FieldOptions = dict[Name, dict[Name, Id32]]


def _empty() -> dict[Any, Any]:
    return {}


def _options(noun: str) -> Any:
    return Field(
        default_factory=_empty,
        description=f"Option ids of the {noun} custom fields, by field name and option name.",
    )


class CustomFieldOptions(BaseModel):
    """Dropdown option ids by kind, field name and option name, for fields whose options
    the API does not list (a companies field and a users field of one name are two fields).
    A table keyed by field name first is refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    companies: FieldOptions = _options("companies'")
    users: FieldOptions = _options("users'")
    assets: FieldOptions = _options("assets'")

    def of(self, kind: str) -> Mapping[str, Mapping[str, int]]:
        """The options of `kind`'s fields (a `Kind` value); empty for a kind without."""
        found: Mapping[str, Mapping[str, int]] = getattr(self, kind, None) or {}
        return found

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in type(self).model_fields)


def kind_names() -> list[str]:
    """The kinds the table is keyed by, in the order they are written."""
    return list(CustomFieldOptions.model_fields)


def flat_form(name: str) -> str:
    """Why `name` under `settings.custom_field_options` is refused: it is no kind, so the
    table was written flat (field name first), and how to write it."""
    kinds = kind_names()
    return (
        f"'{name}' is not a kind: the options are keyed by kind, then field name "
        f"(a {kinds[0]} field and a {kinds[1]} field of one name are two fields); write "
        f"`custom_field_options: {{{kinds[0]}: {{{name}: {{OPTION: ID}}}}}}` with the kind "
        f"whose field '{name}' is ({', '.join(kinds[:-1])} or {kinds[-1]})"
    )

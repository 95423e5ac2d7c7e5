"""The validated content of a seed: what the checks fill in and the writer stores."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reconciler.sandbox.seed.reading import SeedNode
from reconciler.sandbox.store import Record


@dataclass(frozen=True)
class Credentials:
    helpdesk_username: str
    helpdesk_password: str
    helpdesk_token: str
    workspace_api_key: str


Custom = dict[int, str]  # index of the field in Plan.fields -> stored value
Option = tuple[int | None, str, SeedNode]  # fixed id or None, name, where

LOOKUPS = {  # asset field -> (record column, lookup table)
    "manufacturer": ("manufacturer_id", "manufacturers"),
    "type": ("type_id", "asset_types"),
    "supplier": ("supplier_id", "suppliers"),
}


@dataclass
class PlannedUser:
    kwargs: dict[str, Any]  # records.user arguments but the company and department ids
    company: str | None
    department: str | None
    custom: Custom


@dataclass
class PlannedField:
    kwargs: dict[str, Any]  # records.custom_field arguments
    record: Record = field(default_factory=dict)  # to validate values against


@dataclass
class PlannedAsset:
    kwargs: dict[str, Any]
    lookups: dict[str, str]  # manufacturer/type/supplier -> name
    company: str | None
    users: list[str]
    custom: Custom


@dataclass
class Plan:
    """Everything to write; names are keys (`entry.key`) that the writer turns into ids."""

    departments: dict[str, str] = field(default_factory=dict)  # key -> name, in order
    sections: dict[str, str] = field(default_factory=dict)
    categories: dict[str, tuple[dict[str, Any], str | None]] = field(default_factory=dict)
    fields: list[PlannedField] = field(default_factory=list)
    companies: dict[str, tuple[dict[str, Any], Custom]] = field(default_factory=dict)
    users: dict[str, PlannedUser] = field(default_factory=dict)
    tech_permissions: list[tuple[str, str]] = field(default_factory=list)
    lookups: dict[str, dict[str, str]] = field(default_factory=dict)  # table -> key -> name
    assets: list[PlannedAsset] = field(default_factory=list)
    rules: list[tuple[int, Record]] = field(default_factory=list)
    api_keys: list[dict[str, str]] = field(default_factory=list)
    employees: dict[str, dict[str, Any]] = field(default_factory=dict)  # key(email) -> fields
    credentials: Credentials | None = None

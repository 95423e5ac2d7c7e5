"""Companies' live state: `Companies` items parsed into `LiveCompany`s, keyed by name
(case-insensitive; of several with one name, the last listed), and their reader. The
decisions are the planner's (`planner.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from reconciler.kinds.custom_fields.reader import full_values_for
from reconciler.kinds.table import spec
from reconciler.manifest.renames import formers_of, live_value
from reconciler.resources.base import ByName, Reader, norm_key
from reconciler.resources.scope_reads import in_scope

KIND = "companies"


@dataclass(frozen=True)
class LiveCompany:
    id: int
    name: str
    email_domains: tuple[str, ...]
    notes: str | None
    custom_values: tuple[Mapping[str, Any], ...] | None = None  # None: not read

    def digest_data(self) -> Any:
        values = None
        if self.custom_values is not None:
            values = sorted((int(v["FieldID"]), v.get("Value")) for v in self.custom_values)
        return [self.id, self.name, list(self.email_domains), self.notes, values]


@dataclass(frozen=True)
class LiveCompanies(ByName[LiveCompany]):
    kind = KIND
    name_field = "name"
    by_key: Mapping[str, LiveCompany]
    items: tuple[LiveCompany, ...] = ()  # every company listed, in the listing's order
    # Companies outside `settings.scope`: never changed or reported, but a user's or an
    # asset's company may be one of them (its id, from the list read anyway).
    outside: Mapping[str, LiveCompany] = field(default_factory=dict)

    def digest_data(self) -> Any:
        return [c.digest_data() for _, c in sorted(self.by_key.items())]


def split_domains(raw: str | None) -> tuple[str, ...]:
    """`EmailDomain` holds several domains separated by `;` (some write `,`)."""
    if not raw:
        return ()
    return tuple(p.strip() for p in raw.replace(",", ";").split(";") if p.strip())


def parse_company(raw: Mapping[str, Any]) -> LiveCompany:
    return LiveCompany(
        id=int(raw.get("CompanyID") or raw.get("CompanyId") or raw["ID"]),
        name=str(raw.get("Name") or ""),
        email_domains=split_domains(raw.get("EmailDomain")),
        notes=raw.get("Notes"),
    )


async def read_companies(reader: Reader) -> LiveCompanies:
    """Every company; custom field values for those whose entries set some, and in a full
    read for every one selected (when company fields exist)."""
    listed = [parse_company(raw) for raw in await reader.helpdesk.companies()]
    scoped = in_scope(reader.desired, KIND, lambda company: company.name)
    items = [c for c in listed if scoped(c)]
    outside = {norm_key(c.name): c for c in listed if not scoped(c)}
    companies = {norm_key(c.name): c for c in items}
    formers = formers_of(reader.desired, spec(KIND))
    found = (
        live_value(reader.desired, spec(KIND), c.name, companies, formers)
        for c in reader.desired.manifest.companies
        if c.custom_fields or reader.desired.settings.ownership
    )
    wanted = [company for company in found if company is not None]
    if reader.desired.settings.ownership and KIND in reader.prune:  # whose marker prune asks
        chosen = {id(c) for c in wanted}
        named = {norm_key(c.name) for c in reader.desired.manifest.companies}
        wanted += [c for k, c in companies.items() if k not in named and id(c) not in chosen]
    wanted += await full_values_for(reader, KIND, companies.values(), wanted, lambda c: c.name)
    values = await asyncio.gather(*(reader.helpdesk.company_custom_fields(c.id) for c in wanted))
    for company, found in zip(wanted, values, strict=True):
        companies[norm_key(company.name)] = replace(company, custom_values=tuple(found))
    by_id = {c.id: c for c in companies.values()}
    return LiveCompanies(companies, tuple(by_id.get(c.id, c) for c in items), outside)

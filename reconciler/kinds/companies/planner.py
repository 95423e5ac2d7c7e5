"""Companies: keyed by name (case-insensitive). Created with `Company` (idempotent by
name), updated with `UpdateCompany` sending the complete record, custom field values set
with `SetCustomFieldForCompany`. The API cannot delete a company: one that the manifests
do not list is reported when companies are pruned, never removed (with
`settings.ownership`, only one that carries the marker: resources/ownership.py)."""

from __future__ import annotations

from typing import Any

from reconciler.kinds.companies import Company
from reconciler.kinds.companies.reader import (
    KIND,
    LiveCompanies,
    LiveCompany,
    parse_company,
    read_companies,
)
from reconciler.manifest.desired import DesiredState
from reconciler.plans import Action, Change, FieldChange, Ref, address
from reconciler.resources.base import KindPlan, KindResource, PlanContext, Planner, norm_key, post
from reconciler.resources.ownership import marker_diagnostics, owned, value_changes

UPDATE = "UpdateCompany"


def same_domains(a: tuple[str, ...] | list[str], b: tuple[str, ...] | list[str]) -> bool:
    return {d.casefold() for d in a} == {d.casefold() for d in b}


def _text(value: str | None) -> str:
    return (value or "").rstrip()


class CompaniesResource(KindResource):
    kind = KIND
    uses: tuple[str, ...] = ("custom_fields",)

    async def locate(
        self, change: Change, helpdesk: Any, workspace: Any, desired: DesiredState
    ) -> Any:
        """The id of the company a create may have made (`Company` is idempotent by name, so
        this is rarely needed), or None."""
        for raw in await helpdesk.companies():
            company = parse_company(raw)
            if norm_key(company.name) == norm_key(change.key):
                return company.id
        return None

    read = staticmethod(read_companies)

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveCompanies) or LiveCompanies({})
        planner = Planner(ctx, KIND)
        for company in ctx.desired.manifest.companies:
            current = live.get(company.name)
            if current is None:
                ctx.will_create(KIND, company.name)
                _create(planner, company)
            else:
                _update(planner, company, current)
        planner.result.diagnostics += marker_diagnostics(ctx, KIND)
        if ctx.prunes(KIND):
            wanted = {norm_key(c.name) for c in ctx.desired.manifest.companies}
            for key, unlisted in sorted(live.by_key.items()):
                if key not in wanted and owned(ctx, KIND, unlisted.custom_values):
                    planner.undeletable(unlisted.name)
        return planner.result


def _create(planner: Planner, company: Company) -> None:
    addr = address(KIND, company.name)
    given = planner.given(company)
    fields = [FieldChange("name", None, company.name)]
    params: dict[str, Any] = {"name": company.name}
    if "email_domains" in given and company.email_domains:
        params["emailDomains"] = ";".join(company.email_domains)
        fields.append(FieldChange("email_domains", None, list(company.email_domains)))
    operations = [post("Company", params, creates=addr)]
    if "notes" in given and _text(company.notes):
        fields.append(FieldChange("notes", None, company.notes))
        # `Company` takes no notes: a second call sets them, with the whole record.
        record = {**params, "id": Ref(addr), "notes": company.notes}
        operations.append(post(UPDATE, record, "set notes"))
    values = value_changes(planner, company.name, company.custom_fields, None, Ref(addr))
    planner.change(company.name, Action.create, fields + values[0], operations + values[1])


def _update(planner: Planner, company: Company, current: LiveCompany) -> None:
    given = planner.given(company)
    fields: list[FieldChange] = []
    record = {
        "id": current.id,
        "name": current.name,
        "notes": current.notes or "",
        "emailDomains": ";".join(current.email_domains),
    }
    if "name" in given and company.name != current.name:
        fields.append(FieldChange("name", current.name, company.name))
        record["name"] = company.name
    wanted_domains = list(company.email_domains or [])
    if "email_domains" in given and not same_domains(wanted_domains, current.email_domains):
        fields.append(FieldChange("email_domains", list(current.email_domains), wanted_domains))
        record["emailDomains"] = ";".join(wanted_domains)
    if "notes" in given and _text(company.notes) != _text(current.notes):
        fields.append(FieldChange("notes", current.notes, company.notes))
        record["notes"] = company.notes or ""
    operations = [post(UPDATE, record)] if fields else []
    live_values = current.custom_values or ()
    values = value_changes(planner, company.name, company.custom_fields, live_values, current.id)
    fields += values[0]
    if fields:
        planner.change(company.name, Action.update, fields, operations + values[1])

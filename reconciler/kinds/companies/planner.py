"""Companies: keyed by name (case-insensitive). Created with `Company` (idempotent by
name), updated with `UpdateCompany` sending the complete record, custom field values set
with `SetCustomFieldForCompany`. The API cannot delete a company: one that the manifests
do not list is reported when companies are pruned, never removed (with
`settings.ownership`, only one that carries the marker: resources/ownership.py)."""

from __future__ import annotations

from typing import Any

from reconciler.kinds.companies.model import Company
from reconciler.kinds.companies.reader import (
    KIND,
    LiveCompanies,
    LiveCompany,
    parse_company,
    read_companies,
)
from reconciler.kinds.custom_fields.planner import diff_values
from reconciler.kinds.custom_fields.reader import USAGE, CustomFieldCatalogue
from reconciler.manifest.desired import DesiredState
from reconciler.plans import Action, Change, FieldChange, Operation, Ref, address, warning
from reconciler.resources.base import KindPlan, KindResource, PlanContext, Reader, norm_key
from reconciler.resources.ownership import managed_values, marker_diagnostics, owned


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

    async def read(self, reader: Reader) -> LiveCompanies:
        return await read_companies(reader)

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveCompanies) or LiveCompanies({})
        catalogue = ctx.live_of("custom_fields", CustomFieldCatalogue)
        result = KindPlan()
        ignored = ctx.ignored(KIND)
        for company in ctx.desired.manifest.companies:
            current = live.get(company.name)
            if current is None:
                ctx.will_create(KIND, company.name)
                self._create(ctx, company, catalogue, ignored, result)
            else:
                self._update(ctx, company, current, catalogue, ignored, result)
        result.diagnostics += marker_diagnostics(ctx, KIND)
        if ctx.prunes(KIND):
            wanted = {norm_key(c.name) for c in ctx.desired.manifest.companies}
            for key, unlisted in sorted(live.by_key.items()):
                if key not in wanted and owned(ctx, KIND, unlisted.custom_values):
                    result.diagnostics.append(
                        warning(
                            "not in the manifests, and the API cannot delete companies",
                            address(KIND, unlisted.name),
                            "add it to the manifests, or delete it in the helpdesk's admin panel",
                        )
                    )
        return result

    def _create(
        self,
        ctx: PlanContext,
        company: Company,
        catalogue: CustomFieldCatalogue | None,
        ignored: frozenset[str],
        result: KindPlan,
    ) -> None:
        addr = address(KIND, company.name)
        ref = Ref(addr)
        given = company.model_fields_set - ignored
        fields = [FieldChange("name", None, company.name)]
        params: dict[str, Any] = {"name": company.name}
        if "email_domains" in given and company.email_domains:
            params["emailDomains"] = ";".join(company.email_domains)
            fields.append(FieldChange("email_domains", None, list(company.email_domains)))
        operations = [Operation("helpdesk", "POST", "/api/Company", params, creates=addr)]
        if "notes" in given and _text(company.notes):
            fields.append(FieldChange("notes", None, company.notes))
            # `Company` takes no notes: a second call sets them, with the whole record.
            operations.append(
                Operation(
                    "helpdesk",
                    "POST",
                    "/api/UpdateCompany",
                    {**params, "id": ref, "notes": company.notes},
                    description="set notes",
                )
            )
        if wanted := managed_values(ctx, KIND, company.custom_fields, ignored):
            cf_fields, cf_ops, problems = diff_values(
                catalogue=catalogue,
                usage=USAGE[KIND],
                desired=wanted,
                live_items=None,
                set_path="/api/SetCustomFieldForCompany",
                entity_id=ref,
                address=addr,
                location=ctx.location(KIND, company.name),
                field_location=lambda name: ctx.desired.location(
                    KIND, company.name, "custom_fields", name
                ),
            )
            fields += cf_fields
            operations += cf_ops
            result.diagnostics += problems
        result.changes.append(
            Change(KIND, company.name, Action.create, tuple(fields), tuple(operations))
        )

    def _update(
        self,
        ctx: PlanContext,
        company: Company,
        current: LiveCompany,
        catalogue: CustomFieldCatalogue | None,
        ignored: frozenset[str],
        result: KindPlan,
    ) -> None:
        addr = address(KIND, company.name)
        given = company.model_fields_set - ignored
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
        operations = []
        if fields:
            operations.append(Operation("helpdesk", "POST", "/api/UpdateCompany", record))
        if wanted := managed_values(ctx, KIND, company.custom_fields, ignored):
            cf_fields, cf_ops, problems = diff_values(
                catalogue=catalogue,
                usage=USAGE[KIND],
                desired=wanted,
                live_items=current.custom_values or (),
                set_path="/api/SetCustomFieldForCompany",
                entity_id=current.id,
                address=addr,
                location=ctx.location(KIND, company.name),
                field_location=lambda name: ctx.desired.location(
                    KIND, company.name, "custom_fields", name
                ),
            )
            fields += cf_fields
            operations += cf_ops
            result.diagnostics += problems
        if fields:
            result.changes.append(
                Change(KIND, company.name, Action.update, tuple(fields), tuple(operations))
            )

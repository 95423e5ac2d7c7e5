"""Checking a whole seed: every section in dependency order, into one `Plan`."""

from __future__ import annotations

from reconciler.sandbox.seed.assets import check_assets
from reconciler.sandbox.seed.catalogue import check_categories, check_names
from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.credentials import check_credentials
from reconciler.sandbox.seed.entry import Entry
from reconciler.sandbox.seed.fields import check_custom_fields
from reconciler.sandbox.seed.people import check_companies, check_tech_permissions, check_users
from reconciler.sandbox.seed.plan import Plan
from reconciler.sandbox.seed.reading import Problems, SeedNode
from reconciler.sandbox.seed.rules import check_rules
from reconciler.sandbox.seed.workspace import check_workspace

SECTIONS = (
    "users companies departments sections categories tech_permissions custom_fields assets "
    "automation_rules workspace credentials"
)


def validate(root: SeedNode, problems: Problems) -> Plan:
    """The plan of what to write; every problem found goes to `problems`."""
    c = Checker(problems)
    top = Entry(root, problems, "the seed", SECTIONS, noun="section")
    check_names(c, top.get("departments"), "departments", c.plan.departments)
    check_names(c, top.get("sections"), "sections", c.plan.sections)
    check_categories(c, top.get("categories"))
    check_custom_fields(c, top.get("custom_fields"))
    check_companies(c, top.get("companies"))
    check_users(c, top.get("users"))
    check_tech_permissions(c, top.get("tech_permissions"))
    check_assets(c, top.get("assets"))
    check_rules(c, top.get("automation_rules"))
    check_workspace(c, top.get("workspace"))
    check_credentials(c, top.get("credentials"), root)
    return c.plan

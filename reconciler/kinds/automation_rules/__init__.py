"""`automation_rules`: automation rules, addressed by id: only enabled or disabled. This module
is its row of the table of kinds; the package holds the rest of the kind
(`kinds/__init__.py` lists its modules).
"""

from __future__ import annotations

from reconciler.kinds.automation_rules.model import AutomationRule
from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.automation_rules, HELPDESK, "id", KeyForm.ID, AutomationRule, "automation rule",
    prune_refused="the API cannot list automation rules, so rules missing from the "
    "manifests cannot be found (disable one with `enabled: false`)",
    rename_instead="rules are addressed by their id, which never changes: use the new "
    "rule's id",
)  # fmt: skip

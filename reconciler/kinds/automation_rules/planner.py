"""Automation rules: keyed by id, because no endpoint lists them. Each manifest entry
costs one `GET /Rule/{id}` (XML); the rule is switched with `GET /EnableRule/{id}` or
`GET /DisableRule/{id}` (the spec's method; both are idempotent). The API cannot create,
rename or delete a rule, so prune does not apply (validation forbids listing the kind).

Decisions:
- A rule that does not exist (`404`) is an error: an id is all a manifest has to find it.
- When the entry gives a `name` and the XML names the rule differently, the id probably
  points at another rule: an error, and that rule is left alone. When the XML carries no
  name, the name cannot be checked: a warning.
- When the XML carries no enabled state (the minimal document of some versions), the
  state cannot be compared: the switch is "asserted on every apply" (`Change.asserted`),
  listed apart from the changes and never counted as one (summary, exit code, brake),
  while `apply` sends it every time (EnableRule/DisableRule are harmless to repeat).
"""

from __future__ import annotations

from reconciler.clients import RuleInfo
from reconciler.kinds.automation_rules import AutomationRule
from reconciler.kinds.automation_rules.reader import KIND, LiveRules, read_rules
from reconciler.plans import Action, FieldChange, Operation, warning
from reconciler.resources.base import KindPlan, KindResource, PlanContext, Planner, norm_key

UNKNOWN = "(unknown)"
NO_RULE = "check the id in the helpdesk's automation rules (the API cannot create rules)"


class AutomationRulesResource(KindResource):
    kind = KIND

    read = staticmethod(read_rules)

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveRules) or LiveRules({})
        planner = Planner(ctx, KIND)
        for rule in ctx.desired.manifest.automation_rules:
            info = live.by_id.get(rule.id)
            if info is None:
                planner.problem(str(rule.id), f"no rule with id {rule.id}", NO_RULE)
            elif _name_matches(planner, rule, info) and "enabled" not in planner.ignored:
                _switch(planner, rule, info)
        return planner.result


def _name_matches(planner: Planner, rule: AutomationRule, info: RuleInfo) -> bool:
    key = str(rule.id)
    if rule.name is None or "name" in planner.ignored:
        return True
    if info.name is None:
        planner.problem(
            key,
            f"the service does not say the name of rule {rule.id}, so the name "
            f"{rule.name!r} cannot be checked",
            "make sure the id is that of the rule you mean; once checked, list `name` "
            "under settings.ignore_fields.automation_rules to stop this warning",
            report=warning,
        )
        return True
    if norm_key(info.name) == norm_key(rule.name):
        return True
    planner.problem(
        key,
        f"rule {rule.id} is named {info.name!r}, not {rule.name!r}; it is left alone",
        "fix the id, or the name if the rule was renamed (the API cannot rename rules)",
    )
    return False


def _switch(planner: Planner, rule: AutomationRule, info: RuleInfo) -> None:
    if info.enabled is rule.enabled:
        return
    verb = "EnableRule" if rule.enabled else "DisableRule"
    operation = Operation("helpdesk", "GET", f"/api/{verb}/{rule.id}")
    before = UNKNOWN if info.enabled is None else info.enabled
    planner.change(
        str(rule.id),
        Action.enable if rule.enabled else Action.disable,
        [FieldChange("enabled", before, rule.enabled)],
        [operation],
        reason=f"rule {info.name!r}" if info.name else "",
        asserted=info.enabled is None,
    )

"""Automation rules' live state: the rules read by id (`GET /Rule/{id}`, XML; no endpoint
lists them), and their reader: the ids the manifests give, and in a full read those the
caller names (`Reader.named`, export's `--rule-ids`). The decisions are the planner's
(`planner.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.clients import RuleInfo, parse_rule
from reconciler.errors import ApiError
from reconciler.resources.base import Reader

KIND = "automation_rules"


@dataclass(frozen=True)
class LiveRules:
    by_id: Mapping[int, RuleInfo | None]  # None: the service has no rule with that id

    def __len__(self) -> int:
        return sum(1 for rule in self.by_id.values() if rule is not None)

    def digest_data(self) -> Any:
        return [
            [rule_id, None if info is None else [info.name, info.enabled]]
            for rule_id, info in sorted(self.by_id.items())
        ]

    def keys(self) -> frozenset[str]:
        """The ids read that exist (no read covers every rule: none can list them)."""
        return frozenset(str(i) for i, info in self.by_id.items() if info is not None)


async def read_rule(helpdesk: Any, rule_id: int) -> RuleInfo | None:
    """One rule, or None when the service has no rule with that id (`404`)."""
    try:
        xml = await helpdesk.rule_xml(rule_id)
    except ApiError as exc:
        if exc.status == 404:
            return None
        raise
    return parse_rule(xml, rule_id=rule_id)


async def read_rules(reader: Reader) -> LiveRules:
    ids = {rule.id for rule in reader.desired.manifest.automation_rules}
    if reader.full(KIND):
        ids.update(int(key) for key in reader.named(KIND))
    ordered = sorted(ids)
    found = await asyncio.gather(*(read_rule(reader.helpdesk, i) for i in ordered))
    rules = dict(zip(ordered, found, strict=True))
    return LiveRules(rules)

"""A client that answers from an API snapshot, so that planner cases need no server.

Snapshot keys name calls the way the API does: `Companies`, `CustomFields?type=4`,
`CompanyCustomFields?id=1`, `TechsForCategory?id=3`, `Rule/101`, `User?userId=5`. A call
the snapshot does not hold fails the test: a case therefore also pins down which reads
the planner makes (DESIGN: read only what the manifests need)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.errors import ApiError


class MissingFromSnapshot(AssertionError):
    pass


class SnapshotClient:
    def __init__(self, snapshot: Mapping[str, Any]) -> None:
        self.snapshot = dict(snapshot)
        self.reads: list[str] = []

    def _get(self, key: str) -> Any:
        self.reads.append(key)
        if key not in self.snapshot:
            raise MissingFromSnapshot(f"the planner read {key!r}, which the case does not hold")
        value = self.snapshot[key]
        if isinstance(value, dict) and "error" in value and "status" in value:
            raise ApiError(value["status"], "GET", f"/api/{key}", value["error"])
        return value

    async def authenticate(self) -> Any:
        """The caller's user object. Not counted as a read: the real client authenticates
        once before anything else and keeps the answer, so asking costs no call."""
        return self.snapshot.get("Authorization")

    async def companies(self) -> Any:
        return self._get("Companies")

    async def departments(self) -> Any:
        return self._get("Departments")

    async def categories(self) -> Any:
        return self._get("categories")

    async def techs_for_category(self, category_id: int) -> Any:
        return self._get(f"TechsForCategory?id={category_id}")

    async def custom_fields(self, usage_type: int) -> Any:
        return self._get(f"CustomFields?type={usage_type}")

    async def company_custom_fields(self, company_id: int) -> Any:
        return self._get(f"CompanyCustomFields?id={company_id}")

    async def user_custom_fields(self, user_id: int) -> Any:
        return self._get(f"UserCustomFields?id={user_id}")

    async def users(self, filters: Mapping[str, Any] | None = None) -> Any:
        """The `Users` list; with filters (a scope's), `Users?companyId=2&listMode=techs`
        (the filters in the order of their names)."""
        query = "&".join(f"{k}={v}" for k, v in sorted((filters or {}).items()))
        return self._get(f"Users?{query}" if query else "Users")

    async def user_by_username(self, username: str) -> Any:
        """A user object, or None for a username the case gives as null (404)."""
        return self._get(f"UserByUsername?username={username}")

    async def user(self, user_id: int) -> Any:
        return self._get(f"User?userId={user_id}")

    async def assets(self, include_disabled: bool, company_id: int | None = None) -> Any:
        key = "Assets" if include_disabled else "Assets?includeDisabled=false"
        if company_id is not None:
            key += f"{'&' if '?' in key else '?'}assignedToCompanyId={company_id}"
        return self._get(key)

    async def rule_xml(self, rule_id: int) -> Any:
        return self._get(f"Rule/{rule_id}")

    async def employees(self) -> Any:
        return self._get("employees")

"""`settings.scope`: the slice of each kind the manifests own (DESIGN §9), and whether an
object is in it.

A kind without a scope is owned whole. An object is in its kind's scope when it passes
every filter given: the users' `list_mode`, `companies` and `departments` (the API's own
filters, applied by the read), at least one `include` pattern when some are given, and no
`exclude` pattern. Patterns are shell-style (`*`, `?`, `[...]`) and compare without case.
Pure: models and predicates, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# A filter given with nothing in it would put every object out of scope: refused.
Patterns = Annotated[list[Name], Field(min_length=1)]
Names = Annotated[list[Name], Field(min_length=1)]

_INCLUDE = (
    "Shell-style patterns (`*`, `?`, `[...]`), without case: an object is in scope when one "
    "of them matches"
)
_EXCLUDE = "Shell-style patterns, without case: an object one of them matches is out of scope."


class ListMode(StrEnum):
    """The `Users` list's `listMode`: which users the read lists."""

    all = "all"
    techs = "techs"
    admins = "admins"
    regular = "regular"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternScope(_Strict):
    """A kind's scope by patterns on its key."""

    include: Patterns | None = Field(None, description=_INCLUDE + ".")
    exclude: Patterns | None = Field(None, description=_EXCLUDE)


class UserScope(_Strict):
    """The users the manifests own: those the API's filters list, then the patterns."""

    list_mode: ListMode | None = Field(
        None,
        description="The API's listMode: all, techs (technicians and administrators), "
        "admins or regular.",
    )
    companies: Names | None = Field(
        None, description="Company names: one read per company (the API's companyId)."
    )
    departments: Names | None = Field(
        None, description="Department names: one read per department (the API's departmentId)."
    )
    include: Patterns | None = Field(
        None, description=_INCLUDE + " the username or the e-mail.", examples=[["*@acme.com"]]
    )
    exclude: Patterns | None = Field(
        None, description=_EXCLUDE + " On the username and the e-mail.", examples=[["svc-*"]]
    )


class AssetScope(_Strict):
    """The assets the manifests own: those of the companies given, then the patterns."""

    companies: Names | None = Field(
        None, description="Company names: one read per company (the API's assignedToCompanyId)."
    )
    include: Patterns | None = Field(
        None, description=_INCLUDE + " the serial number.", examples=[["PF*"]]
    )
    exclude: Patterns | None = Field(None, description=_EXCLUDE + " On the serial number.")


class Ownership(_Strict):
    """The marker of the objects the manifests made or adopted: a custom field and its
    value. Every create sets it; `prune` removes only unlisted objects that carry it."""

    custom_field: Name = Field(
        description="The name of a custom field of users, companies and assets (each kind "
        "its own field of that name).",
        examples=["Managed by"],
    )
    value: Name = Field(
        description="The value that marks an object as the manifests' own.",
        examples=["reconciler"],
    )


def category_name(name: str, section: str | None) -> str:
    """What the categories' patterns match: `section/name`, or `name` without a section."""
    return f"{section}/{name}" if section else name


def _matches(patterns: Sequence[str], values: Iterable[str]) -> str | None:
    """The first pattern that matches one of `values`, compared without case."""
    folded = [v.casefold() for v in values if v]
    for pattern in patterns:
        if any(fnmatchcase(value, pattern.casefold()) for value in folded):
            return pattern
    return None


def pattern_failure(scope: PatternScope | UserScope | AssetScope, *values: str) -> str | None:
    """Which pattern filter `values` (an object's key, and its e-mail) fail, or None."""
    if scope.include and _matches(scope.include, values) is None:
        return f"matches no include pattern ({', '.join(scope.include)})"
    if scope.exclude and (pattern := _matches(scope.exclude, values)) is not None:
        return f"matches the exclude pattern {pattern}"
    return None


def in_patterns(scope: PatternScope | UserScope | AssetScope | None, *values: str) -> bool:
    return scope is None or pattern_failure(scope, *values) is None

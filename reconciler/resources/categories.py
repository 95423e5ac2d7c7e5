"""Categories: keyed by name (case-insensitive), placed in a section named by `section`.

The API lists categories (`GET /categories`: CategoryID, Name, SectionID, Section) and
adds them (`AddCategory` with `name` and `sectionId`); it cannot rename, move or delete a
category, nor create, list or rename a section. So:

- A missing category is created. Its section is resolved by name from the sections that
  live categories sit in (the only way the API shows sections): a section no live category
  is in cannot be resolved, and is an error naming the closest sections and the remedy
  (in the admin panel, create the section with a category in it, or pick an existing one).
- A live category in another section than the manifest's is an error: the API cannot move
  it, and creating a second one elsewhere would only fake a move.
- The same name may exist in several sections: the entry matches the one in its section.
  An entry without `section` does not manage it (DESIGN §2: omitted fields are not
  managed) and matches a category of that name in any section, unless several exist: then
  it is an error that asks for `section`. `section: null` means "no section".
- Pruned (only when the manifests list categories, so that `--prune` with manifests that
  do not manage categories does not report every one): a live category the manifests do
  not name is a warning, as nothing can remove it.

`LiveCategories.match` is shared with `tech_permissions`, which needs the same category
(and its id) that this module matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.changes import (
    Action,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    address,
    error,
    warning,
)
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Category, Kind
from reconciler.resources.base import KindPlan, PlanContext, Reader, norm_key
from reconciler.resources.custom_fields import closest

KIND = "categories"


@dataclass(frozen=True)
class LiveCategory:
    id: int
    name: str
    section_id: int | None
    section: str | None

    @property
    def section_key(self) -> str | None:
        return norm_key(self.section) if self.section else None

    def where(self) -> str:
        return f"in section {self.section!r}" if self.section else "in no section"

    def digest_data(self) -> Any:
        return [self.id, self.name, self.section_id, self.section]


@dataclass(frozen=True)
class CategoryMatch:
    """The live category an entry names, or why there is none: `others` holds the live
    categories of that name in other sections (a moved category), `ambiguous` says the
    name exists in several sections and the entry does not say which."""

    live: LiveCategory | None
    others: tuple[LiveCategory, ...] = ()
    ambiguous: bool = False


@dataclass(frozen=True)
class LiveCategories:
    by_key: Mapping[str, tuple[LiveCategory, ...]]  # normalised name -> categories, by id

    @classmethod
    def from_items(cls, items: list[LiveCategory]) -> LiveCategories:
        grouped: dict[str, list[LiveCategory]] = {}
        for item in sorted(items, key=lambda c: c.id):
            grouped.setdefault(norm_key(item.name), []).append(item)
        return cls({key: tuple(found) for key, found in grouped.items()})

    def digest_data(self) -> Any:
        return [c.digest_data() for c in self.all()]

    def all(self) -> list[LiveCategory]:
        return sorted((c for found in self.by_key.values() for c in found), key=lambda c: c.id)

    def named(self, name: str) -> tuple[LiveCategory, ...]:
        return self.by_key.get(norm_key(name), ())

    def sections(self) -> dict[str, tuple[int, str]]:
        """Normalised section name -> (id, name), from the categories that sit in one."""
        found: dict[str, tuple[int, str]] = {}
        for category in self.all():
            if category.section_id is not None and category.section:
                found.setdefault(
                    norm_key(category.section), (category.section_id, category.section)
                )
        return found

    def match(self, name: str, wishes: Mapping[str, str | None]) -> CategoryMatch:
        """The live category named `name` in the section `wishes` asks for (see
        `section_wishes`); any section when the manifests do not say."""
        candidates = self.named(name)
        key = norm_key(name)
        if key in wishes:
            wanted = wishes[key]
            for candidate in candidates:
                if candidate.section_key == wanted:
                    return CategoryMatch(candidate)
            return CategoryMatch(None, candidates)
        if len(candidates) > 1:
            return CategoryMatch(None, candidates, ambiguous=True)
        return CategoryMatch(candidates[0] if candidates else None)


def section_wishes(desired: DesiredState) -> dict[str, str | None]:
    """Normalised category name -> normalised section name (None: no section), for the
    entries that manage their section (given, and not in `ignore_fields`)."""
    if "section" in desired.settings.ignore_fields.get(Kind.categories, []):
        return {}
    return {
        norm_key(c.name): norm_key(c.section) if c.section else None
        for c in desired.manifest.categories
        if "section" in c.model_fields_set
    }


def parse_category(raw: Mapping[str, Any]) -> LiveCategory:
    section_id = raw.get("SectionID", raw.get("SectionId"))
    section = raw.get("Section")
    return LiveCategory(
        id=int(raw.get("CategoryID") or raw.get("CategoryId") or raw["ID"]),
        name=str(raw.get("Name") or ""),
        # Some answers carry 0 for "no section".
        section_id=int(section_id) if section_id else None,
        section=str(section) if section else None,
    )


def where_text(categories: tuple[LiveCategory, ...]) -> str:
    return ", ".join(c.where() for c in categories)


class CategoriesResource:
    kind = KIND
    service = "helpdesk"

    def needs(self, desired: DesiredState) -> bool:
        manifest = desired.manifest
        # Tech permissions name categories: their ids come from here.
        return bool(manifest.categories) or bool(manifest.tech_permissions)

    async def read(self, reader: Reader) -> LiveCategories:
        raw = await reader.helpdesk.categories()
        return LiveCategories.from_items([parse_category(item) for item in raw])

    def diff(self, ctx: PlanContext) -> KindPlan:
        live = ctx.live_of(KIND, LiveCategories) or LiveCategories({})
        wishes = section_wishes(ctx.desired)
        result = KindPlan()
        accounted: set[int] = set()  # live categories an entry names (matched or reported)
        for category in ctx.desired.manifest.categories:
            found = live.match(category.name, wishes)
            if found.live is not None:
                accounted.add(found.live.id)
                continue
            accounted.update(c.id for c in found.others)
            problem = self._problem(ctx, category, found)
            if problem is not None:
                result.diagnostics.append(problem)
                continue
            self._create(ctx, category, live, wishes, result)
        if ctx.prunes(KIND) and ctx.desired.manifest.categories:
            for stray in live.all():
                if stray.id not in accounted:
                    result.diagnostics.append(
                        warning(
                            f"({stray.where()}) not in the manifests, and the API cannot "
                            "delete categories",
                            address(KIND, stray.name),
                            "add it to the manifests, or delete it in the helpdesk's admin panel",
                        )
                    )
        return result

    def _problem(
        self, ctx: PlanContext, category: Category, found: CategoryMatch
    ) -> Diagnostic | None:
        addr = address(KIND, category.name)
        location = ctx.location(KIND, category.name)
        if found.ambiguous:
            return error(
                f"exists in several sections ({where_text(found.others)})",
                addr,
                "give `section` to say which one the manifests mean",
                location,
            )
        if found.others:
            wanted = f"section {category.section!r}" if category.section else "no section"
            live_section = found.others[0]
            return error(
                f"is {where_text(found.others)} live, not in {wanted}, and the API cannot "
                "move a category",
                addr,
                "move it in the helpdesk's admin panel, or write "
                f"`section: {live_section.section or 'null'}` in the manifest",
                ctx.desired.location(KIND, category.name, "section") or location,
            )
        return None

    def _create(
        self,
        ctx: PlanContext,
        category: Category,
        live: LiveCategories,
        wishes: Mapping[str, str | None],
        result: KindPlan,
    ) -> None:
        addr = address(KIND, category.name)
        params: dict[str, Any] = {"name": category.name}
        fields = [FieldChange("name", None, category.name)]
        wanted = wishes.get(norm_key(category.name))
        if wanted is not None and category.section:
            sections = live.sections()
            found = sections.get(wanted)
            if found is None:
                known = sorted(name for _, name in sections.values())
                result.diagnostics.append(
                    error(
                        f"section {category.section!r} does not exist (the API shows a section "
                        "only through the categories in it, and cannot create one)"
                        + closest(category.section, known),
                        addr,
                        "in the helpdesk's admin panel, create the section with at least one "
                        "category in it, or use one of: "
                        + (", ".join(known) if known else "(no sections exist)"),
                        ctx.desired.location(KIND, category.name, "section"),
                    )
                )
                return
            params["sectionId"] = found[0]
            fields.append(FieldChange("section", None, found[1]))
        ctx.will_create(KIND, category.name)
        result.changes.append(
            Change(
                KIND,
                category.name,
                Action.create,
                tuple(fields),
                (
                    Operation(
                        "helpdesk",
                        "POST",
                        "/api/AddCategory",
                        params,
                        creates=addr,
                        idempotent=False,
                    ),
                ),
            )
        )

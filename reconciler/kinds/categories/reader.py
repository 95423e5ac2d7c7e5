"""Categories' live state: `categories` items parsed into `LiveCategory`s, grouped by name
(the same name may exist in several sections), the match of a manifest entry to one of
them (shared with `tech_permissions`, which needs the same category), and their reader.
The decisions are the planner's (`planner.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind
from reconciler.manifest.scopes import category_name
from reconciler.resources.base import Keyed, Reader, norm_key
from reconciler.resources.scope_reads import in_scope

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
    # Several live categories of this name in the same section (two applies that raced):
    # `others` are they, and no entry can say which it means.
    twins: bool = False

    def twins_error(self, subject: str) -> str:
        ids = ", ".join(str(c.id) for c in self.others)
        return (
            f"{len(self.others)} live categories (ids {ids}) are named {subject} "
            f"{self.others[0].where()}, so the manifests cannot tell which one they mean"
        )


TWINS_REMEDY = (
    "the API cannot delete a category: in the helpdesk's admin panel, delete or rename "
    "all but one of them (keep the one tickets use), then plan again"
)


@dataclass(frozen=True)
class LiveCategories(Keyed):
    kind = KIND
    by_key: Mapping[str, tuple[LiveCategory, ...]]  # normalised name -> categories, by id
    # Those outside `settings.scope.categories` (listed anyway): only to say why an entry
    # of another kind naming one is refused.
    outside: tuple[LiveCategory, ...] = ()

    def __len__(self) -> int:
        return sum(len(group) for group in self.by_key.values())

    @classmethod
    def from_items(cls, items: list[LiveCategory]) -> LiveCategories:
        grouped: dict[str, list[LiveCategory]] = {}
        for item in sorted(items, key=lambda c: c.id):
            grouped.setdefault(norm_key(item.name), []).append(item)
        return cls({key: tuple(found) for key, found in grouped.items()})

    def digest_data(self) -> Any:
        return [c.digest_data() for c in self.all()]

    def named_ids(self) -> Iterable[tuple[str, object]]:
        return ((c.name, c.id) for c in self.all())

    def names(self) -> list[str]:
        return [c.name for c in self.all()]

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
            chosen = tuple(c for c in candidates if c.section_key == wishes[key])
            if not chosen:
                return CategoryMatch(None, candidates)
        else:
            chosen = candidates
        if len({c.section_key for c in chosen}) > 1:
            return CategoryMatch(None, chosen, ambiguous=True)
        if len(chosen) > 1:
            return CategoryMatch(None, chosen, twins=True)
        return CategoryMatch(chosen[0] if chosen else None)


def section_wishes(desired: DesiredState) -> dict[str, str | None]:
    """Normalised category name -> normalised section name (None: no section), for the
    entries that manage their section (given, and not in `ignore_fields`)."""
    if "section" in desired.settings.ignore_fields.get(Kind(KIND), []):
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


async def read_categories(reader: Reader) -> LiveCategories:
    raw = await reader.helpdesk.categories()
    wanted = in_scope(reader.desired, KIND, lambda c: category_name(c.name, c.section))
    listed = list(map(parse_category, raw))
    found = LiveCategories.from_items([c for c in listed if wanted(c)])
    return replace(found, outside=tuple(c for c in listed if not wanted(c)))

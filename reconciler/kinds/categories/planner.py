"""Categories: keyed by name (case-insensitive), placed in a section named by `section`.

The API lists categories (`GET /categories`: CategoryID, Name, SectionID, Section) and
adds them (`AddCategory` with `name` and `sectionId`); it cannot rename, move or delete a
category, nor create, list or rename a section. So:

- A missing category is created. Its section is resolved by name from the sections that
  live categories sit in (the only way the API shows sections), then from
  `settings.section_ids` (a section made in the admin panel that no category is in yet,
  as on a new helpdesk); a section in neither is an error naming the closest sections and
  the remedy. A section both live and in `section_ids` with another id is a warning: the
  live id wins. An id of `section_ids` that is another section live is an error for the
  categories that would go there (they would land in the wrong section), else a warning.
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

from reconciler.kinds.categories import Category
from reconciler.kinds.categories.reader import (
    KIND,
    TWINS_REMEDY,
    CategoryMatch,
    LiveCategories,
    parse_category,
    read_categories,
    section_wishes,
    where_text,
)
from reconciler.kinds.custom_fields.planner import closest
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Settings
from reconciler.plans import (
    Action,
    Change,
    Diagnostic,
    FieldChange,
    address,
    warning,
)
from reconciler.resources.base import (
    KindPlan,
    KindResource,
    PlanContext,
    Planner,
    norm_key,
    post,
)


@dataclass(frozen=True)
class Sections:
    """The sections a category can be created in, as normalised name -> (id, name): those
    live categories sit in, and those `settings.section_ids` names."""

    live: Mapping[str, tuple[int, str]]
    configured: Mapping[str, tuple[int, str]]

    @classmethod
    def of(cls, live: LiveCategories, settings: Settings) -> Sections:
        configured = {norm_key(name): (sid, name) for name, sid in settings.section_ids.items()}
        return cls(live.sections(), configured)

    def live_name(self, section_id: int) -> str | None:
        """The name live categories show for this section id, if any sit in it."""
        return next((name for sid, name in self.live.values() if sid == section_id), None)

    def names(self) -> list[str]:
        return sorted(name for _, name in {**self.configured, **self.live}.values())


class CategoriesResource(KindResource):
    kind = KIND

    async def locate(
        self, change: Change, helpdesk: Any, workspace: Any, desired: DesiredState
    ) -> Any:
        """The id of the category a lost `AddCategory` may have made: the one of that name in
        the section the change names, or None."""
        wanted = next((f.after for f in change.fields if f.path == "section"), None)
        for raw in await helpdesk.categories():
            category = parse_category(raw)
            if norm_key(category.name) != norm_key(change.key):
                continue
            if wanted is None or category.section_key == norm_key(str(wanted)):
                return category.id
        return None

    read = staticmethod(read_categories)

    def diff(self, ctx: PlanContext) -> KindPlan:
        planner = _Planner(ctx)
        accounted: set[int] = set()  # live categories an entry names (matched or reported)
        for category in ctx.desired.manifest.categories:
            found = planner.live.match(category.name, planner.wishes)
            if found.live is not None:
                accounted.add(found.live.id)
                continue
            accounted.update(c.id for c in found.others)
            if not planner.mismatch(category, found):
                planner.create(category)
        if ctx.desired.manifest.categories:
            planner.result.diagnostics += stale_section_ids(ctx, planner.sections, planner.clashes)
        if ctx.prunes(KIND) and ctx.desired.manifest.categories:
            for stray in planner.live.all():
                if stray.id not in accounted:
                    planner.undeletable(stray.name, where=f"({stray.where()}) ")
        return planner.result


class _Planner(Planner):
    """Plans one run's categories."""

    def __init__(self, ctx: PlanContext) -> None:
        super().__init__(ctx, KIND)
        self.live = ctx.live_of(KIND, LiveCategories) or LiveCategories({})
        self.wishes = section_wishes(ctx.desired)
        self.sections = Sections.of(self.live, ctx.desired.settings)
        self.clashes: set[str] = set()  # section_ids entries already reported by a category

    def mismatch(self, category: Category, found: CategoryMatch) -> bool:
        """Whether the live categories of the entry's name rule out creating it (reported)."""
        key = category.name
        if found.twins:
            self.problem(key, found.twins_error(repr(key)), TWINS_REMEDY)
        elif found.ambiguous:
            remedy = "give `section` to say which one the manifests mean"
            self.problem(key, f"exists in several sections ({where_text(found.others)})", remedy)
        elif found.others:
            wanted = f"section {category.section!r}" if category.section else "no section"
            live_section = found.others[0]
            self.problem(
                key,
                f"is {where_text(found.others)} live, not in {wanted}, and the API cannot "
                "move a category",
                "move it in the helpdesk's admin panel, or write "
                f"`section: {live_section.section or 'null'}` in the manifest",
                "section",
            )
        # Twins and a name in several sections carry their live categories in `others` too.
        return bool(found.others)

    def section(self, category: Category, wanted: str) -> tuple[int, str] | None:
        """The (id, name) of the section a new category goes into; None after reporting
        why there is none. Live wins: what the categories show is what the helpdesk has."""
        assert category.section is not None
        sections = self.sections
        if wanted in sections.live:
            return sections.live[wanted]
        configured = sections.configured.get(wanted)
        if configured is None:
            known = sections.names()
            self.problem(
                category.name,
                f"section {category.section!r} does not exist (the API shows a section "
                "only through the categories in it, and cannot create one)"
                + closest(category.section, known),
                "in the helpdesk's admin panel, create the section with at least one "
                "category in it, or use one of: "
                + (", ".join(known) if known else "(no sections exist)")
                + "; a section that holds no category yet is named with its id under "
                "settings.section_ids",
                "section",
            )
            return None
        section_id, name = configured
        other = sections.live_name(section_id)
        if other is not None:
            # Created with this id, the category would sit in `other`, not where it asks.
            self.clashes.add(wanted)
            self.problem(
                category.name,
                f"settings.section_ids gives section {name!r} the id {section_id}, but "
                f"live that id is section {other!r}",
                f"correct the id of {name!r} in settings.section_ids (the admin panel "
                f"shows it), or write `section: {other}` if the section was renamed",
                "section",
            )
            return None
        return configured

    def create(self, category: Category) -> None:
        params: dict[str, Any] = {"name": category.name}
        fields = [FieldChange("name", None, category.name)]
        wanted = self.wishes.get(norm_key(category.name))
        if wanted is not None and category.section:
            found = self.section(category, wanted)
            if found is None:
                return
            params["sectionId"] = found[0]
            fields.append(FieldChange("section", None, found[1]))
        self.ctx.will_create(KIND, category.name)
        addr = address(KIND, category.name)
        add = post("AddCategory", params, creates=addr, idempotent=False)
        self.change(category.name, Action.create, fields, [add])


def stale_section_ids(ctx: PlanContext, sections: Sections, clashes: set[str]) -> list[Diagnostic]:
    """Warnings for `settings.section_ids` entries the live categories contradict: the
    section is live under another id (the live id is used), or the id is live under
    another name (unless a category already reported it as an error)."""
    found = []
    for key, (section_id, name) in sections.configured.items():
        live = sections.live.get(key)
        other = sections.live_name(section_id) if live is None and key not in clashes else None
        if live is not None and live[0] != section_id:
            why = f"the categories in it show id {live[0]} live: the live id is used"
        elif other is not None:
            why = f"live that id is section {other!r}"
        else:
            continue
        found.append(
            warning(
                f"settings.section_ids gives section {name!r} the id {section_id}, but {why}",
                remedy=f"correct or remove {name!r} in settings.section_ids",
                location=ctx.desired.settings_location("section_ids", name),
            )
        )
    return found

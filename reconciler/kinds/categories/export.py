"""Categories as manifest entries (pure; see export/entries.py). Categories are grouped
by name (the planner matches them by name and section): the first of a name is written,
with a note naming the others; `section` is written when set, or when the name is shared."""

from __future__ import annotations

from reconciler.export.entries import Converter, Entry, ordered
from reconciler.kinds.categories.reader import LiveCategories


def categories(conv: Converter) -> list[Entry]:
    entries = []
    categories = conv.live("categories", LiveCategories({}))
    firsts = [group[0] for group in categories.by_key.values()]
    for category in conv.keyed("categories", firsts, lambda c: c.name):
        entry: Entry = {"name": category.name}
        others = categories.named(category.name)[1:]
        if others:
            conv.notes.append(
                f"categories/{category.name}: is also {', '.join(c.where() for c in others)}"
                f"; manifests key categories by name, so only the one {category.where()} "
                "is written"
            )
        if category.section or others or conv.include_empty:
            # `section: null` says "no section"; left out, any section would match.
            entry["section"] = category.section
        entries.append(ordered("categories", entry))
    return entries

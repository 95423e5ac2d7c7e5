"""`categories`: ticket categories, matched by name (and section). This module is its row of
the table of kinds; the package holds the rest of the kind (`kinds/__init__.py` lists its
modules).
"""

from __future__ import annotations

from reconciler.kinds.categories.model import Category
from reconciler.manifest.kinds import HELPDESK, NO_DELETE, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.categories, HELPDESK, "name", KeyForm.NAME, Category, "category",
    read_for=((Kind.tech_permissions, None),),  # their category ids come from here
    prune_refused=NO_DELETE.format("categories"),
    rename_instead="rename it in the helpdesk's admin panel, then change its name in "
    "the manifests (and in the tech permissions that name it)",
)  # fmt: skip

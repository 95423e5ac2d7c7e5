"""`tech_permissions`: the technicians allowed on each category, keyed by the category's name.
This module is its row of the table of kinds; the package holds the rest of the kind
(`kinds/__init__.py` lists its modules).
"""

from __future__ import annotations

from reconciler.kinds.tech_permissions.model import TechPermission
from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.tech_permissions, HELPDESK, "category", KeyForm.NAME, TechPermission,
    "tech permission",
    references=(("category", Kind.categories), ("technicians", Kind.users)),
    # The administrators, who are implicit technicians (never exported).
    export_reads=(Kind.users,),
    rename_instead="they follow their category: rename the category in the helpdesk's "
    "admin panel, then change `category:` here",
)  # fmt: skip

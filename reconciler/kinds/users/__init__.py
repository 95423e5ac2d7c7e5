"""`users`: helpdesk users, matched by username. This module is its row of the table of kinds;
the package holds the rest of the kind (`kinds/__init__.py` lists its modules).
"""

from __future__ import annotations

from reconciler.kinds.users.model import User
from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.users, HELPDESK, "username", KeyForm.NAME, User, "user",
    references=(("company", Kind.companies), ("department", Kind.departments)),
    custom_field_usage=3, unique=("email",), renamable=True, renamed_if="email",
    # Ids of the users named, and the administrators (implicit technicians).
    read_for=((Kind.tech_permissions, None), (Kind.assets, "assigned_users")),
)  # fmt: skip

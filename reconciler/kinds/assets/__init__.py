"""`assets`: assets, matched by serial number: serial numbers compare as names (`sn-0001` in a
manifest and `SN-0001` live are one asset, and telling them apart would create a duplicate
and, under prune, disable the original). This module is its row of the table of kinds; the
package holds the rest of the kind (`kinds/__init__.py` lists its modules).
"""

from __future__ import annotations

from reconciler.kinds.assets.model import Asset
from reconciler.manifest.kinds import HELPDESK, KeyForm, KindSpec
from reconciler.manifest.models import Kind

ROW = KindSpec(
    Kind.assets, HELPDESK, "serial_number", KeyForm.NAME, Asset, "asset",
    references=(("company", Kind.companies), ("assigned_users", Kind.users)),
    export_reads=(Kind.companies, Kind.users), custom_field_usage=2, renamable=True,
    renamed_if="serial_number",
)  # fmt: skip

"""`export` never writes `previously:` (docs/renaming.md): former keys are a statement of
the manifests' history, which the live state does not hold; an export is of what is live."""

from __future__ import annotations

from pathlib import Path

from reconciler.kinds.table import KINDS
from reconciler.manifest.models import PREVIOUSLY
from tests.export.sandbox import round_trip, seeded


def test_an_export_names_no_former_key(tmp_path: Path) -> None:
    state, credentials = seeded()
    tina = next(r for r in state.store.rows("users") if r["username"] == "tina")
    state.store.update("users", tina["id"], username="tina.nguyen")  # renamed by hand
    trip = round_trip(state, credentials, tmp_path)
    for row in KINDS:
        for entry in trip.desired.entries(row.kind):
            assert PREVIOUSLY not in entry.model_fields_set, (row.name, entry)
    written = "".join(p.read_text() for p in tmp_path.rglob("*.yaml"))
    assert "tina.nguyen" in written and f"{PREVIOUSLY}:" not in written

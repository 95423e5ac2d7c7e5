"""What `validate` says of one manifest file: shared by the table tests of its messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.validate import validate_manifests


def problems_of(manifest: str) -> list[str]:
    """The problems `validate` refuses `manifest` with, written as `m.yaml` in the
    current directory (each test changes into its own temporary one)."""
    Path("m.yaml").write_text(manifest, encoding="utf-8")
    with pytest.raises(ManifestError) as refused:
        validate_manifests([Path("m.yaml")], {})
    return list(refused.value.problems)

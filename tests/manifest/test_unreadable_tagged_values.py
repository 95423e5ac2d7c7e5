"""A value whose YAML tag cannot read it (`!!bool maybe`, `!!int ten`) is refused at its
line and column, naming the tag, with no traceback; nothing is planned from the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.loader import load_manifests


@pytest.mark.parametrize(
    ("value", "tag"), [("!!bool maybe", "!!bool"), ("!!int ten", "!!int")], ids=["bool", "int"]
)
def test_a_value_its_tag_cannot_read_is_refused_where_it_is(
    tmp_path: Path, value: str, tag: str
) -> None:
    manifest = tmp_path / "companies.yaml"
    manifest.write_text(f"companies:\n  - name: Acme\n    notes: {value}\n", encoding="utf-8")
    with pytest.raises(ManifestError) as refused:
        load_manifests([manifest], {})
    assert refused.value.problems == [f"{manifest}:3:12: cannot read this value as {tag}"]

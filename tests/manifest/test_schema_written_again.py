"""The schema is written where no directory is yet, and again over itself (after a
change to the models, over the committed file)."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest.schema import schema_text, write_schema


def test_the_schema_is_written_again_over_itself(tmp_path: Path) -> None:
    target = tmp_path / "repo" / "schemas" / "manifest.schema.json"  # neither exists yet
    write_schema(target)
    target.write_text("{}\n", encoding="utf-8")  # out of date
    assert write_schema(target) == target
    assert target.read_text(encoding="utf-8") == schema_text()

"""`reconciler validate` and `reconciler schema` in-process (cli/manifests.py): the count
of objects and files said on stderr, nothing on stdout; the schema or the field reference
printed exactly as committed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.manifest.reference import reference_markdown
from reconciler.manifest.schema import schema_text


def test_validate_counts_the_objects_of_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.yaml").write_text(
        "companies:\n  - name: Acme\n  - name: Globex\n", encoding="utf-8"
    )
    (tmp_path / "m" / "b.yaml").write_text("departments:\n  - name: IT\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "m", "--annotations", "none"])
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "Valid: 3 objects in 2 file(s).\n",
    )


@pytest.mark.parametrize("markdown", [False, True])
def test_schema_prints_what_is_committed(markdown: bool) -> None:
    result = CliRunner().invoke(main, ["schema", "--markdown"] if markdown else ["schema"])
    assert result.exit_code == 0
    assert result.stdout == (reference_markdown() if markdown else schema_text())

"""What a user sees from single-environment commands in-process (click's CliRunner):
`environments --schema` prints the committed JSON Schema of reconciler.yaml byte for
byte; `plan --out` whose var file is removed while the live state is read (a checkout
in another terminal) writes no plan file and says which var file is gone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import reconciler.session.workflow as workflow
from reconciler.cli import main

ROOT = Path(__file__).parents[2]


def test_environments_schema_is_the_committed_schema(clean_workdir: Path) -> None:
    result = CliRunner().invoke(main, ["environments", "--schema"])
    assert result.exit_code == 0, result.output
    committed = (ROOT / "schemas" / "project.schema.json").read_text(encoding="utf-8")
    assert result.stdout == committed
    assert result.stderr == ""


def test_a_var_file_gone_before_the_plan_is_saved_writes_no_plan(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (clean_workdir / "vars.yaml").write_text("name: Zeta Ltd\n", encoding="utf-8")
    (clean_workdir / "c.yaml").write_text("companies:\n  - name: ${name}\n", encoding="utf-8")
    reading = workflow.read_and_plan

    async def read_and_plan(*args: Any, **kwargs: Any) -> Any:
        (clean_workdir / "vars.yaml").unlink()  # removed while the live state is read
        return await reading(*args, **kwargs)

    monkeypatch.setattr(workflow, "read_and_plan", read_and_plan)
    args = ["plan", "c.yaml", "--var-file", "vars.yaml", "--out", "p.json", "--sandbox"]
    result = CliRunner().invoke(main, args, env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert result.stderr.endswith("Error: --var-file: vars.yaml can no longer be read\n")
    assert result.stdout == ""
    assert not (clean_workdir / "p.json").exists()

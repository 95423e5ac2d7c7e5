"""`reconciler export` in-process against the embedded sandbox (`--sandbox`, the acme
seed, on 127.0.0.1), as a user reads it: the manifest on stdout and its count on stderr,
the schema comment, the files written into `--out` and the other manifests left there,
and the directory checks made before anything is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main


@pytest.fixture
def workdir(clean_workdir: Path) -> Path:
    return clean_workdir


def export(*args: str) -> Result:
    command = ["export", "--sandbox", "--kinds", "companies", *args]
    return CliRunner().invoke(main, command, env={"NO_COLOR": "1"})


@pytest.mark.parametrize(
    ("args", "schema"),
    [((), "manifest.schema.json"), (("--schema", "../schemas/m.json"), "../schemas/m.json")],
)
def test_the_manifest_on_stdout_and_its_count_on_stderr(
    workdir: Path, args: tuple[str, ...], schema: str
) -> None:
    result = export(*args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"# yaml-language-server: $schema={schema}"
    assert lines[1].startswith("# Exported by `reconciler export` from http://127.0.0.1:")
    assert lines[2:4] == ["settings: {}", "companies:"]
    names = [line for line in lines if line.startswith("  - name: ")]
    assert names == [
        "  - name: Acme Corp",
        "  - name: Acme Field Services",
        "  - name: Acme Robotics",
    ]
    assert result.stdout.endswith("\n") and not result.stdout.endswith("\n\n")
    assert result.stderr == "Exported 3 object(s).\n"
    assert not (workdir / "manifest.schema.json").exists()  # stdout only: no file written


def test_out_writes_one_file_a_kind_and_says_which(workdir: Path) -> None:
    result = export("--out", "out")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr == (
        "Exported 3 object(s) to out: settings.yaml, companies.yaml, manifest.schema.json.\n"
    )
    assert sorted(p.name for p in (workdir / "out").iterdir()) == [
        "companies.yaml",
        "manifest.schema.json",
        "settings.yaml",
    ]


def test_other_manifests_in_out_are_refused_then_kept_with_force(workdir: Path) -> None:
    (workdir / "out").mkdir()
    mine = "companies:\n  - name: Mine\n"
    (workdir / "out" / "mine.yaml").write_text(mine, encoding="utf-8")
    refused = export("--out", "out")
    assert refused.exit_code == 1
    assert refused.output == (
        "Error: --out out already holds manifests (mine.yaml), which `plan` would read "
        "together with the export: export into an empty directory, or add --force to "
        "overwrite the files the export writes (the others are left as they are)\n"
    )
    assert sorted(p.name for p in (workdir / "out").iterdir()) == ["mine.yaml"]
    forced = export("--out", "out", "--force")
    assert forced.exit_code == 0, forced.output
    assert forced.stderr == (
        "Exported 3 object(s) to out: settings.yaml, companies.yaml, manifest.schema.json.\n"
        "Warning: out also holds other manifests, left as they were, which `plan out` reads "
        "too: mine.yaml\n"
    )
    assert (workdir / "out" / "mine.yaml").read_text(encoding="utf-8") == mine


def test_an_out_that_cannot_be_a_directory_is_refused_before_any_call(workdir: Path) -> None:
    (workdir / "file").write_text("x", encoding="utf-8")
    result = export("--out", "file/out")
    assert result.exit_code == 1
    assert result.output == "Error: --out file/out: file is a file, not a directory\n"
    assert not (workdir / ".reconciler").exists()  # no sandbox started

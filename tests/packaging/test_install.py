"""The distribution as a user installs it: its name and version agree with the command,
and the base install (no `sandbox` extra) plans and validates without the sandbox's web
server, refusing the sandbox in one line that names the extra."""

from __future__ import annotations

import ast
import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import reconciler
from reconciler.sandbox.start import DISTRIBUTION, SANDBOX_MODULES

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXAMPLE = ROOT / "examples" / "acme"
SANDBOX_ONLY = {name for names in SANDBOX_MODULES for name in names}

# Runs the command with the sandbox extra's modules made unimportable, as in an install
# without `[sandbox]`: a finder ahead of all others refuses them.
WITHOUT_EXTRA = f"""
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {sorted(SANDBOX_ONLY)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from reconciler.cli import main
main()
"""


def run_without_extra(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRA, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


def test_the_distribution_is_not_the_unrelated_reconciler_on_the_index() -> None:
    assert PYPROJECT["project"]["name"] == DISTRIBUTION == "helpdesk-reconciler"
    # The command keeps its name.
    assert PYPROJECT["project"]["scripts"] == {"reconciler": "reconciler.__main__:command"}


def test_version_prints_the_installed_distribution_version(tmp_path: Path) -> None:
    installed = importlib.metadata.version(DISTRIBUTION)
    assert installed == reconciler.__version__
    result = subprocess.run(
        [sys.executable, "-m", "reconciler", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"reconciler, version {installed}\n"


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    # A license classifier beside an SPDX expression is an error for setuptools >= 77.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


def test_the_web_server_is_an_extra_that_dev_includes() -> None:
    project = PYPROJECT["project"]
    base = {_name(r) for r in project["dependencies"]}
    extra = {_name(r) for r in project["optional-dependencies"]["sandbox"]}
    assert extra == {"starlette", "uvicorn", "python-multipart"}
    assert not base & extra
    assert f"{DISTRIBUTION}[sandbox]" in project["optional-dependencies"]["dev"]


def _name(requirement: str) -> str:
    for stop in "<>=!~[; ":
        requirement = requirement.partition(stop)[0]
    return requirement.lower()


def test_only_the_sandbox_package_imports_the_web_server() -> None:
    offenders = []
    for path in (ROOT / "reconciler").rglob("*.py"):
        if "sandbox" in path.relative_to(ROOT / "reconciler").parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path}:{node.lineno}" for n in names if n.partition(".")[0] in SANDBOX_ONLY
            ]
    assert offenders == []


def test_validate_works_without_the_sandbox_extra(tmp_path: Path) -> None:
    result = run_without_extra("validate", str(EXAMPLE), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("Valid:")


@pytest.mark.parametrize(
    "args",
    [
        ["plan", str(EXAMPLE), "--sandbox"],
        ["apply", str(EXAMPLE), "--sandbox", "--yes"],
        ["export", "--sandbox"],
        ["sandbox", "serve", "--port", "0"],
    ],
    ids=["plan", "apply", "export", "serve"],
)
def test_the_sandbox_without_its_extra_is_one_line_naming_it(
    args: list[str], tmp_path: Path
) -> None:
    result = run_without_extra(*args, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (
        "Error: the sandbox needs the 'sandbox' extra (starlette, uvicorn, python_multipart "
        "not installed): pip install 'helpdesk-reconciler[sandbox]'\n"
    )
    assert not (tmp_path / ".reconciler").exists()  # nothing started, nothing written


def test_the_changelog_has_a_section_for_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [h for h in changelog.splitlines() if h.startswith("## ")]
    # Newest first: this version, released (a date) or not yet.
    assert headings[0].startswith(f"## {reconciler.__version__} - "), headings[:1]

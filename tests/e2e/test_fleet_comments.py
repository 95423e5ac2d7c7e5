"""`plan --env '*' --comment-dir DIR` (docs/environments.md): one directory of numbered
comment parts per environment, each part titled with its environment, an environment that
could not be planned with its error, and `summary.md`; what an earlier run left and this
one has no use for is removed. Against the three-tenant sandbox, initech unreachable."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import TENANTS, cli, fleet  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e
BASE = "https://github.com/msp/fleet/blob/0123abc"


def unreachable(project: Path, sandbox: SandboxProcess, name: str) -> int:
    """Environment `name`'s URLs moved to a port nothing listens on; the others kept."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = int(probe.getsockname()[1])
    path = project / "reconciler.yaml"
    port = sandbox.env["ACME_HELPDESK_URL"].split(":")[2].split("/")[0]
    head, tail = path.read_text(encoding="utf-8").split(f"\n  {name}:\n")
    block, *rest = re.split(r"(?=\n  \S)", tail, maxsplit=1)  # up to the next environment
    block = block.replace(f":{port}/", f":{closed}/")
    path.write_text(head + f"\n  {name}:\n" + block + "".join(rest), "utf-8")
    return closed


def test_each_environment_gets_its_own_titled_parts(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    closed = unreachable(project, sandbox, "initech")
    parts = project / "parts"
    (parts / "oldtenant").mkdir(parents=True)
    (parts / "oldtenant" / "1.md").write_text("an environment no longer planned")
    (parts / "notes").mkdir()
    (parts / "notes" / "keep.txt").write_text("not ours")
    (parts / "1.md").write_text("a one-environment run's part")
    result = cli(project, sandbox, "plan", "--env", "*", "--comment-dir", "parts",
                 "--source-url", BASE)  # fmt: skip
    assert result.returncode == 1  # initech
    assert sorted(p.name for p in parts.iterdir()) == [
        "acme",
        "globex",
        "initech",
        "notes",
        "summary.md",
    ]
    assert (parts / "notes" / "keep.txt").exists()
    written = {name: (parts / name / "1.md").read_text(encoding="utf-8") for name in TENANTS}
    assert [sorted(p.name for p in (parts / name).iterdir()) for name in TENANTS] == [["1.md"]] * 3
    for name, text in written.items():
        assert text.startswith(f"## reconciler plan: environment {name}\n"), text[:80]
    assert "Acme House, Reading" in written["acme"] and "Acme House" not in written["globex"]
    assert 'companies["Globex Ltd"]' in written["globex"]
    assert f"({BASE}/tenants/acme/overlays.yaml#L" in written["acme"]  # both lines linked
    assert "**Error:** this environment could not be planned." in written["initech"]
    assert f"127.0.0.1:{closed}" in written["initech"]
    summary = (parts / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## reconciler plan: 3 environment(s)\n")
    assert [line.split("|")[1].strip() for line in summary.splitlines() if line.startswith("| ")][
        1:
    ] == list(TENANTS)
    assert "in 3 comment part(s)" in result.stderr


def test_an_unwritable_comment_dir_is_refused_before_any_call(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    (project / "taken").write_text("a file, not a directory")
    result = cli(project, sandbox, "plan", "--env", "*", "--comment-dir", "taken/parts")
    assert result.returncode == 1
    assert "--comment-dir taken/parts: taken is a file, not a directory" in result.stderr
    assert "Planning" not in result.stderr

"""A kind the manifests manage whose service is not configured is an error naming the
variables to set (DESIGN §3, issue 10), unless that whole kind is excluded: a drift job
with WORKSPACE_URL unset must not pass while the employees go unchecked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, WorkspaceConnection
from reconciler.errors import UsageError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans.addresses import Selector
from reconciler.session.workflow import check_services
from tests.applying.inprocess import EXAMPLE

HELPDESK = HelpdeskConnection("http://127.0.0.1:9/helpdesk", token=Secret("t" * 20))
WORKSPACE = WorkspaceConnection("http://127.0.0.1:9/workspace", Secret("k" * 20))


@pytest.fixture(scope="module")
def example() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


def test_an_unconfigured_workspace_is_an_error_naming_its_variables(example: DesiredState) -> None:
    with pytest.raises(UsageError) as refused:
        check_services(example, Connection(HELPDESK, None))
    assert str(refused.value) == (  # one line: the problem and both ways out
        "the manifests manage workspace.employees, but the workspace service is not "
        "configured: set WORKSPACE_URL and WORKSPACE_API_KEY, or leave it out with "
        "--exclude workspace.employees"
    )


def test_an_unconfigured_helpdesk_names_every_kind_it_leaves_out(example: DesiredState) -> None:
    with pytest.raises(UsageError) as refused:
        check_services(example, Connection(None, WORKSPACE))
    message = str(refused.value)
    assert "manage assets, automation_rules, categories, companies" in message
    assert "HELPDESK_URL and HELPDESK_TOKEN" in message
    assert "workspace" not in message.split("\n")[0].split(":")[0]


def test_excluding_the_whole_kind_is_the_way_out(example: DesiredState) -> None:
    check_services(example, Connection(HELPDESK, WORKSPACE))
    check_services(
        example,
        Connection(HELPDESK, None),
        [Selector("workspace.employees")],
    )
    with pytest.raises(UsageError) as refused:  # one employee left out is not the kind
        check_services(
            example,
            Connection(HELPDESK, None),
            [Selector("workspace.employees", "alice@acme.com")],
        )
    assert str(refused.value) == (
        "the manifests manage workspace.employees, but the workspace service is not configured: "
        "set WORKSPACE_URL and WORKSPACE_API_KEY, or leave it out with --exclude "
        "workspace.employees"
    )


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_plan_and_apply_exit_1_before_connecting(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("WORKSPACE_URL", "WORKSPACE_API_KEY", "HELPDESK_USERNAME", "HELPDESK_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    # Nothing listens on port 9: reaching the error is proof that nothing was sent.
    monkeypatch.setenv("HELPDESK_URL", "http://127.0.0.1:9/helpdesk")
    monkeypatch.setenv("HELPDESK_TOKEN", "t" * 20)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, [command, str(EXAMPLE), "--yes"][: 3 if command == "apply" else 2]
    )
    assert result.exit_code == 1
    assert "WORKSPACE_URL and WORKSPACE_API_KEY" in result.output
    assert "Traceback" not in result.output

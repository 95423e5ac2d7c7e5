"""The credential variables, in-process (the bad-input table checks the same through a
child process): a value that cannot travel in a header or in Basic authentication (a
colon only in the username) is named, never shown, before any call, and one that can
passes; a manifest may not read a credential variable, the password included, and its
value never appears."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.errors import UsageError
from reconciler.run.connect import check_credentials
from reconciler.sandbox.process import SandboxProcess

SECRET = "s3cret-Value-42"
BASE = {"HELPDESK_URL": "http://127.0.0.1:9/helpdesk", "NO_COLOR": "1"}


@pytest.fixture(autouse=True)
def _manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("HELPDESK_TOKEN", "HELPDESK_USERNAME", "HELPDESK_PASSWORD", "WORKSPACE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ok.yaml").write_text("companies:\n  - name: Acme\n")
    (tmp_path / "reads.yaml").write_text("companies:\n  - name: '${HELPDESK_PASSWORD}'\n")


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("a:b", "HELPDESK_USERNAME holds ':', which Basic authentication cannot carry"),
        ("ab\x07c", "HELPDESK_USERNAME holds a control character (at position 3)"),
    ],
)
def test_a_username_basic_authentication_cannot_carry_is_named(username: str, message: str) -> None:
    env = {**BASE, "HELPDESK_USERNAME": username, "HELPDESK_PASSWORD": SECRET}
    result = CliRunner().invoke(main, ["plan", "ok.yaml"], env=env)
    assert result.exit_code == 1
    assert message in result.output
    assert "127.0.0.1:9" not in result.output  # refused before any call


def test_a_manifest_may_not_read_the_password() -> None:
    env = {**BASE, "HELPDESK_USERNAME": "agent", "HELPDESK_PASSWORD": SECRET}
    result = CliRunner().invoke(main, ["validate", "reads.yaml"], env=env)
    assert result.exit_code == 1
    assert "'${HELPDESK_PASSWORD}' refers to a credential" in result.output
    assert SECRET not in result.output


UNSENT = "s3cret"


@pytest.mark.parametrize(
    ("name", "value", "what"),
    [
        ("HELPDESK_TOKEN", f"ab {UNSENT}", "a space (at position 3)"),
        ("HELPDESK_TOKEN", f"{UNSENT}\n", "a control or non-ASCII character (at position 7)"),
        ("HELPDESK_TOKEN", f"{UNSENT}\u00e9", "a control or non-ASCII character (at position 7)"),
        ("WORKSPACE_API_KEY", f"\t{UNSENT}", "a control or non-ASCII character (at position 1)"),
        ("WORKSPACE_API_KEY", f"{UNSENT}\x7f", "a control or non-ASCII character (at position 7)"),
        ("HELPDESK_PASSWORD", f"{UNSENT}\n", "a control character (at position 7)"),
        ("HELPDESK_USERNAME", "agent\r", "a control character (at position 6)"),
    ],
)
def test_a_credential_that_cannot_be_sent_is_named_never_shown(
    name: str, value: str, what: str
) -> None:
    env = {**BASE, "HELPDESK_USERNAME": "agent", name: value}
    result = CliRunner().invoke(main, ["plan", "ok.yaml"], env=env)
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {name} holds {what}; check how the variable is set (a trailing newline "
        "from a file?)\n"
    )
    assert UNSENT not in result.output


@pytest.mark.parametrize(
    "env",
    [
        {"HELPDESK_PASSWORD": "a b:c \u00e9"},  # Basic authentication carries any printable text
        {"HELPDESK_USERNAME": "agent \u00e9"},
        {"HELPDESK_TOKEN": "abc:~!"},  # visible ASCII
        {"WORKSPACE_API_KEY": ""},
        {},
    ],
)
def test_credentials_that_can_be_sent_pass(env: dict[str, str]) -> None:
    check_credentials(env)


def test_a_colon_is_refused_only_in_the_username() -> None:
    with pytest.raises(UsageError) as refused:
        check_credentials({"HELPDESK_USERNAME": "a:b", "HELPDESK_PASSWORD": "a:b"})
    assert str(refused.value) == (
        "HELPDESK_USERNAME holds ':', which Basic authentication cannot carry in a username (at "
        "position 2); check how the variable is set (a trailing newline from a file?)"
    )


WRONG = "wrong-Value-77"


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"HELPDESK_TOKEN": WRONG}, "(the credential of HELPDESK_TOKEN)"),
        (
            {"HELPDESK_USERNAME": "admin", "HELPDESK_PASSWORD": WRONG},
            "(the credential of HELPDESK_USERNAME and HELPDESK_PASSWORD)",
        ),
        ({"WORKSPACE_API_KEY": WRONG}, "(the credential of WORKSPACE_API_KEY)"),
    ],
)
def test_a_refused_credential_is_named_by_its_variable_never_shown(
    sandbox: SandboxProcess, given: dict[str, str], named: str
) -> None:
    service = "WORKSPACE_URL" if "WORKSPACE_API_KEY" in given else "HELPDESK_URL"
    url = sandbox.workspace_url if service == "WORKSPACE_URL" else sandbox.helpdesk_url
    manifest = "workspace.yaml" if service == "WORKSPACE_URL" else "ok.yaml"
    Path("workspace.yaml").write_text(
        "workspace:\n  employees:\n    - {email: z@acme.com, firstName: Z, lastName: Z}\n"
    )
    env = {"NO_COLOR": "1", service: url, **given}
    result = CliRunner().invoke(main, ["plan", manifest], env=env)
    assert result.exit_code == 1
    assert " failed: 401 " in result.output and result.output.endswith(f" {named}\n")
    assert WRONG not in result.output


def test_a_refused_credential_of_an_environment_names_the_variable_it_reads(
    sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    Path("reconciler.yaml").write_text(
        "environments:\n  prod:\n    paths: [ok.yaml]\n"
        f"    helpdesk_url: {sandbox.helpdesk_url}\n"
        "    credentials: {HELPDESK_TOKEN: SVC_TOK}\n"
    )
    monkeypatch.setenv("SVC_TOK", WRONG)
    result = CliRunner().invoke(main, ["plan", "--env", "prod"], env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert result.output.endswith(
        " (the credential of SVC_TOK (as HELPDESK_TOKEN), environment prod)\n"
    )
    assert WRONG not in result.output

"""The options every command shares (cli/options.py), in-process as a user meets them: the
connection options' help and ranges, `--sandbox` (refused with a URL, what it ignores,
its seed), no service configured, the credential variables that cannot be sent (named,
never shown), and the manifests' warnings on stderr."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.errors import UsageError
from reconciler.run.connect import check_credentials


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # --sandbox keeps its state under the working directory
    for name in list(os.environ):
        if name.startswith(("HELPDESK_", "WORKSPACE_")) or name == "RECONCILER_TIMEOUT":
            monkeypatch.delenv(name)
    (tmp_path / "c.yaml").write_text("companies:\n  - name: Zeta Ltd\n", encoding="utf-8")
    return tmp_path


def run(*args: str, **env: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1", **env})


CONNECTION_HELP = [
    "--helpdesk-url TEXT Helpdesk base URL (or HELPDESK_URL); /api is appended.",
    "--workspace-url TEXT Workspace base URL (or WORKSPACE_URL).",
    "--rate-limit INTEGER RANGE Helpdesk calls a minute; 0 for installs with "
    "DisableRateLimit. [default: 90; 0<=x<=10000]",
    "--search-rate-limit INTEGER RANGE Search/UserByEmail calls a minute. "
    "[default: 60; 0<=x<=10000]",
    "--timeout SECONDS Longest wait for one answer (connecting: at most 10 s); a failing "
    "call is not retried after SECONDS more, so a silent server costs about 2 x SECONDS "
    "(or RECONCILER_TIMEOUT). [default: 60; 0.1<=x<=3600]",
    "--sandbox Start an embedded sandbox on loopback (state in .reconciler/sandbox.db).",
    "--sandbox-seed TEXT With --sandbox: seed used on first start (a built-in one: acme, "
    "acme-catalogue, empty; or a seed file). [default: acme]",
    "--var-file FILE YAML mapping of NAME: value filling ${NAME} before the environment; "
    "repeatable.",
]


@pytest.mark.parametrize("command", ["plan", "apply", "export"])
def test_the_connection_options_help_says_each_default_and_range(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=1000)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    expected = CONNECTION_HELP if command != "export" else CONNECTION_HELP[:-1]
    assert [line for line in expected if line not in text] == []
    if command != "export":  # the manifest paths: optional (--env gives them instead)
        assert re.search(rf"Usage: main {command} \[OPTIONS\] \[PATHS\]\.\.\.", result.output)


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (("--rate-limit", "10001"), {}, "Invalid value for '--rate-limit': 10001 is not in the "
         "range 0<=x<=10000."),
        (("--search-rate-limit", "-1"), {}, "Invalid value for '--search-rate-limit': -1 is not "
         "in the range 0<=x<=10000."),
        ((), {"RECONCILER_TIMEOUT": "0.05"}, "Invalid value for '--timeout': 0.05 is not in the "
         "range 0.1<=x<=3600."),
        (("--timeout", "3601"), {}, "Invalid value for '--timeout': 3601.0 is not in the range "
         "0.1<=x<=3600."),
    ],
)  # fmt: skip
def test_values_out_of_range_are_refused_before_any_call(
    workdir: Path, args: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    result = run("plan", "c.yaml", "--sandbox", *args, **env)
    assert result.exit_code != 0
    assert result.output.endswith(f"Error: {message}\n")
    assert not (workdir / ".reconciler").exists()


@pytest.mark.parametrize("flag", ["--helpdesk-url", "--workspace-url"])
def test_sandbox_with_a_url_is_refused(workdir: Path, flag: str) -> None:
    result = run("plan", "c.yaml", "--sandbox", flag, "http://127.0.0.1:9/x")
    assert result.exit_code == 1
    assert result.output == (
        "Error: --sandbox cannot be combined with --helpdesk-url/--workspace-url\n"
    )


@pytest.mark.parametrize(
    ("env", "warning"),
    [
        ({"WORKSPACE_URL": "http://127.0.0.1:9/w"}, "WORKSPACE_URL (exported) is ignored"),
        ({"HELPDESK_URL": "http://127.0.0.1:9/h"}, "HELPDESK_URL (exported) is ignored"),
        (
            {"HELPDESK_URL": "http://127.0.0.1:9/h", "WORKSPACE_URL": "http://127.0.0.1:9/w"},
            "HELPDESK_URL and WORKSPACE_URL (exported) are ignored",
        ),
        ({"HELPDESK_URL": "", "WORKSPACE_URL": ""}, None),  # set but empty: nothing ignored
    ],
)
def test_sandbox_says_which_exported_urls_it_ignores(
    workdir: Path, env: dict[str, str], warning: str | None
) -> None:
    result = run("plan", "c.yaml", "--sandbox", **env)
    assert result.exit_code == 0, result.output
    said = f"Warning: --sandbox is used: {warning}, as are the credentials.\n" if warning else ""
    assert result.stderr == said
    assert 'companies  0 of 3 (0%); unmanaged: "Acme Corp"' in result.stdout  # the sandbox's


def test_the_sandbox_seed_chooses_the_first_state(workdir: Path) -> None:
    result = run("plan", "c.yaml", "--sandbox", "--sandbox-seed", "empty")
    assert result.exit_code == 0, result.output
    assert "Acme Corp" not in result.stdout
    assert "companies  0 of 0" in result.stdout


def test_without_a_service_nothing_can_be_planned(workdir: Path) -> None:
    result = run("plan", "c.yaml", HELPDESK_URL="", WORKSPACE_URL="")
    assert result.exit_code == 1
    assert result.output == (
        "Error: no service configured: set HELPDESK_URL (and credentials) and/or "
        "WORKSPACE_URL, or try --sandbox\n"
    )


SECRET = "s3cret"


@pytest.mark.parametrize(
    ("name", "value", "what"),
    [
        ("HELPDESK_TOKEN", f"ab {SECRET}", "a space (at position 3)"),
        ("HELPDESK_TOKEN", f"{SECRET}\n", "a control or non-ASCII character (at position 7)"),
        ("HELPDESK_TOKEN", f"{SECRET}\u00e9", "a control or non-ASCII character (at position 7)"),
        ("WORKSPACE_API_KEY", f"\t{SECRET}", "a control or non-ASCII character (at position 1)"),
        ("WORKSPACE_API_KEY", f"{SECRET}\x7f", "a control or non-ASCII character (at position 7)"),
        ("HELPDESK_PASSWORD", f"{SECRET}\n", "a control character (at position 7)"),
        ("HELPDESK_USERNAME", "agent\r", "a control character (at position 6)"),
    ],
)
def test_a_credential_that_cannot_be_sent_is_named_never_shown(
    workdir: Path, name: str, value: str, what: str
) -> None:
    env = {"HELPDESK_URL": "http://127.0.0.1:9/helpdesk", "HELPDESK_USERNAME": "agent", name: value}
    result = run("plan", "c.yaml", **env)
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {name} holds {what}; check how the variable is set (a trailing newline "
        "from a file?)\n"
    )
    assert SECRET not in result.output


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
    with pytest.raises(UsageError, match=r"HELPDESK_USERNAME holds ':', .* \(at position 2\)"):
        check_credentials({"HELPDESK_USERNAME": "a:b", "HELPDESK_PASSWORD": "a:b"})


def test_the_manifests_warnings_are_on_stderr_each_on_its_line(workdir: Path) -> None:
    (workdir / "w.yaml").write_text(
        'companies:\n  - name: Zeta Ltd\n  - name: "\\uff3aeta Ltd"\n', encoding="utf-8"
    )
    result = run("plan", "w.yaml", "--sandbox", "--sandbox-seed", "empty")
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "Warning: w.yaml:3:5: companies '\uff3aeta Ltd' and 'Zeta Ltd' (at w.yaml:2:5) are one "
        "name only after Unicode normalisation (NFKC, TR39 confusables) and case folding, but "
        "two to the helpdesk: write them alike\n"
    )

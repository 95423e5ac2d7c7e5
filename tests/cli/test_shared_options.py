"""The options every command shares (cli/options.py, cli/extras.py), in-process as a user
meets them: the connection options' help and ranges, and each value other than its
default seen where it takes effect (the connection's rates and timeout, for a configured
service and for `--sandbox`); `--sandbox` (refused with a URL, what it ignores, its seed);
no service configured; the manifests' warnings on stderr; an output path that cannot be
written refused in one line naming the option, the path and why."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.clients.connection import RateSettings, Timeouts
from reconciler.errors import UsageError
from reconciler.run.connect import open_connection
from reconciler.run.flags import ConnectionFlags
from reconciler.run.outputs import check_writable
from reconciler.sandbox.start import embedded


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
    "--timeout SECONDS Longest wait for one whole answer (connecting: at most 10 s); a "
    "failing call is not retried after SECONDS more, so a silent server costs about 2 x "
    "SECONDS (or RECONCILER_TIMEOUT). [default: 60; 0.1<=x<=3600]",
    "--allow-http Send the credentials over http:// to a host that is not loopback "
    "(refused otherwise: use https://).",
    "--ca-file FILE PEM certificates to check the servers' against (or REQUESTS_CA_BUNDLE; "
    "default: certifi's, or SSL_CERT_FILE/SSL_CERT_DIR).",
    "--sandbox Start an embedded sandbox on loopback (state in .reconciler/sandbox.db).",
    "--sandbox-seed TEXT With --sandbox: seed used on first start (a built-in one: acme, "
    "acme-catalogue, empty, shared; or a seed file); given, it must be the seed "
    ".reconciler/sandbox.db was made from. [default: acme]",
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
    assert result.exit_code == 1  # a usage error is an error like any other
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


def test_a_seed_other_than_the_databases_is_refused_not_ignored(workdir: Path) -> None:
    assert run("plan", "c.yaml", "--sandbox").exit_code == 0  # made from acme, the default
    result = run("plan", "c.yaml", "--sandbox", "--sandbox-seed", "empty")
    assert result.exit_code == 1
    assert result.output == (
        "Error: --sandbox-seed empty: .reconciler/sandbox.db holds a sandbox made from the "
        "seed acme (and what was applied to it since), not from empty: delete "
        ".reconciler/sandbox.db to start over from empty, or leave the seed out to use the "
        "sandbox as it is\n"
    )
    assert run("plan", "c.yaml", "--sandbox", "--sandbox-seed", "acme").exit_code == 0
    assert run("plan", "c.yaml", "--sandbox").exit_code == 0  # no seed given: as it is
    (workdir / ".reconciler" / "sandbox.db").unlink()
    again = run("plan", "c.yaml", "--sandbox", "--sandbox-seed", "empty")
    assert again.exit_code == 0, again.output
    assert "companies  0 of 0" in again.stdout


def test_without_a_service_nothing_can_be_planned(workdir: Path) -> None:
    result = run("plan", "c.yaml", HELPDESK_URL="", WORKSPACE_URL="")
    assert result.exit_code == 1
    assert result.output == (
        "Error: no service configured: set HELPDESK_URL (and credentials) and/or "
        "WORKSPACE_URL, or try --sandbox\n"
    )


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


SERVICE = {"HELPDESK_URL": "https://helpdesk.example", "HELPDESK_TOKEN": "t0ken"}


def test_the_rates_and_the_timeout_reach_the_connection(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SERVICE.items():
        monkeypatch.setenv(name, value)
    with open_connection(
        ConnectionFlags(rate_limit=12, search_rate_limit=7, timeout=5.5)
    ) as connection:
        assert connection.rates == RateSettings(general=12, search=7)
        assert connection.timeouts == Timeouts(5.5)
        assert connection.helpdesk is not None and connection.workspace is None
        assert connection.environment is None


def test_the_command_lines_url_wins_over_the_environments(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SERVICE.items():
        monkeypatch.setenv(name, value)
    with open_connection(ConnectionFlags(helpdesk_url="https://other.example")) as conn:
        assert conn.helpdesk is not None
        assert conn.helpdesk.url.startswith("https://other.example")


def test_the_sandbox_keeps_the_timeout_given(clean_workdir: Path) -> None:
    with open_connection(ConnectionFlags(timeout=7.5, sandbox=embedded("acme"))) as connection:
        assert connection.timeouts == Timeouts(7.5)
        assert connection.helpdesk is not None and connection.workspace is not None


@pytest.fixture
def place(tmp_path: Path) -> Path:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "adir").mkdir()
    (tmp_path / "alink").symlink_to(tmp_path / "nowhere")
    return tmp_path


@pytest.mark.parametrize(
    ("path", "directory", "why"),
    [
        ("afile/p.json", False, "{tmp}/afile is a file, not a directory"),
        ("afile/deeper/p.json", False, "{tmp}/afile is a file, not a directory"),
        ("afile/c", True, "{tmp}/afile is a file, not a directory"),
        ("adir", False, "is a directory"),
        ("afile", True, "is not a directory"),
        ("alink", False, "{tmp}/alink is a symbolic link to nothing, not a directory"),
        ("alink", True, "{tmp}/alink is a symbolic link to nothing, not a directory"),
        ("alink/p.json", False, "{tmp}/alink is a symbolic link to nothing, not a directory"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_naming_the_option_and_why(
    place: Path, path: str, directory: bool, why: str
) -> None:
    with pytest.raises(UsageError) as refused:
        check_writable("--out", place / path, directory=directory)
    assert str(refused.value) == f"--out {place / path}: {why.format(tmp=place)}"


@pytest.mark.parametrize(
    ("path", "directory"),
    [("new.json", False), ("new/deeper/p.json", False), ("adir", True), ("afile", False),
     ("adir/new", True)],
)  # fmt: skip
def test_an_output_path_that_can_be_written_passes(place: Path, path: str, directory: bool) -> None:
    check_writable("--out", place / path, directory=directory)


def test_an_output_in_a_directory_without_write_permission_is_refused(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = place / "adir"
    locked.chmod(0o500)
    if os.geteuid() == 0:
        # Root may write anywhere, so the kernel would grant it: answer as it does for
        # anyone else, for that directory only (CI runs as root).
        real_access = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode)
        )
    try:
        with pytest.raises(UsageError) as refused:
            check_writable("--log", locked / "a.jsonl")
        assert str(refused.value) == (
            f"--log {locked / 'a.jsonl'}: cannot write in {locked}: permission denied"
        )
    finally:
        locked.chmod(0o700)

"""No secret reaches an output: a password in a manifest or a live value is masked in the
comment parts, the saved plan and the exported manifests as on stdout; a server that
echoes the Basic header (whole or cut short) shows `Basic ***`; and every encoding the
client gives a credential is masked. Rows as tests/hardening/table.py runs them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from reconciler.masking import Masker
from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.table import ECHO, ECHO_CUT, LEAKY, Row, basic_env, check_rows, run_row

ROWS = [
    Row("password in a value: comment parts and saved plan masked", "plan m.yaml --comment-dir {tmp}/comments --out {tmp}/p.json", 0, "Wrote the plan in 1 comment part(s)", manifest=LEAKY),
    Row("password in a live value: export on stdout masked", "export --kinds companies", 0, "Exported", setup="leaky_company"),
    Row("password in a live value: export files masked", "export --kinds companies --out {tmp}/out", 0, "Exported", setup="leaky_company"),
    Row("server echoes the Basic header", "plan m.yaml", 1, "400 Bad header: Basic ***", server=ECHO),
    Row("server echoes the Basic header cut short", "plan m.yaml", 1, "400 Bad header: Basic ***…", server=ECHO_CUT),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(
    row: Row, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    run_row(row, sandbox, tmp_path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    check_rows(ROWS)


def test_the_comment_row_masks_a_value_that_is_there(
    sandbox: SandboxProcess, tmp_path: Path
) -> None:
    """The masking rows cannot pass by leaving the value out: the comment holds `***`
    where the manifest has the password."""
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(LEAKY.replace("{password}", sandbox.auth[1]), encoding="utf-8")
    result = run(tmp_path, "plan", "m.yaml", "--comment-dir", "c", env=env)
    assert result.returncode == 0, result.stderr
    assert "the password is ***" in (tmp_path / "c" / "1.md").read_text(encoding="utf-8")


BASIC_TOKEN = base64.b64encode(b"admin:p\xc3\xa4ss w0rd+/").decode()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"echo: Basic {BASIC_TOKEN}", "echo: Basic ***"),
        (f"echo: Basic {BASIC_TOKEN[:8]}…", "echo: Basic ***…"),
        (f"echo: authorization=basic%20{BASIC_TOKEN}", "echo: authorization=basic%20***"),
        ("p%C3%A4ss+w0rd%2B%2F and p%C3%A4ss%20w0rd%2B/", "*** and ***"),
        ("Basic authentication cannot carry ':'", "Basic authentication cannot carry ':'"),
        ("Basic YWJj", "Basic YWJj"),  # a prefix of no registered token
    ],
    ids=["whole", "cut short", "url-encoded header", "form and path encodings", "prose", "other"],
)
def test_every_encoding_the_client_produces_is_masked(text: str, shown: str) -> None:
    masker = Masker(["päss w0rd+/"])
    masker.add_basic(BASIC_TOKEN)
    assert masker.mask(text) == shown


URL_PASSWORD = "pw-in-the-url-5Jq"


def _seq(sandbox: SandboxProcess) -> int:
    import httpx

    log = httpx.get(f"{sandbox.url}/_sandbox/requests").json()
    return max((entry["seq"] for entry in log), default=0)


@pytest.mark.parametrize(
    ("field", "args", "variables"),
    [
        ("HELPDESK_URL", (), {"HELPDESK_URL": "http://admin:{pw}@127.0.0.1:{port}/helpdesk"}),
        ("--helpdesk-url", ("--helpdesk-url", "http://admin:{pw}@127.0.0.1:{port}/helpdesk"), {}),
        ("WORKSPACE_URL", (), {"WORKSPACE_URL": "http://key:{pw}@127.0.0.1:{port}"}),
        ("--workspace-url", ("--workspace-url", "http://:{pw}@127.0.0.1:{port}"), {}),
    ],
)
def test_a_password_in_a_service_url_is_refused_naming_where_it_is(
    field: str,
    args: tuple[str, ...],
    variables: dict[str, str],
    sandbox: SandboxProcess,
    tmp_path: Path,
) -> None:
    port = sandbox.helpdesk_url.split(":")[2].split("/")[0]
    env = basic_env(sandbox, tmp_path)
    env.update({k: v.format(pw=URL_PASSWORD, port=port) for k, v in variables.items()})
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    before = _seq(sandbox)
    given = [arg.format(pw=URL_PASSWORD, port=port) for arg in args]
    result = run(tmp_path, "plan", "m.yaml", *given, env=env)
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        f"Error: {field} carries a user name or password (before '@'): remove it and give "
        "the credentials in their variables (HELPDESK_TOKEN, or HELPDESK_USERNAME and "
        "HELPDESK_PASSWORD; WORKSPACE_API_KEY)\n"
    )
    assert URL_PASSWORD not in result.stdout + result.stderr
    assert _seq(sandbox) == before  # nothing sent


PROJECT = "environments:\n  acme:\n    paths: [m.yaml]\n    helpdesk_url: {url}\n"


@pytest.mark.parametrize(
    "command",
    [
        ("environments",),
        ("environments", "--format", "json"),
        ("validate", "--env", "acme"),
        ("plan", "--env", "acme"),
    ],
    ids=["environments", "environments json", "validate", "plan"],
)
def test_a_password_in_the_project_file_is_refused_at_load(
    command: tuple[str, ...], sandbox: SandboxProcess, tmp_path: Path
) -> None:
    host = sandbox.helpdesk_url.split("//", 1)[1]
    url = f"http://admin:{URL_PASSWORD}@{host}"
    (tmp_path / "reconciler.yaml").write_text(PROJECT.format(url=url), encoding="utf-8")
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    before = _seq(sandbox)
    result = run(tmp_path, *command, env=basic_env(sandbox, tmp_path))
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(
        "reconciler.yaml:4:19: environments.acme.helpdesk_url: the URL carries a user name "
        "or password (before '@')"
    ), result.stderr
    assert URL_PASSWORD not in result.stdout + result.stderr
    assert _seq(sandbox) == before


def test_a_password_in_a_url_the_guard_compares_is_not_shown(
    sandbox: SandboxProcess, tmp_path: Path
) -> None:
    """The wrong-tenant guard names the URL it refuses; one with a password is refused
    without being shown."""
    (tmp_path / "reconciler.yaml").write_text(
        PROJECT.format(url=sandbox.helpdesk_url), encoding="utf-8"
    )
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    env = basic_env(sandbox, tmp_path)
    env["HELPDESK_URL"] = f"https://admin:{URL_PASSWORD}@other.example.com/helpdesk"
    result = run(tmp_path, "plan", "--env", "acme", env=env)
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        "Error: HELPDESK_URL carries a user name or password (before '@'): remove it and "
        "give the credentials in their variables\n"
    )

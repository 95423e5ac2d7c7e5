"""Issue 22, first half (secrets and saved plans, locks and URLs, files, paths and
servers), run as a user runs it: `python -m reconciler` in a child process (the `run`
helper of tests/e2e/test_plan_cli.py), against the sandbox (`SandboxProcess`, one for the
module) or a misbehaving server on 127.0.0.1 (servers.py).

One row per case: the command, the exit code, the one-line message, and for every row:
no traceback and no "internal error"; nothing written to the service (the sandbox's
request log `/_sandbox/requests`, or what the fake server recorded); no secret (the
helpdesk password, its Basic token, the content of a file a saved plan names) in stdout,
stderr or any file the command wrote; and a failing command writes no file at all.

`{tmp}` in a command is the row's directory, `{url}` the helpdesk URL it is given."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from reconciler.applying.lock import ApplyLock
from reconciler.clients.urls import service_address
from reconciler.masking import Masker
from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.servers import Recorded, answering_server, silent_server

SHADOW = "root:SHADOW-LINE-n0t-t0-be-read:19000:0:99999:7:::"
OK = "companies: [{name: Acme}]\n"
LEAKY = "companies: [{name: Acme, notes: 'the password is {password}'}]\n"
WITH_VARIABLE = "companies: [{name: '${COMPANY}'}]\n"
SANDBOX = "sandbox"
SILENT = "silent"
NO_ID = "answers [{}]"
NAN_ID = "answers a NaN id"
ECHO = "echoes the Authorization header"
ECHO_CUT = "echoes it cut short"
SERVERS: dict[str, Callable[[], AbstractContextManager[Recorded]]] = {
    SILENT: silent_server,
    NO_ID: lambda: answering_server("[{}]"),
    NAN_ID: lambda: answering_server('[{"CompanyID": NaN, "Name": "Acme"}]'),
    ECHO: lambda: answering_server("Bad header: {authorization}", status=400, echo_at_login=True),
    ECHO_CUT: lambda: answering_server(
        "Bad header: {authorization_cut}", status=400, echo_at_login=True
    ),
}


@dataclass(frozen=True)
class Row:
    id: str
    command: str
    exit_code: int
    fragment: str
    manifest: str = OK
    server: str = SANDBOX
    setup: str = ""  # a name in SETUPS: what the row needs beside the manifest
    env: dict[str, str] = field(default_factory=dict)
    also: tuple[str, ...] = ()  # more fragments stderr must hold


ROWS = [
    # secrets and saved plans
    Row("password in a value: comment parts and saved plan masked", "plan m.yaml --comment-dir {tmp}/comments --out {tmp}/p.json", 0, "Wrote the plan in 1 comment part(s)", manifest=LEAKY),
    Row("password in a live value: export on stdout masked", "export --kinds companies", 0, "Exported", setup="leaky_company"),
    Row("password in a live value: export files masked", "export --kinds companies --out {tmp}/out", 0, "Exported", setup="leaky_company"),
    Row("server echoes the Basic header", "plan m.yaml", 1, "400 Bad header: Basic ***", server=ECHO),
    Row("server echoes the Basic header cut short", "plan m.yaml", 1, "400 Bad header: Basic ***…", server=ECHO_CUT),
    Row("saved plan naming /etc/shadow-like file", "apply m.yaml --plan {tmp}/p.json --yes", 1, "p.json: made_from.var_files[0]: expected an object, found a string", manifest=WITH_VARIABLE, setup="plan_names_shadow"),
    Row("saved plan with the shadow file's digest", "apply m.yaml --plan {tmp}/p.json --yes", 1, "the saved plan was made with --var-file {tmp}/shadow.txt (sha256:", manifest=WITH_VARIABLE, setup="plan_digests_shadow"),
    Row("var file with other content", "apply m.yaml --plan {tmp}/p.json --var-file {tmp}/other.yaml --yes", 1, "--var-file {tmp}/other.yaml: its content differs from that of the var file the saved plan was made with (--var-file vars.yaml (sha256:", manifest=WITH_VARIABLE, setup="saved_plan"),
    Row("old saved plan naming var files", "apply m.yaml --plan {tmp}/p.json --var-file {tmp}/vars.yaml --yes", 1, "made_from.var_files: var files recorded by path only (a plan saved by an earlier version): plan again with --out", manifest=WITH_VARIABLE, setup="plan_of_version_1"),
    # locks and URLs
    Row("apply lock under another spelling of the helpdesk", "apply m.yaml --yes", 1, "another apply is running for http://localhost:", setup="lock_held", env={"HELPDESK_URL": "http://LOCALHOST:{port}/HelpDesk/"}),
    # files, paths and servers
    Row("plan --out under a regular file", "plan m.yaml --out {tmp}/afile/p.json", 1, "--out {tmp}/afile/p.json: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("plan --comment-dir under a regular file", "plan m.yaml --comment-dir {tmp}/afile/c", 1, "--comment-dir {tmp}/afile/c: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("apply --log under a regular file", "apply m.yaml --yes --log {tmp}/afile/apply.jsonl", 1, "--log {tmp}/afile/apply.jsonl: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("export --out under a regular file", "export --out {tmp}/afile/out", 1, "--out {tmp}/afile/out: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("export --out is a regular file", "export --out {tmp}/afile", 1, "Invalid value for '--out': Directory '{tmp}/afile' is a file", setup="afile"),
    Row("sandbox serve --db on a non-SQLite file", "sandbox serve --port 0 --db {tmp}/afile", 1, "the sandbox database {tmp}/afile: file is not a database", setup="afile"),
    Row("sandbox serve --host 0.0.0.0", "sandbox serve --host 0.0.0.0 --port 0 --db {tmp}/s.db", 1, "--host 0.0.0.0 is not loopback"),
    Row("listing answered [{}]", "plan m.yaml", 1, "the helpdesk's answer for companies cannot be read: an item has no 'ID'", server=NO_ID),
    Row("listing answered with a NaN id", "plan m.yaml", 1, 'GET /api/Companies failed: expected a list of objects, got text: [{"CompanyID": NaN', server=NAN_ID),
    Row("server accepts and never answers", "plan m.yaml --timeout 2", 1, "POST /api/Authorization: no usable answer from 127.0.0.1:", server=SILENT, env={"RECONCILER_PROGRESS_INTERVAL": "0.3"}, also=("no answer within the timeout", "waiting for the helpdesk to answer POST /api/Authorization")),
    Row("RECONCILER_TIMEOUT as the option", "plan m.yaml", 1, "no answer within the timeout", server=SILENT, env={"RECONCILER_TIMEOUT": "1"}),
]  # fmt: skip


# -- the setups ---------------------------------------------------------------------------


@dataclass
class Case:
    tmp: Path
    sandbox: SandboxProcess
    env: dict[str, str]


def _afile(case: Case) -> None:
    (case.tmp / "afile").write_text("a regular file\n", encoding="utf-8")


def _leaky_company(case: Case) -> None:
    """A live company whose notes hold the helpdesk password (typed there by hand)."""
    helpdesk, auth = case.sandbox.helpdesk_url, case.sandbox.auth
    created = httpx.post(f"{helpdesk}/api/Company", data={"name": "Leaky"}, auth=auth)
    company = created.json()["id"]
    notes = {"id": company, "notes": f"password: {auth[1]}"}
    httpx.post(f"{helpdesk}/api/UpdateCompany", data=notes, auth=auth).raise_for_status()


def _saved_plan(case: Case) -> dict[str, object]:
    (case.tmp / "vars.yaml").write_text("COMPANY: Acme\n", encoding="utf-8")
    (case.tmp / "other.yaml").write_text("COMPANY: Acme  # edited\n", encoding="utf-8")
    (case.tmp / "shadow.txt").write_text(SHADOW + "\n", encoding="utf-8")
    made = run(
        case.tmp, "plan", "m.yaml", "--var-file", "vars.yaml", "--out", "p.json", env=case.env
    )
    assert made.returncode == 0, made.stderr
    saved: dict[str, object] = json.loads((case.tmp / "p.json").read_text(encoding="utf-8"))
    return saved


def _edit_made_from(case: Case, edit: Callable[[dict[str, object]], None]) -> None:
    saved = _saved_plan(case)
    made_from = saved["made_from"]
    assert isinstance(made_from, dict)
    edit(made_from)
    (case.tmp / "p.json").write_text(json.dumps(saved), encoding="utf-8")


def _shadow(case: Case) -> str:
    return str(case.tmp / "shadow.txt")


def _plan_names_shadow(case: Case) -> None:
    _edit_made_from(case, lambda made: made.update(var_files=[_shadow(case)]))


def _plan_digests_shadow(case: Case) -> None:
    digest = "sha256:" + hashlib.sha256((SHADOW + "\n").encode()).hexdigest()
    entry = {"path": _shadow(case), "digest": digest}
    _edit_made_from(case, lambda made: made.update(var_files=[entry]))


def _plan_of_version_1(case: Case) -> None:
    def edit(made: dict[str, object]) -> None:
        del made["version"]
        made["var_files"] = ["vars.yaml"]

    _edit_made_from(case, edit)


@contextmanager
def _lock_held(case: Case) -> Iterator[None]:
    """Another apply, holding the lock of the helpdesk under its plain spelling."""
    with ApplyLock(
        [service_address(case.sandbox.helpdesk_url, "helpdesk")], directory=case.tmp / "locks"
    ):
        yield


SETUPS: dict[str, Callable[[Case], object]] = {
    "afile": _afile,
    "leaky_company": _leaky_company,
    "saved_plan": _saved_plan,
    "plan_names_shadow": _plan_names_shadow,
    "plan_digests_shadow": _plan_digests_shadow,
    "plan_of_version_1": _plan_of_version_1,
    "lock_held": _lock_held,
}


# -- the test -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxProcess]:
    with SandboxProcess(tmp_path_factory.mktemp("sandbox") / "s.db") as started:
        yield started


def _basic_env(sandbox: SandboxProcess, tmp: Path) -> dict[str, str]:
    """The sandbox's helpdesk by username and password (Basic), no token."""
    env = {k: v for k, v in sandbox.env.items() if k != "HELPDESK_TOKEN"}
    env.update(NO_COLOR="1", NO_PROXY="127.0.0.1,localhost", RECONCILER_LOCK_DIR=str(tmp / "locks"))
    return env


def _secrets(sandbox: SandboxProcess) -> list[str]:
    username, password = sandbox.auth
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return [password, token, token[:12], SHADOW]


def _snapshot(directory: Path) -> dict[Path, bytes]:
    return {
        p: p.read_bytes() for p in directory.rglob("*") if p.is_file() and "locks" not in p.parts
    }


def _sandbox_writes(sandbox: SandboxProcess, since: int) -> list[str]:
    log = httpx.get(f"{sandbox.url}/_sandbox/requests", params={"since": since}).json()
    return [
        f"{r['method']} {r['path']}"
        for r in log
        if r["method"] != "GET" and not r["path"].lower().endswith("/authorization")
    ]


def _last_seq(sandbox: SandboxProcess) -> int:
    log = httpx.get(f"{sandbox.url}/_sandbox/requests").json()
    return max((r["seq"] for r in log), default=0)


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_round_two_row(row: Row, sandbox: SandboxProcess, tmp_path: Path) -> None:
    port = sandbox.helpdesk_url.split(":")[2].split("/")[0]
    env = _basic_env(sandbox, tmp_path)
    env.update({k: v.replace("{port}", port) for k, v in row.env.items()})
    (tmp_path / "m.yaml").write_text(
        row.manifest.replace("{password}", sandbox.auth[1]), encoding="utf-8"
    )
    case = Case(tmp_path, sandbox, env)
    with ExitStack() as stack:
        server = stack.enter_context(SERVERS[row.server]()) if row.server != SANDBOX else None
        if server is not None:
            env["HELPDESK_URL"] = server.url
        prepared = SETUPS[row.setup](case) if row.setup else None
        if isinstance(prepared, AbstractContextManager):
            stack.enter_context(prepared)
        before, seq = _snapshot(tmp_path), _last_seq(sandbox)
        command = row.command.replace("{tmp}", str(tmp_path)).replace("{url}", env["HELPDESK_URL"])
        result = run(tmp_path, *command.split(), env=env)
        writes = server.writes() if server is not None else _sandbox_writes(sandbox, seq)
    output = result.stdout + result.stderr
    assert result.returncode == row.exit_code, output
    assert "Traceback" not in output and "internal error" not in output, output
    assert writes == [], writes
    fragment = row.fragment.replace("{tmp}", str(tmp_path))
    assert [line for line in result.stderr.splitlines() if fragment in line], (fragment, output)
    for more in row.also:
        assert more in result.stderr, (more, result.stderr)
    written = {p: data for p, data in _snapshot(tmp_path).items() if before.get(p) != data}
    if row.exit_code != 0:
        assert written == {}, sorted(written)
    for secret in _secrets(sandbox):
        assert secret not in output, (secret, output)
        for path, data in written.items():
            assert secret.encode() not in data, (secret, path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    assert len({row.id for row in ROWS}) == len(ROWS)
    assert {row.setup for row in ROWS} - {""} <= SETUPS.keys()
    assert {row.server for row in ROWS} <= {SANDBOX, *SERVERS}


def test_the_comment_row_masks_a_value_that_is_there(
    sandbox: SandboxProcess, tmp_path: Path
) -> None:
    """The masking rows cannot pass by leaving the value out: the comment holds `***`
    where the manifest has the password."""
    env = _basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(LEAKY.replace("{password}", sandbox.auth[1]), encoding="utf-8")
    result = run(tmp_path, "plan", "m.yaml", "--comment-dir", "c", env=env)
    assert result.returncode == 0, result.stderr
    assert "the password is ***" in (tmp_path / "c" / "1.md").read_text(encoding="utf-8")


def test_the_same_var_files_are_accepted(sandbox: SandboxProcess, tmp_path: Path) -> None:
    """The control of the saved-plan rows: the var file the plan was made with, given
    again (from another path, the same content), is accepted; the plan is then applied."""
    env = _basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(WITH_VARIABLE, encoding="utf-8")
    _saved_plan(Case(tmp_path, sandbox, env))
    (tmp_path / "copy.yaml").write_bytes((tmp_path / "vars.yaml").read_bytes())
    result = run(
        tmp_path, "apply", "m.yaml", "--plan", "p.json", "--var-file", "copy.yaml", "--yes", env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "contradict" not in result.stderr and "differs" not in result.stderr


def test_no_client_disconnect_traceback_under_the_slow_fault(tmp_path: Path) -> None:
    """A client that gives up on a slow answer (its timeout) leaves the sandbox's log
    saying so, and its stderr without a `ClientDisconnect` traceback."""
    sandbox = SandboxProcess(tmp_path / "s.db", "--faults", "slow=1,slow_seconds=1.5").start()
    try:
        key = {"X-API-Key": sandbox.env["WORKSPACE_API_KEY"]}
        with pytest.raises(httpx.TimeoutException):
            httpx.post(
                f"{sandbox.workspace_url}/api/employees",
                json={"email": "a@acme.com"},
                headers=key,
                timeout=0.2,
            )
        deadline = time.monotonic() + 30  # a hang guard: the sandbox logs within seconds
        log: list[dict[str, object]] = []
        while not log and time.monotonic() < deadline:
            log = httpx.get(f"{sandbox.url}/_sandbox/requests").json()
            time.sleep(0.2)
        assert [entry["status"] for entry in log] == ["disconnected"]
    finally:
        proc = sandbox.proc
        assert proc is not None
        proc.terminate()
        _, stderr = proc.communicate(timeout=30)
    assert "Traceback" not in stderr and "ClientDisconnect" not in stderr, stderr


def test_a_remote_host_is_served_with_allow_remote(tmp_path: Path) -> None:
    """The --host refusal has a way through: --allow-remote (checked by its help, as
    listening on 0.0.0.0 would reach beyond 127.0.0.1)."""
    result = subprocess.run(
        [sys.executable, "-m", "reconciler", "sandbox", "serve", "--help"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0 and "--allow-remote" in result.stdout


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


@pytest.mark.parametrize(
    ("spelling", "service", "address"),
    [
        ("http://127.0.0.1:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("HTTP://LocalHost.:8080//HelpDesk/", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://[::1]:8080/help%64esk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("https://Acme.Example.com:443/", "helpdesk", "https://acme.example.com"),
        ("http://acme.example.com:80/HD", "helpdesk", "http://acme.example.com/hd"),
        ("http://127.0.0.1:9000/WS/", "workspace", "http://localhost:9000/WS"),  # as written
        ("http://127.0.0.2:8080/helpdesk", "helpdesk", "http://127.0.0.2:8080/helpdesk"),
    ],
)
def test_the_lock_address_of_each_spelling(spelling: str, service: str, address: str) -> None:
    assert service_address(spelling, service) == address

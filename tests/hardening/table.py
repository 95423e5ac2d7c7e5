"""The hardening tables' machinery: each row runs a command as a user runs it, `python -m
reconciler` in a child process (the `run` helper of tests/e2e/test_plan_cli.py), against
the sandbox (`SandboxProcess`, one for the package: conftest.py) or a misbehaving server
on 127.0.0.1 (servers.py).

One row per case: the command, the exit code, the one-line message, and for every row:
no traceback and no "internal error"; nothing written to the service (the sandbox's
request log `/_sandbox/requests`, or what the fake server recorded); no secret (the
helpdesk password, its Basic token, the content of a file a saved plan names) in stdout,
stderr or any file the command wrote; and a failing command writes no file at all.

`{tmp}` in a command is the row's directory, `{url}` the helpdesk URL it is given."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from reconciler.applying.lock import ApplyLock
from reconciler.clients.urls import service_address
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


def saved_plan(case: Case) -> dict[str, object]:
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
    saved = saved_plan(case)
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
    "saved_plan": saved_plan,
    "plan_names_shadow": _plan_names_shadow,
    "plan_digests_shadow": _plan_digests_shadow,
    "plan_of_version_1": _plan_of_version_1,
    "lock_held": _lock_held,
}


# -- running a row --------------------------------------------------------------------


def basic_env(sandbox: SandboxProcess, tmp: Path) -> dict[str, str]:
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


def run_row(row: Row, sandbox: SandboxProcess, tmp_path: Path) -> None:
    """Runs `row` and checks what every row promises (the module docstring)."""
    port = sandbox.helpdesk_url.split(":")[2].split("/")[0]
    env = basic_env(sandbox, tmp_path)
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


def check_rows(rows: Sequence[Row]) -> None:
    """Each row has its own id, and names setups and servers that exist."""
    assert len({row.id for row in rows}) == len(rows)
    assert {row.setup for row in rows} - {""} <= SETUPS.keys()
    assert {row.server for row in rows} <= {SANDBOX, *SERVERS}

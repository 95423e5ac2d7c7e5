"""The sandbox as a new user meets it: `reconciler sandbox serve --port 0` in its own
process, then plain HTTP calls with the credentials it printed."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Serve

pytestmark = pytest.mark.e2e


def test_new_user_walkthrough(serve: Serve, tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    sandbox = serve(db, "--rate-limit", "0")
    with httpx.Client(base_url=sandbox.helpdesk_url + "/api", auth=sandbox.auth, timeout=10) as hd:
        # A company, twice: the same id.
        first = hd.post("/Company", data={"name": "Acme Corp"}).json()["id"]
        assert hd.post("/Company", data={"name": "Acme Corp"}).json()["id"] == first
        # A user with a new department: the department appears in Departments.
        created = hd.post(
            "/CreateUser",
            data={"email": "bob@acme.com", "department": "Facilities", "company": "Acme Corp"},
        )
        assert created.status_code == 200, created.text
        assert "Facilities" in [d["Name"] for d in hd.get("/Departments").json()]
        # 120 assets, paged by 50.
        for i in range(120):
            hd.post(
                "/Asset",
                data={
                    "modelName": f"Model {i}",
                    "manufacturer": "Lenovo",
                    "type": "Laptop",
                    "supplier": "CDW",
                    "serialNumber": f"SN-{i:04d}",
                },
            )
        pages = [hd.get("/Assets", params={"page": p}).json() for p in (1, 2, 3, 4)]
        assert [len(p) for p in pages] == [50, 50, 20, 0]
        assert len({a["SerialNumber"] for page in pages for a in page}) == 120
    # The workspace service with the printed key.
    with httpx.Client(
        base_url=sandbox.workspace_url, headers={"X-API-Key": sandbox.env["WORKSPACE_API_KEY"]}
    ) as ws:
        resp = ws.post(
            "/api/employees", json={"email": "bob@acme.com", "firstName": "Bob", "lastName": "B"}
        )
        assert resp.status_code == 201
    # The printed token works as a Bearer credential.
    bearer = {"Authorization": f"Bearer {sandbox.env['HELPDESK_TOKEN']}"}
    assert httpx.post(sandbox.helpdesk_url + "/api/Authorization", headers=bearer).json()["IsAdmin"]

    # State survives a restart.
    sandbox.stop()
    again = serve(db)
    assert again.auth == sandbox.auth
    with httpx.Client(base_url=again.helpdesk_url + "/api", auth=again.auth, timeout=10) as hd:
        assert [c["Name"] for c in hd.get("/Companies").json()] == ["Acme Corp"]
        assert len(hd.get("/Assets", params={"page": 3}).json()) == 20
    with httpx.Client(
        base_url=again.workspace_url, headers={"X-API-Key": again.env["WORKSPACE_API_KEY"]}
    ) as ws:
        assert [e["email"] for e in ws.get("/api/employees").json()] == ["bob@acme.com"]


def test_rate_limit_and_ip_block_over_the_network(serve: Serve, tmp_path: Path) -> None:
    sandbox = serve(tmp_path / "s.db", "--rate-limit", "20")
    with httpx.Client(base_url=sandbox.helpdesk_url + "/api", auth=sandbox.auth, timeout=10) as hd:
        codes = [hd.get("/Priorities").status_code for _ in range(21)]
        assert codes == [200] * 20 + [429]
        assert int(hd.get("/Priorities").headers["Retry-After"]) > 0
    with httpx.Client(
        base_url=sandbox.helpdesk_url + "/api", auth=("admin", "wrong"), timeout=10
    ) as bad:
        assert [bad.get("/Priorities").status_code for _ in range(3)] == [401, 401, 401]
    with httpx.Client(base_url=sandbox.helpdesk_url + "/api", auth=sandbox.auth, timeout=10) as hd:
        blocked = hd.get("/Priorities")
        assert blocked.status_code == 403 and "blocked" in blocked.text


def test_dropped_connection_is_a_transport_error(serve: Serve, tmp_path: Path) -> None:
    sandbox = serve(tmp_path / "s.db", "--rate-limit", "0", "--faults", "drop=1")
    with httpx.Client(base_url=sandbox.helpdesk_url + "/api", auth=sandbox.auth, timeout=10) as hd:
        with pytest.raises(httpx.TransportError) as dropped:
            hd.post("/Company", data={"name": "Acme"})
        # httpx's own error (its words are its own): the answer was cut off, not refused.
        assert type(dropped.value) is httpx.RemoteProtocolError
        # The write was applied although the client never learnt it.
        assert [c["Name"] for c in hd.get("/Companies").json()] == ["Acme"]
    assert sandbox.proc is not None


def test_bad_flags_exit_1_without_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    for args in (["--quirk", "nope"], ["--faults", "error=5"]):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "reconciler",
                "sandbox",
                "serve",
                "--port",
                "0",
                "--db",
                str(tmp_path / "x.db"),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("Error: ") and "Traceback" not in proc.stderr

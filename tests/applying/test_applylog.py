"""The apply log: one JSON object per line, an entry for every operation whatever its
outcome (each entry whole: what a reader of the log relies on after an apply went wrong),
never a parameter value (which may be personal data or a secret), written where `--log`
says, folders made as needed."""

from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reconciler.applying.executor import ApplyReport, Executor
from reconciler.applying.log import ApplyLog, LogUnwritable, default_path, open_for_append
from reconciler.errors import ApiError, OutcomeUnknown, UsageError
from reconciler.plans import Action, Change
from tests.applying.fakes import FakeClient, ListLog, change, create, op, plan_of, ref

SECRET = "hunter2-pa55word"
PERSONAL = "Mendes-Ortiz"


def mixed_plan_and_client() -> tuple[Any, FakeClient, FakeClient]:
    """A plan whose operations end in every outcome: ok, unknown then recovered, failed;
    every parameter value is distinctive, so that any leak into the log is seen."""
    lost = OutcomeUnknown(None, "POST", "/api/CreateUser", "no answer (ReadError)")
    hd = FakeClient(
        {
            "user": [lost],
            "asset": [{"id": 31}],
            "bad": [ApiError(400, "POST", "/api/SetCustomFieldForAsset", "Invalid value")],
        }
    )
    ws = FakeClient({"emp": [{"id": "ab12"}]})
    plan = plan_of(
        create(
            "users",
            "carla",
            "user",
            op("user-cf", id=ref("users", "carla"), value=PERSONAL),
            path="/api/CreateUser",
        ),
        create("assets", "S1", "asset", op("bad", id=ref("assets", "S1"), value="PO-77-unique")),
        create("workspace.employees", "c@x.com", "emp", path="/api/employees", service="workspace"),
        change("companies", "Acme", op("co", notes="Notes-unique-42", password=SECRET)),
    )
    return plan, hd, ws


async def locate(found: Change) -> Any:
    return 9 if found.kind == "users" else None


def run_logged(log: Any) -> Any:
    plan, hd, ws = mixed_plan_and_client()
    executor = Executor(plan, helpdesk=hd, workspace=ws, locate=locate, log=log)
    return asyncio.run(executor.run()), hd, ws


def test_every_operation_is_logged_with_its_outcome() -> None:
    log = ListLog()
    report, hd, ws = run_logged(log)
    sent = len(hd.calls) + len(ws.calls)
    # One entry per call sent, plus the `recovered` that follows an `unknown`.
    assert len(log.entries) == sent + report.recovered
    by_outcome = sorted((e["address"], e["operation"], e["outcome"]) for e in log.entries)
    expected = [
        ('assets["S1"]', 0, "ok"),
        ('assets["S1"]', 1, "failed"),
        ('companies["Acme"]', 0, "ok"),
        ('users["carla"]', 0, "recovered"),
        ('users["carla"]', 0, "unknown"),
        ('workspace.employees["c@x.com"]', 0, "ok"),
    ]
    # `users["carla"]`'s custom field may or may not have started before the failure
    assert [e for e in by_outcome if e != ('users["carla"]', 1, "ok")] == expected
    for entry in log.entries:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["time"])
        assert entry["method"] in {"GET", "POST", "PUT", "DELETE"}
        assert entry["path"].startswith("/api/")
        assert entry["action"] in {"create", "update"}
        assert isinstance(entry["ms"], float)
    failed = next(e for e in log.entries if e["outcome"] == "failed")
    assert failed["message"] == "Invalid value"
    created = {e["address"]: e.get("created_id") for e in log.entries if e["operation"] == 0}
    assert created['assets["S1"]'] == 31 and created['workspace.employees["c@x.com"]'] == "ab12"
    assert created['users["carla"]'] == 9


def test_no_parameter_value_reaches_the_log(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "apply.jsonl"
    with ApplyLog(path) as log:
        log.event("start", summary={"create": 3})
        run_logged(log)
        log.event("end", done=1)
    text = path.read_text(encoding="utf-8")
    for value in (SECRET, PERSONAL, "PO-77-unique", "Notes-unique-42"):
        assert value not in text
    assert "password" not in text and "params" not in text


def test_the_file_holds_one_json_object_per_line(tmp_path: Path) -> None:
    path = tmp_path / ".reconciler" / "apply.jsonl"
    with ApplyLog(path) as log:
        log.event("start", summary={"create": 3}, live_digest="sha256:abc")
        report, _, _ = run_logged(log)
        log.event("end", done=len(report.done))
    lines = path.read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    assert all(isinstance(e, dict) for e in entries)
    assert entries[0]["event"] == "start" and entries[0]["live_digest"] == "sha256:abc"
    assert entries[-1] == {"time": entries[-1]["time"], "event": "end", "done": len(report.done)}
    assert sum(1 for e in entries if "outcome" in e) >= 6


def test_the_log_is_appended_to_and_written_as_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "apply.jsonl"
    with ApplyLog(path) as log:
        log.event("first")
        # flushed at once: an interrupted run leaves its trace
        assert json.loads(path.read_text(encoding="utf-8"))["event"] == "first"
    with ApplyLog(path) as log:
        log.event("second")
    assert [json.loads(x)["event"] for x in path.read_text().splitlines()] == ["first", "second"]


def test_recording_into_a_closed_log_is_an_error(tmp_path: Path) -> None:
    log = ApplyLog(tmp_path / "apply.jsonl")
    with pytest.raises(RuntimeError) as refused:
        log.record({"event": "too early"})
    assert str(refused.value) == "the apply log is not open"
    assert not (tmp_path / "apply.jsonl").exists()


def test_the_default_path_is_under_dot_reconciler_and_timestamped() -> None:
    path = default_path()
    assert path.parent == Path(".reconciler")
    assert re.fullmatch(r"apply-\d{8}T\d{6}Z\.jsonl", path.name)
    assert default_path(Path("elsewhere")).parent == Path("elsewhere")


def utc_stamps(form: str, during: Callable[[], Any]) -> tuple[set[str], Any]:
    """What `during()` returns, and the UTC time in `form` just before and just after it."""
    before = time.strftime(form, time.gmtime())
    result = during()
    return {before, time.strftime(form, time.gmtime())}, result


@pytest.mark.usefixtures("local_time_far_from_utc")
def test_the_default_path_is_stamped_with_the_utc_time() -> None:
    stamps, path = utc_stamps("%Y%m%dT%H%M%SZ", default_path)
    assert path.name in {f"apply-{stamp}.jsonl" for stamp in stamps}


@pytest.mark.usefixtures("local_time_far_from_utc")
def test_each_entry_is_stamped_with_the_utc_time() -> None:
    log = ListLog()
    plan = plan_of(change("companies", "A", op("a")))
    stamps, report = utc_stamps(
        "%Y-%m-%dT%H:%M:%SZ",
        lambda: asyncio.run(Executor(plan, helpdesk=FakeClient(), log=log).run()),
    )
    assert report.ok and len(log.entries) == 1
    assert log.entries[0]["time"] in stamps


@pytest.mark.usefixtures("local_time_far_from_utc")
def test_each_event_is_stamped_with_the_utc_time(tmp_path: Path) -> None:
    path = tmp_path / "apply.jsonl"

    def start() -> None:
        with ApplyLog(path) as log:
            log.event("start", summary={"create": 1})

    stamps, _ = utc_stamps("%Y-%m-%dT%H:%M:%SZ", start)
    (record,) = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert record.pop("time") in stamps
    assert record == {"event": "start", "summary": {"create": 1}}


def test_each_entry_says_how_long_its_operation_took_in_milliseconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [500.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])

    async def answer_after_12_345_ms() -> str:
        now[0] += 0.012345
        return "OK"

    log = ListLog()
    hd = FakeClient({"slow": [answer_after_12_345_ms]})
    report = asyncio.run(Executor(plan_of(change("companies", "A", op("slow"))), helpdesk=hd,
                                  log=log).run())  # fmt: skip
    assert report.ok
    assert [entry["ms"] for entry in log.entries] == [12.3]


TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def entries(log: ListLog) -> list[dict[str, Any]]:
    """The entries without their time and duration, each checked for its form."""
    out = []
    for entry in log.entries:
        assert TIME.match(entry.pop("time"))
        ms = entry.pop("ms")
        assert isinstance(ms, float) and 0 <= ms < 60_000
        out.append(entry)
    return out


def test_every_outcome_of_an_operation_is_logged_whole() -> None:
    lost = OutcomeUnknown(None, "POST", "/api/Asset", "no answer; may have happened")
    hd = FakeClient({"new": [lost], "cf": ["OK"], "bad": [ApiError(400, "POST", "/x", " no ")]})
    ws = FakeClient({"emp": [{"id": "e-1"}]})

    async def locate(found: Change) -> Any:
        return 77

    asset = create("assets", "S1", "new", op("cf", "/api/UpdateAsset", id=ref("assets", "S1")))
    employee = create("employees", "e@x", "emp", path="/api/employees", service="workspace")
    plan = plan_of(asset, employee)
    log = ListLog()
    report = asyncio.run(
        Executor(plan, helpdesk=hd, workspace=ws, locate=locate, log=log, parallel_changes=1).run()
    )
    assert report.ok and (report.operations_sent, report.recovered, report.total) == (3, 1, 2)
    base = {"address": 'assets["S1"]', "action": "create", "method": "POST"}
    assert entries(log) == [
        {**base, "operation": 0, "path": "/api/Asset", "outcome": "unknown",
         "message": "POST /api/Asset failed: no answer; may have happened"},
        {**base, "operation": 0, "path": "/api/Asset", "outcome": "recovered", "created_id": 77},
        {**base, "operation": 1, "path": "/api/UpdateAsset", "outcome": "ok"},
        {"address": 'employees["e@x"]', "action": "create", "operation": 0, "method": "POST",
         "path": "/api/employees", "outcome": "ok", "created_id": "e-1"},
    ]  # fmt: skip
    assert ws.calls[0].path == "/employees" and ws.calls[0].idempotent is False


def test_a_failed_operation_is_logged_with_the_apis_words_and_the_run_reported() -> None:
    hd = FakeClient({"bad": [ApiError(400, "PUT", "/api/X", "  field is wrong  ")]})
    plan = plan_of(
        change("companies", "A", op("ok1"), op("bad", "/api/X", method="PUT")),
        change("users", "u", op("later"), depends_on=['companies["A"]'], action=Action.enable),
    )
    log = ListLog()
    report = asyncio.run(Executor(plan, helpdesk=hd, log=log).run())
    assert report == ApplyReport(
        done=[],
        failed=[('companies["A"]', "PUT /api/X failed: 400 field is wrong")],
        partial=[],
        not_attempted=['users["u"]'],
        operations_sent=1,
        total=2,
    )
    assert not report.ok
    assert entries(log) == [
        {"address": 'companies["A"]', "action": "update", "operation": 0, "method": "POST",
         "path": "/api/UpdateCompany", "outcome": "ok"},
        {"address": 'companies["A"]', "action": "update", "operation": 1, "method": "PUT",
         "path": "/api/X", "outcome": "failed", "message": "field is wrong"},
    ]  # fmt: skip


def test_the_apply_log_makes_the_folders_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "nightly" / "apply.jsonl"  # as `apply --log logs/nightly/...`
    with ApplyLog(path) as log:
        log.event("start")
    assert [json.loads(line)["event"] for line in path.read_text().splitlines()] == ["start"]


class FillingFile(io.BytesIO):
    """A log file on a disk that fills up after `room` bytes: the write that crosses it is
    cut short (as `write(2)` reports a short count), and the next raises ENOSPC."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room

    def write(self, data: Any) -> int:
        left = self.room - self.tell()
        if left <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(bytes(data)[:left])

    def close(self) -> None:  # kept readable for the test
        pass


def test_a_full_disk_leaves_only_whole_lines_and_says_so(tmp_path: Path) -> None:
    file = FillingFile(room=150)
    log = ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: file)
    with log, pytest.raises(LogUnwritable) as full:
        for number in range(100):
            log.event("op", number=number)
    assert str(full.value) == (
        f"cannot write the apply log {tmp_path / 'apply.jsonl'}: No space left on device"
    )
    text = file.getvalue().decode()
    assert text.endswith("\n") and len(text.splitlines()) >= 2
    assert [json.loads(line)["number"] for line in text.splitlines()] == list(
        range(len(text.splitlines()))
    )


def test_a_device_that_takes_nothing_is_refused_without_a_partial_line(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with ApplyLog(Path("/dev/full")) as log, pytest.raises(LogUnwritable) as full:
        log.event("start")
    # The reason is the system's own words for ENOSPC, whatever its language.
    assert str(full.value) == f"cannot write the apply log /dev/full: {os.strerror(errno.ENOSPC)}"


class PiecemealFile(FillingFile):
    """A log file that takes at most 16 bytes a write (as a pipe or a network share may),
    on a disk with room for a few records."""

    def write(self, data: Any) -> int:
        return super().write(bytes(data)[:16])


def test_a_file_that_takes_a_record_in_pieces_holds_it_once_whole(tmp_path: Path) -> None:
    file = PiecemealFile(room=4096)
    with ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: file) as log:
        log.event("start", summary="3 to create")
        log.event("end", result="ok")
    lines = file.getvalue().decode().splitlines(keepends=True)
    assert all(line.endswith("}\n") for line in lines)
    assert [{k: v for k, v in json.loads(line).items() if k != "time"} for line in lines] == [
        {"event": "start", "summary": "3 to create"},
        {"event": "end", "result": "ok"},
    ]


class TimingOutFile(FillingFile):
    """A log file on a network share whose writes time out, without the system's words."""

    def write(self, data: Any) -> int:
        raise TimeoutError()


def test_a_write_error_without_the_systems_words_is_named_by_its_kind(tmp_path: Path) -> None:
    with (
        ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: TimingOutFile(room=4096)) as log,
        pytest.raises(LogUnwritable) as failed,
    ):
        log.event("start")
    assert (
        str(failed.value) == f"cannot write the apply log {tmp_path / 'apply.jsonl'}: TimeoutError"
    )


class UnclosableFile(FillingFile):
    """A log file whose closing fails (a network share gone when the apply ends)."""

    def close(self) -> None:
        raise OSError(errno.EIO, "Input/output error")


def test_a_log_whose_closing_fails_is_left_without_an_error(tmp_path: Path) -> None:
    # Written unbuffered, the records are all in the file before it is closed.
    file = UnclosableFile(room=4096)
    with ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: file) as log:
        log.event("start")
    assert [json.loads(line)["event"] for line in file.getvalue().splitlines()] == ["start"]


def test_a_full_disk_stops_new_writes_and_reports_what_was_done(tmp_path: Path) -> None:
    """40 creates, a log with room for a few lines: the run stops as at a failure (nothing
    new started, what was in flight finished), every change is done or not attempted, and
    the report says why."""
    hd = FakeClient({f"c{n}": [{"ID": n}] for n in range(40)})
    plan = plan_of(*(create("companies", f"C{n:02}", f"c{n}") for n in range(40)))
    file = FillingFile(room=1500)
    with ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: file) as log:
        report = asyncio.run(Executor(plan, helpdesk=hd, log=log, parallel_changes=4).run())
    assert report.log_error is not None and "No space left on device" in report.log_error
    assert not report.ok and not report.failed and not report.partial
    assert 0 < len(report.done) < 40
    assert len(report.done) + len(report.not_attempted) == 40
    assert len(hd.calls) == report.operations_sent == len(report.done)
    lines = file.getvalue().decode().splitlines(keepends=True)
    assert all(line.endswith("\n") and json.loads(line) for line in lines)
    assert len(lines) < len(report.done)  # the operations after the full disk have no line


def test_a_symbolic_link_is_never_appended_to(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("kept\n", encoding="utf-8")
    (tmp_path / "apply.jsonl").symlink_to(target)
    with pytest.raises(UsageError) as refused:
        ApplyLog(tmp_path / "apply.jsonl").__enter__()
    assert str(refused.value) == (
        f"cannot write the apply log {tmp_path / 'apply.jsonl'}: it is a symbolic link (the "
        "log would be appended to whatever it points to); give the file's own path"
    )
    assert target.read_text(encoding="utf-8") == "kept\n"


def test_the_file_is_not_opened_through_a_link_made_after_the_check(tmp_path: Path) -> None:
    """A link that appears between the check and the opening is refused by the opening
    itself (the check alone would leave that moment open)."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("kept\n", encoding="utf-8")
    (tmp_path / "apply.jsonl").symlink_to(target)
    with pytest.raises(OSError) as refused:
        open_for_append(tmp_path / "apply.jsonl")
    assert refused.value.errno == errno.ELOOP
    assert target.read_text(encoding="utf-8") == "kept\n"


def test_a_new_log_may_be_read_and_written_as_the_umask_allows(tmp_path: Path) -> None:
    before = os.umask(0o022)
    try:
        with ApplyLog(tmp_path / "apply.jsonl") as log:
            log.event("start")
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "apply.jsonl").stat().st_mode) == 0o644


def test_a_system_without_o_nofollow_still_opens_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has no O_NOFOLLOW: the log opens without it (the check before opening
    still refuses a link)."""
    monkeypatch.delattr(os, "O_NOFOLLOW")
    (tmp_path / "apply.jsonl").write_bytes(b'{"event":"start"}\n')
    with open_for_append(tmp_path / "apply.jsonl") as file:
        file.write(b'{"event":"end"}\n')
    assert (tmp_path / "apply.jsonl").read_bytes() == b'{"event":"start"}\n{"event":"end"}\n'

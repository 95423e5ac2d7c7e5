"""The apply log's end record says, in numbers, what the printed summary says."""

from __future__ import annotations

import json
from pathlib import Path

from reconciler.applying.executor import ApplyReport
from reconciler.applying.log import ApplyLog
from reconciler.applying.session import _end, _end_record
from tests.applying.test_applylog import FillingFile


def test_an_interrupt_counts_partway_and_waiting_changes_as_the_summary_does() -> None:
    report = ApplyReport(
        done=["a", "b"],
        partial=["c"],
        not_attempted=["d", "e", "f"],
        interrupted=True,
        in_flight=["b", "c", "d"],  # d held a slot, waiting for the rate limit: sent nothing
        total=6,
    )
    record = _end_record(report)
    assert record["result"] == "interrupted"
    assert (record["done"], record["partial"], record["not_attempted"]) == (2, 1, 3)
    assert record["in_flight"] == ["b", "c"]
    assert record["stopped_at_once"] is False


def test_a_run_stopped_at_once_counts_the_changes_it_never_started() -> None:
    # A second Ctrl-C cancels the run: 10 changes, 2 done, 2 in flight with no outcome,
    # the 6 others never started and have no record of their own.
    report = ApplyReport(done=["a", "b"], interrupted=True, in_flight=["c", "d"], total=10)
    record = _end_record(report, cut=True)
    assert record["in_flight"] == ["c", "d"]
    assert (record["done"], record["partial"], record["not_attempted"]) == (2, 0, 6)
    assert record["stopped_at_once"] is True


def test_a_finished_run_is_ok_with_nothing_left() -> None:
    record = _end_record(ApplyReport(done=["a"], total=1))
    assert record == {
        "result": "ok",
        "done": 1,
        "failed": 0,
        "partial": 0,
        "not_attempted": 0,
        "operations": 0,
    }


def test_an_end_record_the_disk_refuses_is_reported_with_the_outcome(tmp_path: Path) -> None:
    report = ApplyReport(done=["a"], total=1)
    with ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: FillingFile(0)) as log:
        _end(log, report, cut=False)
    assert report.log_error == (
        f"cannot write the apply log {tmp_path / 'apply.jsonl'}: No space left on device"
    )
    assert report.done == ["a"] and not report.ok


def test_a_log_that_lost_a_line_gets_no_end_record(tmp_path: Path) -> None:
    """It ends at its last whole line: an end record after a missing one would read as
    a log that is whole."""
    file = FillingFile(10_000)
    report = ApplyReport(done=["a"], total=1, log_error="cannot write the apply log: full")
    with ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: file) as log:
        _end(log, report, cut=False)
    assert file.getvalue() == b""
    assert report.log_error == "cannot write the apply log: full"


def end_record(tmp_path: Path, report: ApplyReport, cut: bool) -> dict[str, object]:
    """The end record a log writes for `report`, less its time (checked to be there)."""
    file = FillingFile(10_000)
    with ApplyLog(tmp_path / "apply.jsonl", opener=lambda path: file) as log:
        _end(log, report, cut=cut)
    record: dict[str, object] = json.loads(file.getvalue())
    assert record.pop("time")
    return record


def test_an_interrupted_runs_end_record_is_written_as_it_ended(tmp_path: Path) -> None:
    report = ApplyReport(
        done=["a"], not_attempted=["b"], interrupted=True, total=2, operations_sent=1
    )
    assert end_record(tmp_path, report, cut=False) == {
        "event": "end",
        "result": "interrupted",
        "done": 1,
        "failed": 0,
        "partial": 0,
        "not_attempted": 1,
        "operations": 1,
        "in_flight": [],
        "stopped_at_once": False,
    }


def test_a_run_cut_short_says_so_in_its_end_record(tmp_path: Path) -> None:
    report = ApplyReport(done=["a"], in_flight=["b"], total=3, operations_sent=1)
    assert end_record(tmp_path, report, cut=True) == {
        "event": "end",
        "result": "interrupted",
        "done": 1,
        "failed": 0,
        "partial": 0,
        "not_attempted": 1,
        "operations": 1,
        "in_flight": ["b"],
        "stopped_at_once": True,
    }


def test_a_failed_run_is_stopped_with_its_counts() -> None:
    report = ApplyReport(done=["a"], failed=[("b", "400 no")], not_attempted=["c"], total=3)
    assert _end_record(report) == {
        "result": "stopped",
        "done": 1,
        "failed": 1,
        "partial": 0,
        "not_attempted": 1,
        "operations": 0,
    }


def test_a_run_cut_short_with_every_change_accounted_for_adds_none_unstarted() -> None:
    # 4 changes: a done, b in flight with no outcome, c not attempted, d failed: none
    # left over.
    report = ApplyReport(
        done=["a"], failed=[("d", "400 no")], not_attempted=["c"], in_flight=["b"], total=4
    )
    record = _end_record(report, cut=True)
    assert (record["done"], record["failed"], record["not_attempted"], record["in_flight"]) == (
        1,
        1,
        1,
        ["b"],
    )

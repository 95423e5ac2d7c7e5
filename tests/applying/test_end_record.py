"""The apply log's end record says, in numbers, what the printed summary says."""

from __future__ import annotations

from reconciler.applying.executor import ApplyReport
from reconciler.applying.session import _end_record


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

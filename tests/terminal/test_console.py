"""What `apply` shows a person on stderr (terminal/console.py), each message whole: the
confirmation, the report of a run that ended well, failed, was interrupted or stopped at
once, and the `--fail-on-unmanaged` verdict; and the apply reporter, entered with `as` as a
caller writes it, showing the plan on stdout and the start on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, WorkspaceConnection
from reconciler.errors import UsageError
from reconciler.plans import Action, Change, Operation, Plan
from reconciler.plans.coverage import Coverage, KindCoverage
from reconciler.render import format_text
from reconciler.terminal.console import (
    ApplyReporter,
    colour,
    confirmation_text,
    print_report,
    print_stopped_at_once,
    refuse_partial_coverage,
    unmanaged_failure,
)

HELPDESK = HelpdeskConnection("https://h.example", token=Secret("t"))
WORKSPACE = WorkspaceConnection("https://w.example", Secret("k"))


def op(service: str) -> Operation:
    return Operation(service, "POST", "/api/x")


PLAN = Plan(
    changes=(
        Change("companies", "Acme", Action.create, operations=(op("helpdesk"), op("helpdesk"))),
        Change("companies", "B", Action.update, operations=(op("helpdesk"),)),
        Change("users", "u", Action.disable, operations=(op("workspace"),)),
    )
)
ONE = Plan(changes=(Change("users", "u", Action.create, operations=(op("workspace"),)),))
LOG = Path("logs/apply.jsonl")
AGAIN = (
    "Log: logs/apply.jsonl. Run `reconciler apply` again to continue: it plans afresh "
    "from the live state.\n"
)


def test_the_confirmation_names_each_service_its_calls_and_the_time() -> None:
    connection = Connection(HELPDESK, WORKSPACE, environment="prod")
    assert confirmation_text(PLAN, connection) == (
        "\n"
        "Do you want to apply these 3 changes (1 to create, 1 to update, 1 to disable)?\n"
        "  environment  prod\n"
        "  helpdesk   https://h.example  (3 write call(s))\n"
        "  workspace  https://w.example  (1 write call(s))\n"
        "  4 API calls; at the helpdesk's 90 calls a minute this takes under a minute.\n"
        "  Only 'yes' will be accepted to approve."
    )


def test_the_confirmation_of_a_workspace_only_change_names_no_helpdesk_and_no_rate_limit() -> None:
    # No helpdesk: no rate limit to wait for, and the helpdesk is not named.
    assert confirmation_text(ONE, Connection(None, WORKSPACE)) == (
        "\n"
        "Do you want to apply these 1 change (1 to create)?\n"
        "  workspace  https://w.example  (1 write call(s))\n"
        "  1 API call; no rate limit applies.\n"
        "  Only 'yes' will be accepted to approve."
    )


def test_a_complete_apply_reports_its_changes_operations_and_answers_found_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_report(ApplyReport(done=["a", "b"], operations_sent=3), LOG)
    assert capsys.readouterr().err == (
        "Apply complete: 2 change(s), 3 operation(s). Log: logs/apply.jsonl\n"
    )
    print_report(ApplyReport(done=["a"], operations_sent=1, recovered=2), LOG)
    assert capsys.readouterr().err == (
        "Apply complete: 1 change(s), 1 operation(s); 2 lost create answer(s) found again "
        "by re-reading. Log: logs/apply.jsonl\n"
    )


def test_an_apply_stopped_at_the_first_failure_lists_each_change_by_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = ApplyReport(
        done=["a", "f"],
        failed=[("companies.F", "boom"), ("users.g", "bad")],
        partial=["p"],
        not_attempted=["n", "m"],
        operations_sent=4,
        in_flight=["f", "p", "z"],
    )
    print_report(report, LOG)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "Apply stopped at the first failure.\n"
        "  failed: companies.F: boom\n"
        "  failed: users.g: bad\n"
        "  done (2): a, f\n"
        "  in flight when interrupted, finished (1): f\n"
        "  in flight, stopped partway (apply again to finish them) (1): p\n"
        "  not attempted (2): n, m\n" + AGAIN
    )


def test_an_interrupted_apply_says_nothing_new_was_started(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_report(ApplyReport(not_attempted=["n"], interrupted=True, operations_sent=0), LOG)
    assert capsys.readouterr().err == (
        "Apply interrupted: nothing new was started after the interrupt, and the operations "
        "already sent finished (0 sent in all).\n"
        "  not attempted (1): n\n" + AGAIN
    )


def test_an_apply_stopped_at_once_says_the_calls_in_flight_have_no_known_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_stopped_at_once(LOG)
    assert capsys.readouterr().err == (
        "Apply stopped at once (second interrupt): the operations in flight were abandoned, "
        "and their outcome is unknown. Log: logs/apply.jsonl. Run `reconciler apply` again: "
        "it plans afresh from the live state, so nothing is done twice.\n"
    )


def coverage_plan(**kinds: KindCoverage) -> Plan:
    return Plan(changes=(), coverage=Coverage(kinds=kinds))


def test_unmanaged_objects_fail_naming_ten_of_each_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    companies = KindCoverage(30, 8, tuple(f"c{i}" for i in range(11)))
    users = KindCoverage(3, 1, ("a\x1bb", "x"))
    plan = coverage_plan(companies=companies, groups=KindCoverage(1, 1), users=users)
    assert unmanaged_failure(plan) is True
    assert capsys.readouterr().err == (
        "Error: 13 unmanaged live objects and --fail-on-unmanaged: add them to the "
        "manifests, or remove them in the service\n"
        "  companies: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 1 more\n"
        "  users: a\\x1bb, x\n"
    )


def test_ten_unmanaged_objects_are_all_named(capsys: pytest.CaptureFixture[str]) -> None:
    keys = tuple(f"c{i}" for i in range(10))
    assert unmanaged_failure(coverage_plan(companies=KindCoverage(10, 0, keys))) is True
    assert capsys.readouterr().err.splitlines()[1:] == [f"  companies: {', '.join(keys)}"]


@pytest.mark.parametrize(
    "plan",
    [Plan(changes=()), coverage_plan(groups=KindCoverage(2, 2)), coverage_plan()],
    ids=["not computed", "all managed", "no kinds"],
)
def test_nothing_unmanaged_passes_silently(plan: Plan, capsys: pytest.CaptureFixture[str]) -> None:
    assert unmanaged_failure(plan) is False
    assert capsys.readouterr().err == ""


class Scope:
    def __init__(self, partial: bool) -> None:
        self.partial = partial


def test_fail_on_unmanaged_needs_the_full_plan() -> None:
    with pytest.raises(UsageError) as raised:
        refuse_partial_coverage(Scope(partial=True), fail_on_unmanaged=True)
    assert str(raised.value) == (
        "--fail-on-unmanaged needs the full plan (every entry): leave out --changed-since"
    )
    refuse_partial_coverage(Scope(partial=False), fail_on_unmanaged=True)
    refuse_partial_coverage(None, fail_on_unmanaged=True)
    refuse_partial_coverage(Scope(partial=True), fail_on_unmanaged=False)


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour(Stream(True)) is True
    assert colour(Stream(False)) is False
    monkeypatch.setenv("NO_COLOR", "")
    assert colour(Stream(True)) is False


def test_the_reporter_shows_the_plan_then_arms_and_disarms_the_handlers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls: list[str] = []
    reporter = ApplyReporter(
        color=False,
        per_minute=0,
        on_start=lambda: calls.append("start"),
        on_end=lambda: calls.append("end"),
    )
    with reporter:
        reporter.read("companies")
        reporter.planned(ONE)
        # The plan on stdout, whole; its diagnostics (none) on stderr.
        assert capsys.readouterr().out == format_text(ONE, color=False, diagnostics=False)
        assert calls == []
        reporter.started(ONE)
        assert calls == ["start"]
        assert capsys.readouterr().err.startswith("Applying: 1 API call; no rate limit applies.\n")
        reporter.operation_done()
        reporter.finished(ApplyReport(done=["users.u"], operations_sent=1))
        assert calls == ["start", "end"]


def test_the_reporter_entered_with_as_shows_the_plan_and_the_start(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECONCILER_PROGRESS_INTERVAL", "3600")  # no plain line meanwhile
    with ApplyReporter(color=False) as reporter:
        reporter.read("users")
        reporter.planned(ONE)
        reporter.started(ONE)
        reporter.operation_done()
        reporter.finished(ApplyReport(done=["users.u"], operations_sent=1))
    said = capsys.readouterr()
    assert said.out == format_text(ONE, color=False, diagnostics=False)
    assert said.err == "Applying: 1 API call; no rate limit applies.\n"

"""The rules an `ApplySession` keeps (applying/session.py), against the in-process sandbox:
the brake's refusal in full and `force` past it, a plan with errors refused, nothing to
apply asks nothing, a declined confirmation writes nothing; what the progress hears, in
order; the apply log's start and end records, the end one of a run stopped at once too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.applying.session import (
    ApplyDeclined,
    ApplyOptions,
    ApplyOutcome,
    ApplySession,
    BrakeHolds,
)
from reconciler.errors import PlanHasErrors, StalePlanError
from reconciler.kinds.companies import Company
from reconciler.kinds.departments import Department
from reconciler.kinds.users import User
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import Safety, Settings
from reconciler.plans import Plan
from reconciler.plans.planfile import PlanInputs, SavedPlan, manifests_digest
from tests.applying.inprocess import asgi, connection, seeded

STRICT = Settings(safety=Safety(max_change_percent=1, min_existing=1))
MOVED = Manifest(companies=[Company(name="Acme Corp", notes="moved")], settings=STRICT)
# Two kinds past the brake: each is a reason of its own.
MOVED_AND_RELOCATED = Manifest(
    companies=MOVED.companies,
    users=[User(username="helen", location="Manchester")],
    settings=STRICT,
)


class Heard:
    def __init__(self) -> None:
        self.said: list[str] = []

    def read(self, kind: str) -> None:
        self.said.append(f"read {kind}")

    def planned(self, plan: Plan) -> None:
        self.said.append(f"planned {len(plan.changes)}")

    def started(self, plan: Plan) -> None:
        self.said.append("started")

    def operation_done(self) -> None:
        self.said.append("operation")

    def finished(self, report: ApplyReport) -> None:
        self.said.append(f"finished ok={report.ok}")


def apply(
    tmp_path: Path,
    manifest: Manifest,
    *,
    answer: bool = True,
    force: bool = False,
    progress: Heard | None = None,
    asked: list[Plan] | None = None,
) -> tuple[ApplyOutcome, list[Plan]]:
    state, credentials = seeded("acme")
    asked = [] if asked is None else asked

    def confirm(plan: Plan) -> bool:
        asked.append(plan)
        return answer

    async def main() -> ApplyOutcome:
        session = ApplySession(
            DesiredState.from_manifest(manifest),
            connection(credentials),
            options=ApplyOptions(force=force),
            transport=asgi(state),
            log_path=tmp_path / "apply.jsonl",
            lock_directory=tmp_path,
        )
        async with session:
            return await session.apply(confirm=confirm, progress=progress)

    return asyncio.run(main()), asked


def test_the_brake_refuses_in_full_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(BrakeHolds) as refused:
        apply(tmp_path, MOVED_AND_RELOCATED)
    assert str(refused.value) == (
        "the safety brake holds (settings.safety):\n"
        "  companies: 1 of 3 live objects would change or go (33%, above the 1% limit)\n"
        "  users: 1 of 11 live objects would change or go (9%, above the 1% limit)\n"
        "Review the plan, then add --force to apply it anyway."
    )
    assert not (tmp_path / "apply.jsonl").exists()


def test_force_applies_past_the_brake_and_logs_start_and_end(tmp_path: Path) -> None:
    heard = Heard()
    outcome, asked = apply(tmp_path, MOVED, force=True, progress=heard)
    assert len(asked) == 1 and asked[0].brake is not None and asked[0].brake.holds
    assert outcome.report is not None and outcome.report.ok
    assert outcome.report.done == ['companies["Acme Corp"]']
    assert outcome.log_path == tmp_path / "apply.jsonl"
    assert heard.said[-4:] == ["planned 1", "started", "operation", "finished ok=True"]
    assert set(heard.said[:-4]) == {"read companies"}
    records = [json.loads(line) for line in outcome.log_path.read_text().splitlines()]
    start, *operations, end = records
    assert {k: v for k, v in start.items() if k != "time"} == {
        "event": "start",
        "summary": {"create": 0, "update": 1, "delete": 0, "enable": 0, "disable": 0},
        "live_digest": outcome.plan.live_digest,
    }
    assert [(r["address"], r["outcome"]) for r in operations] == [('companies["Acme Corp"]', "ok")]
    assert {k: v for k, v in end.items() if k != "time"} == {
        "event": "end", "result": "ok", "done": 1, "failed": 0, "partial": 0,
        "not_attempted": 0, "operations": 1,
    }  # fmt: skip


class HeldWrites(httpx.AsyncBaseTransport):
    """The sandbox, except that a write is held, never answered: `held` is set once one
    is in flight."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.held = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/UpdateCompany"):
            return await self.inner.handle_async_request(request)
        self.held.set()
        await asyncio.Event().wait()
        raise AssertionError("a held write is never answered")


def test_a_run_stopped_at_once_ends_its_log_saying_so(tmp_path: Path) -> None:
    """A second Ctrl-C cancels the run: the end record names the change whose operation
    was in flight (its outcome unknown) and counts the one never started."""
    state, credentials = seeded("acme")
    notes = Manifest(
        companies=[Company(name=n, notes="moved") for n in ("Acme Corp", "Acme Robotics")]
    )
    transport = HeldWrites(asgi(state))

    async def main() -> bool:
        session = ApplySession(
            DesiredState.from_manifest(notes),
            connection(credentials),
            transport=transport,
            log_path=tmp_path / "apply.jsonl",
            lock_directory=tmp_path,
            parallelism=1,
        )
        async with session:
            applying = asyncio.create_task(session.apply(confirm=lambda plan: True))
            await asyncio.wait_for(transport.held.wait(), timeout=5)
            assert session.interrupt()  # the first Ctrl-C
            applying.cancel()  # the second
            with pytest.raises(asyncio.CancelledError):
                await applying
            return session.interrupt()  # nothing is executing any more

    assert asyncio.run(main()) is False
    lines = (tmp_path / "apply.jsonl").read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    assert {k: v for k, v in end.items() if k != "time"} == {
        "event": "end", "result": "interrupted", "done": 0, "failed": 0, "partial": 0,
        "not_attempted": 1, "operations": 0, "in_flight": ['companies["Acme Corp"]'],
        "stopped_at_once": True,
    }  # fmt: skip


def test_a_plan_with_errors_is_refused_before_confirming(tmp_path: Path) -> None:
    asked: list[Plan] = []
    with pytest.raises(PlanHasErrors) as refused:
        apply(tmp_path, Manifest(departments=[Department(name="Legal")]), asked=asked)
    assert str(refused.value) == "the plan has errors: fix them, then apply again"
    assert asked == [] and not (tmp_path / "apply.jsonl").exists()


def test_nothing_to_apply_asks_nothing(tmp_path: Path) -> None:
    heard = Heard()
    outcome, asked = apply(
        tmp_path, Manifest(companies=[Company(name="Acme Corp")]), progress=heard
    )
    assert (outcome.report, outcome.log_path, asked) == (None, None, [])
    assert outcome.plan.changes == () and heard.said[-1] == "planned 0"
    assert "started" not in heard.said


def test_a_declined_confirmation_writes_nothing(tmp_path: Path) -> None:
    asked: list[Plan] = []
    with pytest.raises(ApplyDeclined) as declined:
        apply(tmp_path, MOVED, force=True, answer=False, asked=asked)
    assert str(declined.value) == "nothing applied" and len(asked) == 1
    assert not (tmp_path / "apply.jsonl").exists()


def apply_saved(tmp_path: Path, digest: str | None, changes: list[Any] | None) -> ApplyOutcome:
    """MOVED applied with --force from a saved plan: made now, then given its digest
    (None: the right one) and its changes (None: the fresh plan's)."""
    state, credentials = seeded("acme")
    desired = DesiredState.from_manifest(MOVED)

    async def main() -> ApplyOutcome:
        session = ApplySession(
            desired,
            connection(credentials),
            options=ApplyOptions(force=True),
            transport=asgi(state),
            log_path=tmp_path / "apply.jsonl",
            lock_directory=tmp_path,
        )
        async with session:
            made = await session.plan()
            inputs = PlanInputs(digest or manifests_digest(desired))
            shown = [c.to_dict() for c in made.to_apply] if changes is None else changes
            return await session.apply(
                confirm=lambda plan: True, saved=SavedPlan(made, inputs, shown)
            )

    return asyncio.run(main())


def test_a_saved_plan_of_other_manifests_is_refused_in_full(tmp_path: Path) -> None:
    with pytest.raises(StalePlanError) as refused:
        apply_saved(tmp_path, "sha256:other", None)
    assert str(refused.value) == (
        "the manifests (after variables) differ from those the plan was made from. Nothing "
        "was applied: run `reconciler plan` again (with --out), review it, and apply the new plan"
    )
    assert not (tmp_path / "apply.jsonl").exists()


def test_a_saved_plan_that_differs_from_a_fresh_one_is_refused_in_full(tmp_path: Path) -> None:
    with pytest.raises(StalePlanError) as refused:
        apply_saved(tmp_path, None, [])
    assert str(refused.value) == (
        "the saved plan is not what a plan made now would do (the live state or the plan "
        "file changed since it was made):\n"
        '  companies["Acme Corp"]: in a plan made now, not in the saved plan\n'
        "Nothing was applied: run `reconciler plan` again (with --out), review it, and apply "
        "the new plan."
    )
    assert not (tmp_path / "apply.jsonl").exists()


def test_every_difference_of_a_stale_saved_plan_is_listed_on_its_own_line(
    tmp_path: Path,
) -> None:
    ghosts = [{"address": 'companies["Ghost"]'}, {"address": 'departments["Gone"]'}]
    with pytest.raises(StalePlanError) as refused:
        apply_saved(tmp_path, None, ghosts)
    assert str(refused.value) == (
        "the saved plan is not what a plan made now would do (the live state or the plan "
        "file changed since it was made):\n"
        '  companies["Acme Corp"]: in a plan made now, not in the saved plan\n'
        '  companies["Ghost"]: in the saved plan, not in a plan made now\n'
        '  departments["Gone"]: in the saved plan, not in a plan made now\n'
        "Nothing was applied: run `reconciler plan` again (with --out), review it, and apply "
        "the new plan."
    )
    assert not (tmp_path / "apply.jsonl").exists()


def test_a_saved_plan_equal_to_a_fresh_one_is_applied(tmp_path: Path) -> None:
    outcome = apply_saved(tmp_path, None, None)
    assert outcome.report is not None and outcome.report.done == ['companies["Acme Corp"]']

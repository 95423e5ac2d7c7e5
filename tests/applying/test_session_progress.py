"""What an apply reports as it goes (`ApplyProgress`, applying/session.py), which the
CLI draws as its spinner, plan, bar and end: every kind read, the plan once, the start,
one step per operation sent, and the end with the report, in that order."""

from __future__ import annotations

import asyncio
from typing import Any

from reconciler.applying.executor import ApplyReport
from reconciler.plans import Plan
from tests.applying.inprocess import asgi, seeded
from tests.applying.test_session import desired, session  # noqa: F401  (a fixture)


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def read(self, kind: str) -> None:
        self.events.append(("read", kind))

    def planned(self, plan: Plan) -> None:
        self.events.append(("planned", plan))

    def started(self, plan: Plan) -> None:
        self.events.append(("started", plan))

    def operation_done(self) -> None:
        self.events.append(("operation_done", None))

    def finished(self, report: ApplyReport) -> None:
        self.events.append(("finished", report))


def test_an_apply_reports_each_step_in_order(desired: Any) -> None:  # noqa: F811
    state, credentials = seeded("acme")
    recorder = Recorder()

    async def run() -> Any:
        async with session(credentials, desired, asgi(state)) as opened:
            return await opened.apply(confirm=lambda plan: True, progress=recorder)

    outcome = asyncio.run(run())
    names = [name for name, _ in recorder.events]
    reads = names.index("planned")
    assert reads > 0 and set(names[:reads]) == {"read"}
    read_kinds = [kind for name, kind in recorder.events[:reads]]
    assert len(read_kinds) == len(set(read_kinds))
    operations = outcome.plan.operation_count
    assert operations > 0
    assert names[reads:] == ["planned", "started", *["operation_done"] * operations, "finished"]
    assert recorder.events[reads][1] is outcome.plan
    assert recorder.events[reads + 1][1] is outcome.plan
    assert recorder.events[-1][1] is outcome.report
    assert outcome.report.ok

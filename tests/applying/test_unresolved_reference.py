"""An operation naming an object that nothing in the plan creates (applying/executor.py):
the id cannot be filled in, so the operation is not sent; the change is reported as not
attempted, or as stopped partway when an earlier operation of it went out; the other
changes go on."""

from __future__ import annotations

import asyncio

from reconciler.applying.executor import ApplyReport, Executor
from tests.applying.fakes import FakeClient, change, op, plan_of, ref


def test_a_reference_nothing_creates_stops_only_its_change() -> None:
    hd = FakeClient({"first": ["OK"], "other": ["OK"]})
    plan = plan_of(
        change("assets", "S1", op("named", "/api/UpdateAsset", company=ref("companies", "Z"))),
        change(
            "assets",
            "S2",
            op("first", "/api/UpdateAsset"),
            op("then", "/api/UpdateAsset", company=ref("companies", "Z")),
        ),
        change("companies", "B", op("other")),
    )
    report = asyncio.run(Executor(plan, helpdesk=hd, parallel_changes=1).run())
    assert report == ApplyReport(
        done=['companies["B"]'],
        partial=['assets["S2"]'],
        not_attempted=['assets["S1"]'],
        operations_sent=2,
        total=3,
    )
    assert hd.tags() == ["first", "other"]

"""`apply --parallelism N`: at most N operations in flight, in dependency order, and the
same converged result whatever N is. (Reading the live state before, each service's client
has N requests in flight at most.) The executor's `parallel_changes` bounds the changes in
progress at once, below one taken as one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from reconciler.applying.executor import PARALLEL_CHANGES, ApplyReport, Executor
from reconciler.applying.session import ApplySession, SilentProgress
from reconciler.cli import main
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Plan
from tests.applying.fakes import FakeClient, change, op, plan_of
from tests.applying.inprocess import EXAMPLE, asgi, connection, mismatches, seeded


class InFlight(httpx.AsyncBaseTransport):
    """Passes requests on, each a little late, and counts how many are in flight at once."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.now = 0
        self.most = 0
        self.done: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await asyncio.sleep(0.002)  # long enough for every free slot to fill
            answer = await self.inner.handle_async_request(request)
            self.done.append(f"{request.method} {request.url.path}")
            return answer
        finally:
            self.now -= 1


@pytest.fixture(scope="module")
def desired() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


class FromTheFirstWrite(SilentProgress):
    """Counts the operations only, not the reads before them."""

    def __init__(self, counting: InFlight) -> None:
        self.counting = counting

    def started(self, plan: Plan) -> None:
        self.counting.most, self.counting.done = 0, []


def bootstrap(desired: DesiredState, parallelism: int, tmp_path: Path) -> InFlight:
    state, credentials = seeded("acme-catalogue")
    counting = InFlight(asgi(state))

    async def run() -> ApplyReport | None:
        async with ApplySession(
            desired,
            connection(credentials),
            log_path=tmp_path / "apply.jsonl",
            lock_directory=tmp_path,
            transport=counting,
            parallelism=parallelism,
        ) as session:
            outcome = await session.apply(
                confirm=lambda plan: True, progress=FromTheFirstWrite(counting)
            )
            return outcome.report

    report = asyncio.run(run())
    assert report is not None and report.ok, report
    assert mismatches(state, credentials, desired) == []
    return counting


@pytest.mark.parametrize("parallelism", [1, 3, PARALLEL_CHANGES])
def test_parallelism_bounds_the_requests_in_flight(
    desired: DesiredState, parallelism: int, tmp_path: Path
) -> None:
    counting = bootstrap(desired, parallelism, tmp_path)
    # The bootstrap has more independent changes than any of these: every slot is used.
    assert counting.most == parallelism


def test_dependencies_come_first_whatever_the_parallelism(
    desired: DesiredState, tmp_path: Path
) -> None:
    # Every user of the example names a company this bootstrap creates.
    done = bootstrap(desired, PARALLEL_CHANGES, tmp_path).done
    last_company = max(i for i, call in enumerate(done) if call.endswith("/api/Company"))
    first_user = min(i for i, call in enumerate(done) if call.endswith("/api/CreateUser"))
    assert last_company < first_user


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_a_parallelism_below_one_is_refused(value: str) -> None:
    result = CliRunner().invoke(main, ["apply", str(EXAMPLE), "--parallelism", value])
    assert result.exit_code == 1
    assert "--parallelism" in result.output


# (parallel_changes, the most changes in progress at once, of five independent ones)
@pytest.mark.parametrize(
    ("parallel", "most"), [(-1, 1), (0, 1), (1, 1), (2, 2), (4, 4), (5, 5), (6, 5)]
)
def test_parallel_changes_bounds_the_changes_in_progress_at_once_below_one_taken_as_one(
    parallel: int, most: int
) -> None:
    hd = FakeClient()
    plan: Plan = plan_of(*(change("assets", k, op(k)) for k in "abcde"))
    report: ApplyReport = asyncio.run(Executor(plan, helpdesk=hd, parallel_changes=parallel).run())
    assert report.ok and sorted(report.done) == [f'assets["{k}"]' for k in "abcde"]
    assert hd.max_in_flight == most

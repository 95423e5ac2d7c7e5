"""What an `ApplySession` leaves behind when it ends: the apply lock of its services is
free again (a program that plans, then applies, in one process, or applies twice, is not
refused by its own first session), whether the session ended normally or with an error;
and the apply log is written where `--log` says, folders made as needed."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest

from reconciler.applying.lock import ApplyLock
from reconciler.applying.log import ApplyLog
from reconciler.applying.session import ApplySession
from reconciler.errors import StalePlanError
from reconciler.manifest import load_manifests
from reconciler.plans.planfile import PlanInputs, SavedPlan, manifests_digest
from tests.applying.inprocess import EXAMPLE, asgi, connection, seeded

URLS = ["http://127.0.0.1/helpdesk", "http://127.0.0.1/workspace"]


def test_a_session_that_ended_holds_no_lock() -> None:
    state, credentials = seeded("acme")
    desired = load_manifests([EXAMPLE], env={})
    where = Path(tempfile.mkdtemp(prefix="reconciler-session-"))

    def opened() -> ApplySession:
        return ApplySession(
            desired,
            connection(credentials),
            transport=asgi(state),
            log_path=where / "apply.jsonl",
            lock_directory=where,
        )

    async def main() -> None:
        async with opened() as first:
            await first.plan()
        async with opened() as second:  # the same process, the same services: not refused
            await second.plan()
        with pytest.raises(RuntimeError):
            async with opened():
                raise RuntimeError("ended by an error")

    asyncio.run(main())
    with ApplyLock(URLS, directory=where, timeout=0):  # another apply may start at once
        pass


def test_the_apply_log_makes_the_folders_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "nightly" / "apply.jsonl"  # as `apply --log logs/nightly/...`
    with ApplyLog(path) as log:
        log.event("start")
    assert [json.loads(line)["event"] for line in path.read_text().splitlines()] == ["start"]


def _session(where: Path, **kwargs: object) -> ApplySession:
    state, credentials = seeded("acme")
    return ApplySession(
        load_manifests([EXAMPLE], env={}),
        connection(credentials),
        transport=asgi(state),
        log_path=where / "apply.jsonl",
        lock_directory=where,
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_parallelism_under_one_is_refused_and_one_is_not(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as refused:
        _session(tmp_path, parallelism=0)
    assert str(refused.value) == "parallelism must be at least 1"
    assert _session(tmp_path, parallelism=1).parallelism == 1  # `apply --parallelism 1`


def test_an_interrupt_before_anything_is_executed_says_to_stop_at_once(tmp_path: Path) -> None:
    async def main() -> tuple[bool, bool]:
        session = _session(tmp_path)
        before = session.interrupt()
        async with session as opened:
            await opened.plan()
            return before, opened.interrupt()

    assert asyncio.run(main()) == (False, False)  # nothing written: the caller may stop


@pytest.mark.parametrize(
    ("inputs", "flags"),
    [
        ({"prune": True}, "--prune"),
        ({"targets": ("users",)}, "--target users"),
        ({"excludes": ('users["bob"]',)}, '--exclude users["bob"]'),
    ],
    ids=["prune", "target", "exclude"],
)
def test_a_saved_plan_made_with_other_flags_is_refused_naming_them(
    tmp_path: Path, inputs: dict[str, object], flags: str
) -> None:
    async def main() -> None:
        async with _session(tmp_path) as opened:
            made = await opened.plan()
            saved = SavedPlan(
                made,
                PlanInputs(manifests_digest(opened.desired), **inputs),  # type: ignore[arg-type]
                [],
            )
            with pytest.raises(StalePlanError) as refused:
                await opened.apply(confirm=lambda plan: True, saved=saved)
            assert str(refused.value) == (
                f"this session's flags differ from those the plan was made with ({flags}): "
                "apply it with the same flags"
            )

    asyncio.run(main())
    assert not (tmp_path / "apply.jsonl").exists()  # nothing executed, nothing logged


def test_the_lock_is_taken_in_the_directory_the_session_is_given(tmp_path: Path) -> None:
    """`RECONCILER_LOCK_DIR` (or a test's own directory) is where the session locks: an
    apply holding the lock there refuses this one, named; held elsewhere, it does not."""
    from reconciler.applying.lock import ApplyLocked

    async def enter(session: ApplySession) -> None:
        async with session:
            pass

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with ApplyLock(URLS, directory=elsewhere, timeout=0):
        asyncio.run(enter(_session(tmp_path)))
    with ApplyLock(URLS, directory=tmp_path, timeout=0), pytest.raises(ApplyLocked) as refused:
        asyncio.run(enter(_session(tmp_path)))
    assert "127.0.0.1" in str(refused.value)

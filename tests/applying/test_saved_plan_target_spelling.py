"""A saved plan made with `--target companies/KEY` is applied with the same target printed
as the plan prints it (`companies["KEY"]`): the same selection, so not refused for its
flags (applying/session.py compares the selectors, not their spelling)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from reconciler.applying.session import ApplyDeclined, ApplyOptions, ApplySession
from reconciler.manifest.loader import load_manifests
from reconciler.plans.addresses import Selector
from reconciler.plans.planfile import PlanInputs, SavedPlan, manifests_digest
from tests.applying.inprocess import EXAMPLE, asgi, connection, seeded


def test_a_target_spelled_otherwise_is_the_same_flag(tmp_path: Path) -> None:
    state, credentials = seeded("acme")
    desired = load_manifests([EXAMPLE], env={})

    def session(target: str) -> ApplySession:
        return ApplySession(
            desired,
            connection(credentials),
            options=ApplyOptions(targets=(Selector.parse(target),)),
            transport=asgi(state),
            log_path=tmp_path / "apply.jsonl",
            lock_directory=tmp_path,
        )

    async def main() -> list[str]:
        async with session("companies") as whole:
            key = next(c.key for c in (await whole.plan()).changes)
        async with session(f"companies/{key}") as made_with:
            made = await made_with.plan()
        inputs = PlanInputs(manifests_digest(desired), targets=(f"companies/{key}",))
        saved = SavedPlan(made, inputs, [change.to_dict() for change in made.to_apply])
        asked: list[str] = []

        def confirm(plan: object) -> bool:
            asked.append(key)
            return False

        async with session(f'companies["{key}"]') as applying:
            with pytest.raises(ApplyDeclined) as declined:
                await applying.apply(confirm=confirm, saved=saved)
            assert str(declined.value) == "nothing applied"
        return asked

    assert len(asyncio.run(main())) == 1  # the flags matched: the plan was shown, declined
    assert not (tmp_path / "apply.jsonl").exists()

"""What a fleet's plan spends per environment (the benchmark
benchmarks/fleet_bench.py): work that is the same for every environment is done once,
and nothing is done for nothing. Each case checks the result a user sees as well."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, KeysView
from dataclasses import replace
from pathlib import Path

from reconciler.fleet.plans import in_order, run_to_end


class Loud:
    """A result that counts how often it is turned into text."""

    shown = 0

    def __repr__(self) -> str:
        Loud.shown += 1
        return "Loud()"


def test_run_to_end_hands_back_the_result_without_formatting_it() -> None:
    async def work() -> list[Loud]:
        await asyncio.sleep(0)
        return [Loud(), Loud()]

    Loud.shown = 0
    results = run_to_end(work())
    assert len(results) == 2 and all(isinstance(item, Loud) for item in results)
    assert Loud.shown == 0


def test_run_to_end_keeps_the_order_of_in_order() -> None:
    seen: list[int] = []

    async def one(value: int) -> int:
        await asyncio.sleep(0.001 * (3 - value))
        return value

    work = [lambda v=v: one(v) for v in range(3)]
    assert run_to_end(in_order(work, max_parallel=0, on_done=seen.append)) == [0, 1, 2]
    assert seen == [0, 1, 2]


class CountingEnviron(dict[str, str]):
    """An environment that counts how often it is read whole (copied or iterated)."""

    def __init__(self, values: dict[str, str], **more: str) -> None:
        super().__init__(values, **more)
        self.whole = 0

    def __iter__(self) -> Iterator[str]:
        self.whole += 1
        return super().__iter__()

    def keys(self) -> KeysView[str]:
        self.whole += 1
        return super().keys()


FLEET = """\
environments:
  t1: {paths: [m.yaml], helpdesk_url: "https://h1.invalid/hd",
       credentials: {HELPDESK_TOKEN: T1_TOKEN}}
  t2: {paths: [m.yaml], helpdesk_url: "https://h2.invalid/hd",
       credentials: {HELPDESK_TOKEN: T2_TOKEN}}
  t3: {paths: [m.yaml], helpdesk_url: "https://h3.invalid/hd",
       credentials: {HELPDESK_TOKEN: T3_TOKEN}}
"""


def test_the_environment_is_read_once_for_every_environment_of_a_fleet(tmp_path: Path) -> None:
    from reconciler.fleet.plans import PlanRequest, prepare, prepare_all
    from reconciler.project import load_project, resolve

    (tmp_path / "reconciler.yaml").write_text(FLEET, encoding="utf-8")
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    project = load_project(tmp_path / "reconciler.yaml")
    targets = [resolve(project, name) for name in ("t1", "t2", "t3")]
    values = {f"T{n}_TOKEN": f"token-of-tenant-{n}" for n in (1, 2, 3)}
    environ = CountingEnviron(values, HELPDESK_TOKEN="the shell's", OTHER="x")
    prepared = prepare_all(targets, environ, PlanRequest())
    assert environ.whole == 1
    # Each environment's connection as `prepare` alone makes it, from the same variables.
    for target, item in zip(targets, prepared, strict=True):
        alone = prepare(target, dict(environ), PlanRequest())
        assert item.error is None and alone.connection is not None
        assert item.connection is not None and item.connection.helpdesk is not None
        assert replace(item.connection, helpdesk=None) == replace(alone.connection, helpdesk=None)
        assert item.connection.environment == target.name
        helpdesk = item.connection.helpdesk
        assert helpdesk.url == target.helpdesk_url
        assert helpdesk.token is not None
        assert helpdesk.token.reveal() == values[f"{target.name.upper()}_TOKEN"]

"""A scripted stand-in for both API clients, and builders of small plans, so that the
Executor can be tested without a server.

Every operation of a test plan carries a `tag` parameter; the fake answers it from a
script: a list of steps per tag, one step per call (the last step repeats). A step is a
value to answer, an exception to raise, or an async callable (to hold a call open until
the test lets it go). The fake records every call and how many were in flight at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.plans import Action, Change, Operation, Plan, Ref, address

Step = Any  # a value, an Exception, or a Callable[[], Awaitable[Any]]


@dataclass
class Call:
    method: str
    path: str
    params: dict[str, Any]
    write: bool
    idempotent: bool

    @property
    def tag(self) -> str:
        return str(self.params.get("tag"))


@dataclass
class FakeClient:
    script: dict[str, list[Step]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)  # tags, as their calls returned
    in_flight: int = 0
    max_in_flight: int = 0

    async def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        write: bool,
        idempotent: bool = True,
    ) -> Any:
        call = Call(method, path, dict(params or {}), write, idempotent)
        self.calls.append(call)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            steps = self.script.get(call.tag, ["OK"])
            done_before = sum(1 for c in self.calls[:-1] if c.tag == call.tag)
            step = steps[min(done_before, len(steps) - 1)]
            await asyncio.sleep(0)  # every call yields, as a real one would
            if callable(step):
                step = await step()
            if isinstance(step, BaseException):
                raise step
            return step
        finally:
            self.in_flight -= 1
            self.finished.append(call.tag)

    def tags(self) -> list[str]:
        return [c.tag for c in self.calls]


def op(
    tag: str,
    path: str = "/api/UpdateCompany",
    *,
    service: str = "helpdesk",
    method: str = "POST",
    creates: str | None = None,
    idempotent: bool = True,
    **params: Any,
) -> Operation:
    return Operation(
        service, method, path, {"tag": tag, **params}, creates=creates, idempotent=idempotent
    )


def change(
    kind: str,
    key: str,
    *operations: Operation,
    action: Action = Action.update,
    depends_on: Iterable[str] = (),
    removal: bool = False,
) -> Change:
    return Change(
        kind,
        key,
        action,
        operations=operations,
        depends_on=tuple(depends_on),
        removal=removal,
    )


def create(
    kind: str,
    key: str,
    tag: str,
    *more: Operation,
    path: str = "/api/Asset",
    service: str = "helpdesk",
    depends_on: Iterable[str] = (),
) -> Change:
    """A create whose first operation makes the object (not idempotent, as `CreateUser`,
    `Asset`, `AddCategory` and `POST employees` are) and whose answer carries its id."""
    first = op(tag, path, service=service, creates=address(kind, key), idempotent=False)
    return change(kind, key, first, *more, action=Action.create, depends_on=depends_on)


def ref(kind: str, key: str) -> Ref:
    return Ref(address(kind, key))


def plan_of(*changes: Change) -> Plan:
    return Plan(tuple(changes), live_digest="sha256:test")


def gate() -> tuple[asyncio.Event, Callable[[], Awaitable[str]]]:
    """An event and a step that waits for it: the call stays in flight until `set()`."""
    event = asyncio.Event()

    async def wait() -> str:
        await asyncio.wait_for(event.wait(), timeout=5)
        return "OK"

    return event, wait


class ListLog:
    """An `OperationLog` that keeps the entries."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def record(self, entry: Mapping[str, Any]) -> None:
        self.entries.append(dict(entry))

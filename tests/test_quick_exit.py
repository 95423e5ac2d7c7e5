"""How `reconciler` ends once its command has (reconciler/__main__.py's quick exit): the
exit handlers run, then both streams are flushed again, so that what a handler wrote is
not lost, and the process ends with the command's status; a stream that cannot be flushed
gives 120, as Python's own exit does. Only the process started as the program
(`python -m reconciler`) ends this way, never one that runs the module inside another
program (pytest, `runpy`). In-process: in a child these lines run after coverage's own
exit handler, so coverage never records them."""

from __future__ import annotations

import contextlib
import io
import sys
import types
from importlib.machinery import ModuleSpec

import pytest

import reconciler.__main__ as program
from reconciler.__main__ import _is_program


class Exited(Exception):
    pass


class Stream(io.StringIO):
    def __init__(self, name: str, events: list[str], fail_at: int | None = None) -> None:
        super().__init__()
        self.name, self.events, self.fail_at, self.flushes = name, events, fail_at, 0

    def flush(self) -> None:
        self.flushes += 1
        self.events.append(f"flush {self.name}")
        if self.flushes == self.fail_at:
            raise BrokenPipeError(32, "Broken pipe")


def ended(monkeypatch: pytest.MonkeyPatch, code: object, out_fails: int | None = None) -> list[str]:
    """What happens, in order, when the command ends with `SystemExit(code)`."""
    events: list[str] = []
    out, err = Stream("out", events, out_fails), Stream("err", events)

    def handlers() -> None:
        events.append("exit handlers")
        err.write("written at exit\n")

    def exit_now(status: int) -> None:
        events.append(f"exit {status}")
        raise Exited

    monkeypatch.setattr(program.sys, "stdout", out)
    monkeypatch.setattr(program.sys, "stderr", err)
    monkeypatch.setattr(program, "atexit", types.SimpleNamespace(_run_exitfuncs=handlers))
    monkeypatch.setattr(program, "os", types.SimpleNamespace(_exit=exit_now))
    with contextlib.suppress(Exited):
        program._quick_exit(SystemExit(code))
    return events


def test_the_streams_are_flushed_after_the_exit_handlers_then_the_status_is_the_commands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert ended(monkeypatch, 2) == [
        "flush out",
        "flush err",
        "exit handlers",
        "flush out",
        "flush err",
        "exit 2",
    ]
    assert ended(monkeypatch, None)[-1] == "exit 0"
    assert ended(monkeypatch, 257)[-1] == "exit 1"  # a status is one byte


@pytest.mark.parametrize(("code", "status"), [(0, 120), (None, 120), (3, 3)])
def test_a_stream_that_cannot_be_flushed_at_the_end_gives_120_or_the_commands_failure(
    monkeypatch: pytest.MonkeyPatch, code: int | None, status: int
) -> None:
    assert ended(monkeypatch, code, out_fails=2)[-3:] == [
        "exit handlers",
        "flush out",
        f"exit {status}",
    ]


def test_a_stream_that_cannot_be_flushed_first_is_left_to_pythons_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert ended(monkeypatch, 0, out_fails=1) == ["flush out"]


def test_a_message_as_the_status_is_left_to_pythons_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ended(monkeypatch, "cannot go on") == []


@pytest.mark.parametrize(
    ("spec", "ends_quickly"),
    [
        (ModuleSpec("reconciler.__main__", None), True),  # python -m reconciler
        (ModuleSpec("reconciler", None), False),
        (ModuleSpec("pytest.__main__", None), False),  # python -m pytest
        (None, False),  # python script.py, python -c
    ],
)
def test_only_the_process_started_as_the_program_ends_quickly(
    spec: ModuleSpec | None, ends_quickly: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = types.ModuleType("__main__")
    main.__spec__ = spec
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert _is_program() is ends_quickly


def test_a_process_without_a_main_module_does_not_end_quickly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "__main__")
    assert _is_program() is False

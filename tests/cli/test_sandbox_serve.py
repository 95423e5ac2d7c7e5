"""`reconciler sandbox serve` in-process up to the point where it would serve (the server
itself is replaced by a recorder; tests/e2e/test_sandbox_serve.py serves for real): the
loopback rule and its warning, which seed an empty database gets (the default one as
`--sandbox`, `--seed`, `--empty`), the refusals, and the defaults its help states."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.sandbox import serve
from reconciler.sandbox.config import BUILTIN_SEEDS


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(serve, "serve_forever", lambda **kwargs: calls.append(kwargs))
    monkeypatch.chdir(tmp_path)
    return calls


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["sandbox", "serve", "--db", "s.db", *args])


@pytest.mark.parametrize(
    ("args", "seed", "explicit"),
    [
        ((), BUILTIN_SEEDS / "acme.yaml", False),  # the same tenant as --sandbox
        (("--seed", "empty"), BUILTIN_SEEDS / "empty.yaml", True),
        (("--seed", "acme"), BUILTIN_SEEDS / "acme.yaml", True),
        (("--empty",), None, True),
    ],
)
def test_the_seed_an_empty_database_gets(
    served: list[dict[str, Any]], args: tuple[str, ...], seed: Path | None, explicit: bool
) -> None:
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.output == ""
    (call,) = served
    assert (call["seed"], call["explicit"]) == (seed, explicit)
    assert (call["host"], call["port"], call["db"]) == ("127.0.0.1", 8765, Path("s.db"))
    assert (call["rate_limit"], call["search_rate_limit"]) == (90, 60)
    assert (call["reset"], call["quirks"], call["faults"], call["tenants"]) == (False, (), "", ())


def test_the_options_reach_the_server(served: list[dict[str, Any]]) -> None:
    args = ["--port", "0", "--reset", "--quirk", "no-retry-after", "--faults", "error=0.5"]
    args += ["--rate-limit", "0", "--search-rate-limit", "5", "--tenant", "a", "--tenant", "b"]
    result = run(*args)
    assert result.exit_code == 0, result.output
    (call,) = served
    assert call["port"] == 0 and call["reset"] is True
    assert call["quirks"] == ("no-retry-after",) and call["faults"] == "error=0.5"
    assert (call["rate_limit"], call["search_rate_limit"]) == (0, 5)
    assert call["tenants"] == ("a", "b")


def test_off_loopback_is_refused_without_allow_remote(served: list[dict[str, Any]]) -> None:
    result = run("--host", "0.0.0.0")
    assert result.exit_code == 1
    assert result.output == (
        "Error: --host 0.0.0.0 is not loopback: other machines could reach the sandbox, whose "
        "/_sandbox/* routes need no credentials; add --allow-remote if that is meant\n"
    )
    assert served == []


def test_off_loopback_with_allow_remote_is_warned_about(served: list[dict[str, Any]]) -> None:
    result = run("--host", "0.0.0.0", "--allow-remote")
    assert result.exit_code == 0, result.output
    assert result.output == "Warning: listening on 0.0.0.0: /_sandbox/* needs no credentials.\n"
    assert served[0]["host"] == "0.0.0.0"


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost"])
def test_loopback_is_served_without_a_word(served: list[dict[str, Any]], host: str) -> None:
    result = run("--host", host)
    assert result.exit_code == 0, result.output
    assert result.output == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--empty", "--seed", "acme"), "--empty and --seed contradict each other: give one of "
         "them"),
        (("--seed", "nope"), "no seed 'nope': give a file, or one of acme, acme-catalogue, "
         "empty, shared"),
    ],
)  # fmt: skip
def test_contradictory_or_unknown_seeds_are_refused_before_serving(
    served: list[dict[str, Any]], args: tuple[str, ...], message: str
) -> None:
    result = run(*args)
    assert result.exit_code == 1
    assert result.output == f"Error: {message}\n"
    assert served == []


def test_the_help_states_each_default() -> None:
    result = CliRunner().invoke(main, ["sandbox", "serve", "--help"], terminal_width=1000)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for line in (
        "--host TEXT Address to listen on; off loopback only with --allow-remote. "
        "[default: 127.0.0.1]",
        "--port INTEGER RANGE Port; 0 picks a free one. [default: 8765; 0<=x<=65535]",
        "--db FILE SQLite file that keeps the state across restarts. "
        "[default: .reconciler/sandbox.db]",
        "a built-in one (acme, acme-catalogue, empty, shared) or a seed file "
        "(docs/sandbox.md). Default: acme, as --sandbox.",
        "--rate-limit INTEGER RANGE Calls a minute; 0 = off. [default: 90; 0<=x<=10000]",
        "--search-rate-limit INTEGER RANGE Search/UserByEmail. [default: 60; 0<=x<=10000]",
        "or 'all': createuser-bare-int, createuser-duplicate-500,",
        "settings: error, drop, slow, slow_seconds, throttle_after, throttle_for, seed.",
    ):
        assert line in text, line

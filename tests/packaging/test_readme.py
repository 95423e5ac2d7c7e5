"""The README fits on a few screens and its commands are those that work: the install from
a clone that `.ci/run` makes, exactly the test command `.ci/run` runs, `reconciler` command
lines naming only commands and options that exist, and the one-minute tour run as written
(against the embedded sandbox, started on a free loopback port by the commands themselves),
showing the plan the README quotes. Its links: tests/packaging/test_links.py."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest

from reconciler.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
URLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
REPOSITORY = URLS["Repository"]
TEST_COMMAND = ". .venv/bin/activate && python -m pytest -n 2"


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.MULTILINE | re.DOTALL)


def command_lines() -> list[list[str]]:
    """Every `reconciler ...` line of the README's shell blocks, as words, without comments,
    and those that follow `&&` on another command's line."""
    found = []
    for block in blocks("sh"):
        for line in block.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:1] == ["reconciler"]:
                    found.append(words)
    return found


def test_the_readme_fits_in_12_kb() -> None:
    assert len(README.encode("utf-8")) <= 12_000


def test_the_first_command_installs_from_the_clone_as_ci_does_then_runs_the_quick_start() -> None:
    first = blocks("sh")[0].strip()
    install, _, run = first.rpartition(" && ")
    assert install == "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]'"
    # .ci/run makes the same environment the same way, with steps and options that change
    # neither what is installed nor from where: today's pip first (the one bundled with
    # Python takes twice its CPU to sift PyPI's long release lists), quietly, and no
    # byte-code compiled ahead.
    [ci_install] = [line for line in CI_RUN.splitlines() if line.startswith("python3 -m venv")]
    steps = ci_install.split(" && ")
    assert steps.pop(2) == "pip install --quiet --upgrade pip"
    same = [
        " ".join(w for w in step.split() if w not in {"--quiet", "--no-compile"}) for step in steps
    ]
    assert " && ".join(same) == install
    assert run == "reconciler plan examples/acme --sandbox"
    # Nothing the first install names needs a published version or a tag.
    assert "==" not in first and "@" not in first


def test_the_test_command_is_exactly_what_ci_runs() -> None:
    assert blocks("sh")[1].strip() == TEST_COMMAND
    assert f"\n{TEST_COMMAND} || status=$?\n" in CI_RUN


def test_no_install_line_names_an_unpublished_version() -> None:
    installs = re.findall(r"pip install [^\n`]*", README)
    assert installs
    assert [line for line in installs if "==" in line or "helpdesk-reconciler" in line] == []


@pytest.mark.parametrize("words", command_lines(), ids=" ".join)
def test_each_command_line_names_a_command_and_its_options(words: list[str]) -> None:
    command: click.Command = main
    rest = words[1:]
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(click.Context(command), rest[0])
        assert sub is not None, f"no command {rest[0]!r}"
        command, rest = sub, rest[1:]
    options = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    unknown = [w.partition("=")[0] for w in rest if w.startswith("-")]
    assert [w for w in unknown if w not in options] == []


def test_the_tour_names_each_step() -> None:
    tour = README.split("## A one-minute tour", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```sh\n(.*?)```", tour, re.DOTALL)
    steps = [shlex.split(line, comments=True)[1] for line in block.splitlines()]
    assert steps == ["validate", "plan", "apply", "export", "plan", "plan"]
    for step in ("validate", "plan", "apply", "export", "drift"):
        assert f"- **{step}**" in tour


def test_what_the_tour_writes_into_the_clone_is_ignored_by_git() -> None:
    """The tour runs in the clone: a directory it exports to must not show up as a
    change to commit (.gitignore), nor would `.reconciler/`, the sandbox's state."""
    tour = README.split("## A one-minute tour", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```sh\n(.*?)```", tour, re.DOTALL)
    written = [".reconciler/"]
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        written += [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--out"]
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    missing = [p for p in written if p not in ignored and f"/{p.rstrip('/')}/" not in ignored]
    assert missing == []


@pytest.mark.e2e
def test_the_tour_runs_as_written_and_shows_the_plan_quoted(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "acme", tmp_path / "examples" / "acme")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env["NO_COLOR"] = "1"
    env["RECONCILER_LOCK_DIR"] = str(tmp_path / "locks")  # apply's lock: this run's own
    tour = README.split("## A one-minute tour", 1)[1]
    [block] = re.findall(r"```sh\n(.*?)```", tour, re.DOTALL)
    outputs = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        result = subprocess.run(
            [sys.executable, "-m", "reconciler", *words[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, (line, result.stdout[-2000:], result.stderr)
        outputs.append(result.stdout)
    # The first plan, on a fresh sandbox, is the plan the README quotes at the top.
    [quoted] = blocks("text")
    first_plan = outputs[1].splitlines()
    assert [line for line in quoted.splitlines() if line and line not in first_plan] == []
    assert "Plan: 8 to create" in outputs[1]

"""docs/commands.md documents every command, every option and every exit code: its option
blocks are those the click commands make now (tests/packaging/commands_doc.py)."""

from __future__ import annotations

import re

import click
import pytest

from reconciler.cli.group import EXIT_CODES_HELP
from tests.packaging.commands_doc import BLOCK, DOC, commands, generated

TEXT = DOC.read_text(encoding="utf-8")
REGENERATE = "out of date: run python -m tests.packaging.commands_doc"


def test_every_command_has_one_block_and_no_other() -> None:
    documented = [match["name"] for match in BLOCK.finditer(TEXT)]
    assert sorted(documented) == sorted(generated())
    assert len(documented) == len(set(documented))


@pytest.mark.parametrize("name", sorted(generated()))
def test_each_block_is_what_the_command_makes_now(name: str) -> None:
    [written] = [m[0] for m in BLOCK.finditer(TEXT) if m["name"] == name]
    assert written == generated()[name], f"{name}: {REGENERATE}"


def test_every_option_of_every_command_is_named() -> None:
    missing = []
    for name, command, context in commands():
        [section] = [m[0] for m in BLOCK.finditer(TEXT) if m["name"] == name]
        cells = re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE)
        named = {word for cell in cells for word in re.findall(r"(?<![\w-])--?[\w-]+", cell)}
        for param in command.get_params(context):
            if isinstance(param, click.Option) and not param.hidden:
                opts = (*param.opts, *param.secondary_opts)
                missing += [f"{name} {opt}" for opt in opts if opt not in named]
    assert missing == [], REGENERATE


def test_the_exit_code_table_has_every_exit_code() -> None:
    codes = set(re.findall(r"(?:^|; )(\d+) ", EXIT_CODES_HELP.removeprefix("Exit codes: ")))
    table = TEXT.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    assert (
        set(re.findall(r"^\| `(\d+)` \|", table, re.MULTILINE))
        == codes
        == {
            "0",
            "1",
            "2",
            "130",
        }
    )

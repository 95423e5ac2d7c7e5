"""The generated parts of docs/commands.md: for every command of the click group, its usage,
each option as `--help` shows it, and the environment variables it reads. The prose around
them is written by hand; these blocks are not, so no option can be left out.

    python -m tests.packaging.commands_doc          # rewrite the blocks in docs/commands.md

tests/packaging/test_commands_doc.py fails when a block differs from what this makes."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from reconciler.cli import main
from reconciler.cli.environment import COMMON, READS, VARIABLES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "commands.md"
BEGIN = "<!-- generated: {name} (python -m tests.packaging.commands_doc) -->"
END = "<!-- end generated: {name} -->"
BLOCK = re.compile(
    r"<!-- generated: (?P<name>[a-z -]+) \(python -m tests\.packaging\.commands_doc\) -->\n"
    r".*?<!-- end generated: (?P=name) -->",
    re.DOTALL,
)


def commands() -> Iterator[tuple[str, click.Command, click.Context]]:
    """Every command and group, depth first, with the context its help is made in."""
    context = click.Context(main, info_name="reconciler", **main.context_settings)
    yield "reconciler", main, context
    for name in sorted(main.list_commands(context)):
        yield from _sub(main, name, context, ("reconciler",))


def _sub(
    group: click.Group, name: str, parent: click.Context, path: tuple[str, ...]
) -> Iterator[tuple[str, click.Command, click.Context]]:
    sub = group.get_command(parent, name)  # the group loads its commands lazily
    assert sub is not None, name
    context = click.Context(sub, info_name=name, parent=parent)
    yield " ".join((*path, name)), sub, context
    if isinstance(sub, click.Group):
        for child in sorted(sub.list_commands(context)):
            yield from _sub(sub, child, context, (*path, name))


def block(name: str, command: click.Command, context: click.Context) -> str:
    """The generated block of one command, between its markers."""
    usage = " ".join([context.command_path, *command.collect_usage_pieces(context)])
    lines = [BEGIN.format(name=name), "", "```", usage, "```", ""]
    lines += ["| option | what it does |", "|---|---|"]
    for param in command.get_params(context):
        record = param.get_help_record(context)
        if isinstance(param, click.Option) and record:
            lines.append(f"| `{_cell(record[0])}` | {_cell(record[1])} |")
    if not isinstance(command, click.Group):
        variables = READS.get(name.removeprefix("reconciler "), COMMON)
        lines += ["", "Environment variables:", ""]
        lines += [f"- `{variable}`: {VARIABLES[variable]}" for variable in variables]
    lines += ["", END.format(name=name)]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def generated() -> dict[str, str]:
    """{command name: its block}, for every command of the group."""
    return {name: block(name, command, context) for name, command, context in commands()}


def rewrite(text: str) -> str:
    """`text` with each command's block replaced by a fresh one."""
    blocks = generated()
    return BLOCK.sub(lambda match: blocks[match["name"]], text)


if __name__ == "__main__":
    DOC.write_text(rewrite(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    sys.stdout.write(f"{DOC.relative_to(ROOT)}: {len(generated())} command blocks\n")

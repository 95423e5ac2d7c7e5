"""Every command's --help lists the environment variables it reads."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.cli.environment import CONNECTION


def commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    context = click.Context(group)
    for name in group.list_commands(context):  # loads the lazy ones (cli/group.py)
        command = group.get_command(context, name)
        assert command is not None
        if isinstance(command, click.Group):
            found += commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


@pytest.mark.parametrize("path", commands(main), ids=" ".join)
def test_every_command_lists_the_environment_it_reads(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0
    assert "Environment variables:" in result.output
    assert "RECONCILER_DEBUG" in result.output and "NO_COLOR" in result.output
    connects = path[-1] in ("plan", "apply", "export")
    assert all((name in result.output) == connects for name in CONNECTION)

"""The top-level group imports a command's module only when that command runs (issue 25).

`reconciler --help`, `--version` and `validate` need neither the HTTP stack (httpx), nor
the terminal's (rich), nor the planner: each command module imports what it needs, and
this group imports only the module of the command being run. `--help` lists the commands
from `COMMANDS` (their one-line summaries) without importing any of them;
tests/cli/test_lazy_imports.py checks each summary against its command's docstring and
that `--help`, `--version` and `validate` leave httpx and rich unimported."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import click

from reconciler.cli.group import ReconcilerGroup


@dataclass(frozen=True)
class LazyCommand:
    module: str  # imported when the command runs, e.g. "reconciler.cli.plan"
    attribute: str  # the click command in it
    summary: str  # the first paragraph of its docstring: what --help lists


class LazyGroup(ReconcilerGroup):
    """A `ReconcilerGroup` whose commands live in `COMMANDS`-like tables: `prepare` is
    applied to each command once loaded (the exit codes and environment in its help)."""

    def __init__(
        self,
        *args: object,
        lazy: dict[str, LazyCommand],
        prepare: Callable[[str, click.Command], None],
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy
        self._prepare = prepare

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.add_command(self.load(cmd_name), cmd_name)
        return self.commands.get(cmd_name)

    def load(self, name: str) -> click.Command:
        entry = self.lazy[name]
        command = getattr(importlib.import_module(entry.module), entry.attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry.module}.{entry.attribute} is not a click command")
        self._prepare(name, command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click's, from the summaries: listing the commands imports none of them."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            shown = loaded or click.Command(name, help=self.lazy[name].summary)
            if not shown.hidden:
                rows.append((name, shown.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

"""Where manifest text comes from (`Source`) and the problems found in it, collected from
every file and reported together, each as `file:line:column: message`."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.errors import ManifestError
from reconciler.manifest.yamltree import Node, Report


@dataclass(frozen=True)
class Source:
    """A manifest file (or a path given on the command line) as named in messages, and its
    place in the load order, which is also the order its problems are listed in."""

    name: str
    order: int

    def where(self, node: Node) -> str:
        return f"{self.name}:{node.line}:{node.column}"


@dataclass(frozen=True, order=True)
class Problem:
    order: int
    line: int
    column: int
    message: str
    file: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class Problems:
    def __init__(self) -> None:
        # A set: a node shared through an alias is checked once per use.
        self._found: set[Problem] = set()

    def add(self, source: Source, line: int, column: int, message: str) -> None:
        self._found.add(Problem(source.order, line, column, printable(message), source.name))

    def at(self, source: Source, node: Node, message: str) -> None:
        self.add(source, node.line, node.column, message)

    def reporter(self, source: Source) -> Report:
        return lambda line, column, message: self.add(source, line, column, message)

    def extend(self, other: Problems) -> None:
        """Every problem of `other` too."""
        self._found |= other._found

    def __len__(self) -> int:
        return len(self._found)

    def messages(self) -> list[str]:
        """In load order of the files, then by position."""
        return [str(problem) for problem in sorted(self._found)]

    def error(self) -> ManifestError:
        """Every problem found, as the error that reports them."""
        return ManifestError(self.messages())

    def raise_if_any(self) -> None:
        if self._found:
            raise self.error()


def printable(message: str) -> str:
    """The message with line breaks and other invisible characters (from names and values
    quoted in it) escaped, so that every problem is one line of visible text."""
    if message.isprintable():
        return message
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in message
    )

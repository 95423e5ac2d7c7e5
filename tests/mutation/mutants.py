"""The mutants of a module: small changes to its source, each one place in one line.

Each mutant replaces the source of one syntax node (found with `ast`, so the rest of the
file stays byte for byte) by another: a flipped comparison, `and` for `or`, a dropped
`not`, a removed statement (a call, an augmented assignment, a `raise`), an assignment of
`None`, `return None`, a constant off by one, a flipped boolean, a changed string, `+`
for `-`, a dropped keyword argument, `break` for `continue`. Docstrings, annotations,
imports and the body of `if TYPE_CHECKING:` are left alone, and so is a line that ends
with `# pragma: no mutate` (an equivalent mutant, explained in docs/mutation-testing.md).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NO_MUTATE = "# pragma: no mutate"

_COMPARE: dict[type[ast.cmpop], tuple[str, ...]] = {
    ast.Lt: ("<=", ">="),
    ast.LtE: ("<", ">"),
    ast.Gt: (">=", "<="),
    ast.GtE: (">", "<"),
    ast.Eq: ("!=",),
    ast.NotEq: ("==",),
    ast.Is: ("is not",),
    ast.IsNot: ("is",),
    ast.In: ("not in",),
    ast.NotIn: ("in",),
}
_BINARY: dict[type[ast.operator], str] = {
    ast.Add: "-",
    ast.Sub: "+",
    ast.Mult: "/",
    ast.Div: "*",
    ast.FloorDiv: "*",
    ast.Mod: "//",
    ast.BitOr: "&",
    ast.BitAnd: "|",
}


Located = ast.expr | ast.stmt


@dataclass(frozen=True)
class Mutant:
    """One change: the bytes from (line, col) to (end_line, end_col) of `module` become
    `replacement` (columns are UTF-8 byte offsets, as `ast` gives them)."""

    module: Path
    index: int
    line: int
    col: int
    end_line: int
    end_col: int
    replacement: str
    what: str
    # The first line of the statement it is in: a constant of a literal list or tuple
    # (`__all__`) is folded into its statement, and only that line is ever run.
    statement_line: int = 0
    # Run when the module is imported (not in a function's or a lambda's body): a
    # constant, a class body, a default, a decorator, an option's help.
    at_import: bool = False

    @property
    def name(self) -> str:
        return f"{self.module}:{self.line}#{self.index}"

    def apply(self, source: bytes) -> bytes:
        starts = _line_starts(source)
        begin = starts[self.line - 1] + self.col
        end = starts[self.end_line - 1] + self.end_col
        return source[:begin] + self.replacement.encode() + source[end:]

    def diff(self, source: bytes) -> str:
        before = source.decode().splitlines(keepends=True)
        after = self.apply(source).decode().splitlines(keepends=True)
        lines = difflib.unified_diff(before, after, str(self.module), str(self.module), n=1)
        return "".join(lines)


def _line_starts(source: bytes) -> list[int]:
    starts = [0]
    for at, byte in enumerate(source):
        if byte == 0x0A:
            starts.append(at + 1)
    return starts


def mutants_of(module: Path, source: bytes) -> list[Mutant]:
    tree = ast.parse(source)
    lines = source.decode().splitlines()
    found: list[Mutant] = []
    statements = _statement_lines(tree)
    called = _in_bodies(tree)
    for node, replacement, what in _changes(tree):
        line, end_line = node.lineno, node.end_lineno or node.lineno
        if NO_MUTATE in lines[line - 1] or NO_MUTATE in lines[end_line - 1]:
            continue
        col, end_col = node.col_offset, node.end_col_offset or 0
        at = statements.get(id(node), line)
        where = (module, len(found), line, col, end_line, end_col)
        found.append(Mutant(*where, replacement, what, at, id(node) not in called))
    return found


def _in_bodies(tree: ast.Module) -> set[int]:
    """The nodes in the body of a function or a lambda: run when it is called, not when
    the module is imported (its decorators, defaults and annotations are)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.update(id(n) for statement in node.body for n in ast.walk(statement))
        elif isinstance(node, ast.Lambda):
            found.update(id(n) for n in ast.walk(node.body))
    return found


def _statement_lines(tree: ast.Module) -> dict[int, int]:
    """The first line of the innermost statement holding each expression node; for a
    decorator's, the decorator's own first line (where coverage.py records it)."""
    found: dict[int, int] = {}
    for statement in ast.walk(tree):
        if isinstance(statement, ast.stmt):
            decorators = {id(d): d.lineno for d in getattr(statement, "decorator_list", ())}
            todo = [
                (child, decorators.get(id(child), statement.lineno))
                for child in ast.iter_child_nodes(statement)
            ]
            while todo:
                node, first = todo.pop()
                if not isinstance(node, ast.stmt):
                    found[id(node)] = first
                    todo.extend((child, first) for child in ast.iter_child_nodes(node))
    return found


def _skipped(tree: ast.Module) -> set[int]:
    """Nodes never mutated: docstrings, annotations, imports, `if TYPE_CHECKING:`."""
    skip: set[int] = set()

    def drop(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                drop(body[0])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            drop(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                drop(arg.annotation)
            for extra in (node.args.vararg, node.args.kwarg):
                if extra is not None:
                    drop(extra.annotation)
        elif isinstance(node, ast.AnnAssign):
            drop(node.annotation)
        elif isinstance(node, ast.ClassDef):
            for keyword in _frozen_keywords(node):
                drop(keyword)
        elif _left_alone(node):
            drop(node)
    return skip


def _frozen_keywords(node: ast.ClassDef) -> Iterator[ast.keyword]:
    """`frozen=True` of a `@dataclass(...)` decorator: dropping it changes what mypy
    checks (no assignment to a field), not what runs, unless an instance is hashed, which
    fails at once. Such mutants were the largest class of equivalent ones the
    out-of-sample seeds drew (docs/mutation-testing.md), so they are not made."""
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("dataclass"):
            yield from (k for k in decorator.keywords if k.arg == "frozen")


def _left_alone(node: ast.AST) -> bool:
    """Imports, `if TYPE_CHECKING:`, and f-strings (their parts have no source of their
    own in Python 3.11)."""
    if isinstance(node, ast.If):
        return "TYPE_CHECKING" in ast.unparse(node.test)
    return isinstance(node, ast.Import | ast.ImportFrom | ast.JoinedStr)


def _changes(tree: ast.Module) -> Iterator[tuple[Located, str, str]]:
    skip = _skipped(tree)
    for node in ast.walk(tree):
        if id(node) not in skip:
            yield from _of_node(node, skip)


def _of_node(node: ast.AST, skip: set[int]) -> Iterator[tuple[Located, str, str]]:
    if not isinstance(node, ast.expr | ast.stmt):
        return
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        for other in _COMPARE.get(type(node.ops[0]), ()):
            text = f"{ast.unparse(node.left)} {other} {ast.unparse(node.comparators[0])}"
            yield node, text, f"comparison to `{other}`"
    elif isinstance(node, ast.BoolOp):
        other = " or " if isinstance(node.op, ast.And) else " and "
        yield node, other.join(f"({ast.unparse(v)})" for v in node.values), f"`{other.strip()}`"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node, f"({ast.unparse(node.operand)})", "`not` dropped"
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        other = _BINARY[type(node.op)]
        text = f"({ast.unparse(node.left)}) {other} ({ast.unparse(node.right)})"
        yield node, text, f"operator to `{other}`"
    elif isinstance(node, ast.Constant):
        yield from _of_constant(node)
    else:
        yield from _of_statement(node)
    if isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg is not None and id(keyword) not in skip:
                kept = [k for k in node.keywords if k is not keyword]
                call = ast.Call(node.func, node.args, kept)
                yield node, ast.unparse(call), f"argument `{keyword.arg}` dropped"


def _of_constant(node: ast.Constant) -> Iterator[tuple[Located, str, str]]:
    value = node.value
    if isinstance(value, bool):
        yield node, repr(not value), f"`{not value}`"
    elif isinstance(value, int):
        yield node, repr(value + 1), f"`{value + 1}`"
    elif isinstance(value, float):
        yield node, repr(value + 1.0), f"`{value + 1.0}`"
    elif isinstance(value, str) and value:
        yield node, repr(f"XX{value}XX"), "string changed"


def _of_statement(node: ast.AST) -> Iterator[tuple[Located, str, str]]:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call | ast.Await):
        yield node, "pass", "call removed"
    elif isinstance(node, ast.AugAssign | ast.Raise):
        yield node, "pass", "statement removed"
    elif isinstance(node, ast.Assign) and not _is_none(node.value):
        targets = " = ".join(ast.unparse(t) for t in node.targets)
        if not any(isinstance(t, ast.Tuple | ast.List) for t in node.targets):
            yield node, f"{targets} = None", "assigned `None`"
    elif isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value):
        yield node, "return None", "`return None`"
    elif isinstance(node, ast.Break):
        yield node, "continue", "`continue`"
    elif isinstance(node, ast.Continue):
        yield node, "break", "`break`"


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def read_mutants(root: Path, module: Path) -> list[Mutant]:
    return mutants_of(module, (root / module).read_bytes())

"""HTTP is httpx's business, measured on the package's syntax trees (DESIGN §5: the clients
are httpx clients on httpx's default transport; the sandbox is served by uvicorn).

- No module implements HTTP: none imports a wire-protocol library (h11, httptools,
  httpcore, uvicorn's protocols), and no string or bytes constant holds a piece of an
  HTTP/1.x message (a version `HTTP/1.0`/`HTTP/1.1`, or a CRLF line end).
- No class subclasses one of asyncio's protocols (`asyncio.Protocol` and its kin,
  however imported); `typing.Protocol` is not one of them.
- No module writes an attribute of httpx's that starts with `_`: a private name httpx
  sets on its own objects (read from httpx's source) is never assigned or deleted on
  another object, nor set through `setattr`/`object.__setattr__`, nor on `self` in a
  class that derives from one of httpx's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import httpx
import pytest

import reconciler

PACKAGE = Path(reconciler.__file__).parent
WIRE_LIBRARIES = ("h11", "httptools", "httpcore", "uvicorn.protocols")
ASYNCIO_PROTOCOLS = frozenset(
    {"BaseProtocol", "Protocol", "BufferedProtocol", "DatagramProtocol", "SubprocessProtocol"}
)
HTTP_TEXT = re.compile(r"HTTP/1\.[01]|\r\n")


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE).as_posix()}:{getattr(node, 'lineno', 0)}"


@cache
def httpx_private_names() -> frozenset[str]:
    """The `_name` attributes httpx assigns on its own objects (`self._name = ...`)."""
    names: set[str] = set()
    for path in Path(httpx.__file__).parent.rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                names.add(node.attr)
    return frozenset(names)


def wire_imports(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        else:
            continue
        if any(m == lib or m.startswith(f"{lib}.") for m in modules for lib in WIRE_LIBRARIES):
            yield node


def http_text(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            if HTTP_TEXT.search(text):
                yield node


def asyncio_protocol_classes(tree: ast.AST) -> Iterator[ast.ClassDef]:
    """Classes deriving from `asyncio.<X>Protocol`, `asyncio.protocols.<X>`, or such a
    name imported from asyncio."""
    from_asyncio = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("asyncio")
        for alias in node.names
        if alias.name in ASYNCIO_PROTOCOLS
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            text = ast.unparse(base)
            dotted = text.startswith("asyncio.") and text.rsplit(".", 1)[1] in ASYNCIO_PROTOCOLS
            if dotted or text in from_asyncio:
                yield node


def _httpx_classes(tree: ast.AST) -> Iterator[ast.ClassDef]:
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("httpx")
        for alias in node.names
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            ast.unparse(base).startswith("httpx.") or ast.unparse(base) in imported
            for base in node.bases
        ):
            yield node


def _stored_attributes(tree: ast.AST) -> Iterator[ast.Attribute]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def private_httpx_writes(tree: ast.AST) -> Iterator[ast.AST]:
    private = httpx_private_names()
    for node in _stored_attributes(tree):
        if node.attr in private and not _is_self(node.value):
            yield node
    for cls in _httpx_classes(tree):
        for node in _stored_attributes(cls):
            if node.attr in private and _is_self(node.value):
                yield node
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        name = ast.unparse(node.func)
        target, attribute = node.args[0], node.args[1]
        if (
            name in ("setattr", "delattr", "object.__setattr__", "object.__delattr__")
            and isinstance(attribute, ast.Constant)
            and attribute.value in private
            and not (name == "object.__setattr__" and _is_self(target))
        ):
            yield node


CHECKS = {
    "imports a wire-protocol library": wire_imports,
    "holds a piece of an HTTP/1.x message": http_text,
    "subclasses an asyncio protocol": asyncio_protocol_classes,
    "writes a private attribute of httpx's": private_httpx_writes,
}


@pytest.mark.parametrize("rule", list(CHECKS))
def test_no_module_of_the_package_breaks_the_rule(rule: str) -> None:
    found = [_where(path, node) for path in _modules() for node in CHECKS[rule](_tree(path))]
    assert found == [], f"{rule}: {found}"


SAMPLES = {
    "imports a wire-protocol library": [
        "import h11",
        "from httpcore import AsyncConnectionPool",
        "import uvicorn.protocols.http.auto as auto",
    ],
    "holds a piece of an HTTP/1.x message": [
        "HEAD = b'HTTP/1.1 200 OK'",
        "END = '\\r\\n'",
    ],
    "subclasses an asyncio protocol": [
        "import asyncio\nclass C(asyncio.Protocol): pass",
        "from asyncio import BufferedProtocol as B\nclass C(B): pass",
        "import asyncio\nclass C(asyncio.protocols.BaseProtocol): pass",
    ],
    "writes a private attribute of httpx's": [
        "response._content = b''",
        "del url._uri_reference",
        "setattr(response, '_content', b'')",
        "import httpx\nclass C(httpx.AsyncClient):\n    def f(self): self._transport = None",
        "from httpx import Response\nclass R(Response):\n    def f(self): self._content = b''",
    ],
}
ALLOWED = {
    "imports a wire-protocol library": ["import httpx", "import uvicorn", "import h11x"],
    "holds a piece of an HTTP/1.x message": ["'HTTP/2'", "'a line\\n'", "'HTTPS'"],
    "subclasses an asyncio protocol": [
        "from typing import Protocol\nclass P(Protocol): pass",
        "import typing\nclass P(typing.Protocol): pass",
    ],
    "writes a private attribute of httpx's": [
        "class C:\n    def f(self): self._content = b''",  # its own object
        "thing._not_httpx_s = 1",
        "print(response._content)",  # read, not written
        "import httpx\nclass T(httpx.BaseTransport):\n    def f(self): self._inner = 1",
    ],
}


@pytest.mark.parametrize(("rule", "source"), [(r, s) for r in SAMPLES for s in SAMPLES[r]])
def test_each_rule_finds_what_it_forbids(rule: str, source: str) -> None:
    assert list(CHECKS[rule](ast.parse(source)))


@pytest.mark.parametrize(("rule", "source"), [(r, s) for r in ALLOWED for s in ALLOWED[r]])
def test_each_rule_leaves_what_it_allows(rule: str, source: str) -> None:
    assert not list(CHECKS[rule](ast.parse(source)))

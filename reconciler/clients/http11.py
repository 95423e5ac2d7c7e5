"""HTTP/1.1 on the wire for the clients' transport (transport.py): a request's head, and
an answer read from a buffer (RFC 9112). What it checks, as h11 does:

- the request: a token for the method and each field name, no control character or
  space in the target, no CR, LF or NUL in a field value (no header injection); a body
  framed by Content-Length (its length checked) or `Transfer-Encoding: chunked`;
- the answer: `HTTP/1.x` and a three-digit status; field names as tokens; its body framed
  (RFC 9112 §6.3) by nothing for HEAD, 1xx, 204 and 304, else by `chunked`, else by one
  Content-Length (repeats must agree), else by the end of the connection; a head of at
  most 100 KiB. Interim answers (1xx) are skipped. Anything else is an
  `httpx.RemoteProtocolError`, as httpcore raises for h11's complaints.

Field lines the client sends again and again (User-Agent, Authorization, Host...) are
checked and encoded once (`_LINES`), since every request carries them."""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx

MAX_HEAD = 100 * 1024  # the largest answer head accepted (httpcore's limit for h11)
_MAX_CHUNK_LINE = 1024
_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+")
_TARGET = re.compile(rb"[^\x00-\x20\x7f]+")
_UNSAFE_VALUE = re.compile(rb"[\x00\r\n]")
_STATUS = re.compile(rb"HTTP/1\.([0-9]) ([0-9]{3})(?: ([^\r\n]*))?")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_CHUNK = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
_LINE_END = re.compile(rb"\r?\n")
_LINES: dict[tuple[bytes, bytes], bytes] = {}  # (name, value) -> b"name: value\r\n"
_LINES_KEPT = 512

UNTIL_CLOSE = -1  # `Head.length` of a body that ends with the connection
CHUNKED = -2


def request_head(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]) -> bytes:
    """`METHOD target HTTP/1.1`, the field lines and the blank line."""
    if not _TOKEN.fullmatch(method) or not _TARGET.fullmatch(target):
        raise httpx.LocalProtocolError(f"not a valid request line: {method!r} {target!r}")
    parts = [method, b" ", target, b" HTTP/1.1\r\n"]
    for pair in headers:
        line = _LINES.get(pair)
        if line is None:
            line = _field_line(*pair)
            if len(_LINES) >= _LINES_KEPT:
                _LINES.clear()
            _LINES[pair] = line
        parts.append(line)
    parts.append(b"\r\n")
    return b"".join(parts)


def _field_line(name: bytes, value: bytes) -> bytes:
    if not _TOKEN.fullmatch(name) or _UNSAFE_VALUE.search(value):
        raise httpx.LocalProtocolError(f"not a valid header field: {name!r}")
    return b"%s: %s\r\n" % (name, value.strip(b" \t"))


def framing(headers: list[tuple[bytes, bytes]]) -> tuple[int | None, bool]:
    """How a request's headers frame its body (CHUNKED, a length, or None: no body), and
    whether they ask to close the connection after the answer."""
    length: int | None = None
    closing = False
    for name, value in headers:
        lower = name.lower()
        if lower == b"transfer-encoding":
            if value.strip().lower() != b"chunked":
                raise httpx.LocalProtocolError("only Transfer-Encoding: chunked is supported")
            length = CHUNKED
        elif lower == b"content-length" and length != CHUNKED:
            if not value.strip().isdigit():
                raise httpx.LocalProtocolError(f"not a valid Content-Length: {value!r}")
            length = int(value)
        elif lower == b"connection":
            closing = closing or b"close" in value.lower()
    return length, closing


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data) if data else b""


LAST_CHUNK = b"0\r\n\r\n"


@dataclass(slots=True)  # pragma: no mutate
class Head:
    """An answer's status line and fields, and how its body is framed."""

    status: int
    reason: bytes
    minor: int  # HTTP/1.<minor>
    headers: list[tuple[bytes, bytes]]
    length: int  # bytes of body, UNTIL_CLOSE or CHUNKED
    keep_alive: bool


def parse_head(buffer: bytearray, method: bytes) -> Head | None:
    """The answer's head at the start of `buffer` (removed from it), None when more bytes
    are needed. Interim (1xx) answers before it are dropped."""
    while True:
        found = _HEAD_END.search(buffer, 0, MAX_HEAD + 4)
        if found is None:
            if len(buffer) > MAX_HEAD:
                raise httpx.RemoteProtocolError("the answer's head is too large")
            return None
        lines = _LINE_END.split(bytes(buffer[: found.start()]))
        del buffer[: found.end()]
        status = _STATUS.fullmatch(lines[0])
        if status is None:
            raise httpx.RemoteProtocolError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
        code = int(status[2])
        if code == 101 or code < 100:
            raise httpx.RemoteProtocolError(f"unexpected status {code}")
        if code >= 200:
            minor = int(status[1])
            return _head(code, status[3] or b"", minor, _fields(lines[1:]), method)


def _fields(lines: list[bytes]) -> list[tuple[bytes, bytes]]:
    fields: list[tuple[bytes, bytes]] = []
    for line in lines:
        if line[:1] in (b" ", b"\t"):  # obsolete line folding: part of the last value
            if not fields:
                raise httpx.RemoteProtocolError("a folded header line without a header")
            name, value = fields[-1]
            fields[-1] = (name, value + b" " + line.strip(b" \t"))
            continue
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            raise httpx.RemoteProtocolError(f"not a header line: {line[:80]!r}")
        fields.append((name, value.strip(b" \t")))
    return fields


def _head(
    code: int, reason: bytes, minor: int, fields: list[tuple[bytes, bytes]], method: bytes
) -> Head:
    lengths: set[bytes] = set()
    coding: bytes | None = None
    keep_alive = minor >= 1
    for name, value in fields:
        lower = name.lower()
        if lower == b"content-length":
            lengths.update(part.strip() for part in value.split(b","))
        elif lower == b"transfer-encoding":
            coding = value if coding is None else coding + b"," + value
        elif lower == b"connection" and b"close" in value.lower().replace(b" ", b"").split(b","):
            keep_alive = False
    if method == b"HEAD" or code in (204, 304) or code < 200:
        length = 0
    elif coding is not None:
        if coding.strip().lower() != b"chunked":
            raise httpx.RemoteProtocolError(f"unsupported Transfer-Encoding: {coding!r}")
        length = CHUNKED
    elif lengths:
        if len(lengths) > 1 or not all(part.isdigit() for part in lengths):
            raise httpx.RemoteProtocolError(f"conflicting or bad Content-Length: {lengths!r}")
        length = int(lengths.pop())
    else:
        length, keep_alive = UNTIL_CLOSE, False
    return Head(code, reason, minor, fields, length, keep_alive)


class Chunks:
    """Reads a chunked body out of a buffer, across as many reads as it takes."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.done = False
        self._left = 0  # bytes of the current chunk's data still to read
        self._crlf = False  # the CRLF after a chunk's data is next
        self._trailers = False

    def feed(self, buffer: bytearray) -> None:
        """Take what `buffer` holds of the body (removed from it)."""
        while not self.done and buffer:
            if self._left:
                take = min(self._left, len(buffer))
                self.parts.append(bytes(buffer[:take]))
                del buffer[:take]
                self._left -= take
                continue
            if self._trailers:
                step = self._trailer_line(buffer)
            elif self._crlf:
                step = self._end_of_data(buffer)
            else:
                step = self._size_line(buffer)
            if not step:
                return

    def _size_line(self, buffer: bytearray) -> bool:
        found = _CHUNK.match(buffer)
        if found is None:
            if b"\n" in buffer or len(buffer) > _MAX_CHUNK_LINE:
                raise httpx.RemoteProtocolError("not a valid chunk size line")
            return False
        size = int(found[1], 16)
        del buffer[: found.end()]
        self._trailers = size == 0
        self._left, self._crlf = size, size > 0
        return True

    def _end_of_data(self, buffer: bytearray) -> bool:
        if buffer[:2] == b"\r\n":
            del buffer[:2]
        elif buffer[:1] == b"\n":
            del buffer[:1]
        elif buffer == b"\r":
            return False
        else:
            raise httpx.RemoteProtocolError("a chunk's data not followed by CRLF")
        self._crlf = False
        return True

    def _trailer_line(self, buffer: bytearray) -> bool:
        found = _LINE_END.search(buffer)
        if found is None:
            if len(buffer) > MAX_HEAD:
                raise httpx.RemoteProtocolError("the trailers are too large")
            return False
        self.done = found.start() == 0  # the blank line ends the body
        del buffer[: found.end()]
        return True

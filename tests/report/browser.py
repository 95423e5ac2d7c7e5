"""A small client of the Chrome DevTools protocol, to test the HTML report in a real
browser: the system's Chromium (Debian's `chromium` package), headless, with a fresh
profile, every host name resolving to nothing (no test reaches the network), and every
request the page makes recorded (`requests`)."""

from __future__ import annotations

import base64
import itertools
import json
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import websocket

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
_LISTENING = re.compile(r"DevTools listening on (ws://\S+)")
TIMEOUT = 60


def chromium_path() -> str | None:
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


class Page:
    """One tab, attached with a flat session; commands wait for their answer, and the
    events that arrive meanwhile are kept."""

    def __init__(self, socket: websocket.WebSocket) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []
        self._session: str | None = None
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        attached = self.send("Target.attachToTarget", targetId=target, flatten=True)
        self._session = attached["sessionId"]
        self.send("Network.enable")
        self.send("Page.enable")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if self._session:
            message["sessionId"] = self._session
        self._socket.send(json.dumps(message))
        while True:
            answer = json.loads(self._socket.recv())
            if answer.get("id") == ident:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def wait_for(self, event: str) -> dict[str, Any]:
        for seen in self.events:
            if seen.get("method") == event:
                self.events.remove(seen)
                return seen
        while True:
            answer = json.loads(self._socket.recv())
            if answer.get("method") == event:
                return answer
            self.events.append(answer)

    def open(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        answer = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    @property
    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self, path: Path, width: int, height: int = 900) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(data["data"]))

    def pdf(self) -> bytes:
        return base64.b64decode(self.send("Page.printToPDF")["data"])


@contextmanager
def chromium() -> Iterator[Page]:
    """A headless Chromium, stopped (and its profile removed) on leaving."""
    binary = chromium_path()
    assert binary, "no chromium"
    with tempfile.TemporaryDirectory() as profile:
        process = subprocess.Popen(
            [
                binary,
                "--headless=new",
                "--no-sandbox",  # root in a container has no user namespace sandbox
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            url = _devtools_url(process)
            socket = websocket.create_connection(url, timeout=TIMEOUT, suppress_origin=True)
            try:
                yield Page(socket)
            finally:
                socket.close()
        finally:
            process.terminate()
            try:
                process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _devtools_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        match = _LISTENING.search(line)
        if match:
            # Keep reading what it writes, so that a full pipe never stops it.
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return match.group(1)
    raise RuntimeError("chromium did not start: " + "".join(seen[-20:]))

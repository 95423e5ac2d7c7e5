"""A FIFO given as a manifest, with no process writing to it, is refused at once: opened
without blocking, then seen to be no regular file. Opened the blocking way, the run would
wait for a writer for ever; the test bounds that wait and then releases the reader."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from reconciler.manifest.files import FileRefused, read_regular_file


def test_a_fifo_without_a_writer_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    refused: list[str] = []

    def read() -> None:
        try:
            read_regular_file(fifo)
        except FileRefused as exc:
            refused.append(str(exc))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)  # a bound on a hang, not a measure: refusing takes microseconds
    if reader.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a writer releases it
        reader.join()
        pytest.fail("opening a FIFO without a writer waited for one")
    assert refused == ["it is a FIFO (named pipe), not a regular file"]

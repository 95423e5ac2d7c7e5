"""Reading a manifest file (manifest/files.py) past what `fstat` said: a file that grew
after it was measured is still refused over the cap (never read past it), and an error
while reading is a refusal naming it, not an empty manifest."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reconciler.manifest import files
from reconciler.manifest.files import FileRefused, read_regular_file

MIB = 1 << 20


@pytest.mark.parametrize("grown_to", [2 * MIB + 1, 3 * MIB])
def test_a_file_that_grew_after_it_was_measured_is_refused_over_the_cap(
    grown_to: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.yaml"
    path.write_bytes(b"x" * grown_to)
    measured = os.fstat

    def fstat(fd: int) -> Any:  # as measured before a writer appended to it
        info = measured(fd)
        return os.stat_result((info.st_mode, *info[1:6], 10, *info[7:]))

    monkeypatch.setattr(files.os, "fstat", fstat)
    with pytest.raises(FileRefused) as refused:
        read_regular_file(path, 2 * MIB)
    assert str(refused.value) == (
        f"it is larger than 2 MiB ({2 * MIB + 1:,} bytes or more); split it into several files"
    )


def test_an_error_while_reading_is_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("companies: []\n", encoding="utf-8")

    def read(fd: int, size: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files.os, "read", read)
    with pytest.raises(FileRefused, match=r"^Input/output error$"):
        read_regular_file(path)

"""Two things `validate` says before anything is read live: a `previously:` that cannot be
applied (manifest/renames.py), and a path that is no manifest file (manifest/files.py:
a FIFO, a device, a file over the size cap), each as the `file:line:column` line the user
reads."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.kinds.table import spec
from reconciler.manifest import files
from reconciler.manifest.files import FileRefused, read_regular_file
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.renames import formers_of, live_value
from reconciler.manifest.validate import validate_manifests
from tests.manifest.refusals import problems_of

RENAMES = [
    (
        "the entry's own key",
        "companies:\n  - name: Acme\n    previously: [ACME]\n",
        ["3:18: former key 'ACME' is this company's own key"],
    ),
    (
        "another entry's key",
        "companies:\n  - name: Acme\n    previously: [Globex]\n  - name: Globex\n",
        [
            "3:18: former key 'Globex' is the key of another entry (company 'Globex'): a chain "
            "or a swap of keys cannot be applied in one plan; rename one step at a time "
            "(docs/renaming.md)"
        ],
    ),
    (
        "claimed by two entries",
        "users:\n  - username: a\n    previously: [old]\n  - username: b\n    previously: [OLD]\n",
        [
            "5:18: former key 'OLD' is also listed under user 'a': one live user cannot become "
            "two; keep it under one entry"
        ],
    ),
    (
        "claimed by two employees, the first keyed with spaces around its id",
        "settings:\n  employee_key: employee_id\nworkspace:\n  employees:\n"
        '    - employee_id: " E1 "\n      previously: [E0]\n'
        "    - employee_id: E2\n      previously: [E0]\n",
        [
            "8:20: former key 'E0' is also listed under employee 'E1': one live employee "
            "cannot become two; keep it under one entry"
        ],
    ),
    (
        "another employee's id, the employee key compared as written",
        "settings:\n  employee_key: employee_id\nworkspace:\n  employees:\n"
        "    - employee_id: E1\n      previously: [E2]\n    - employee_id: E2\n",
        [
            "6:20: former key 'E2' is the key of another entry (employee 'E2'): a chain or a "
            "swap of keys cannot be applied in one plan; rename one step at a time "
            "(docs/renaming.md)"
        ],
    ),
    (
        "an asset's own serial number",
        "assets:\n  - serial_number: S1\n    previously: [s1]\n",
        ["3:18: former key 's1' is this asset's own key"],
    ),
    (
        "an employee's own e-mail in another case",
        "workspace:\n  employees:\n    - email: a@b.com\n      previously: [A@B.com]\n",
        ["4:20: former key 'A@B.com' is this employee's own key"],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "problems"), [r[1:] for r in RENAMES], ids=[r[0] for r in RENAMES]
)
@pytest.mark.usefixtures("no_network")
def test_a_rename_that_cannot_be_applied(
    manifest: str, problems: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert problems_of(manifest) == [f"m.yaml:{p}" for p in problems]


@pytest.mark.usefixtures("no_network")
def test_renames_that_can_be_applied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(
        "assets:\n  - serial_number: S2\n    previously: [S1]\n"
        "users:\n  - username: a\n    previously: [old, Old]\n",
        encoding="utf-8",
    )
    validated = validate_manifests([Path("m.yaml")], {})
    assert validated.warnings == ["m.yaml:6:23: 'Old' is listed twice in previously"]


@pytest.mark.usefixtures("no_network")
def test_a_path_that_is_no_manifest_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe.yaml")
    with pytest.raises(ManifestError) as refused:
        validate_manifests([Path("pipe.yaml"), Path("/dev/null"), Path("gone.yaml")], {})
    assert refused.value.problems == [
        "pipe.yaml:1:1: cannot read the file: it is a FIFO (named pipe), not a regular file",
        "/dev/null:1:1: cannot read the file: it is a device, not a regular file",
        "gone.yaml:1:1: no such file or directory",
    ]


@pytest.mark.parametrize(
    ("size", "limit", "refusal"),
    [
        (11, 11, None),
        (0, 0, None),
        (11, 10, "it is larger than 0 MiB (11 bytes or more); split it into several files"),
        (
            3 * 1024 * 1024,
            2 * 1024 * 1024,
            "it is larger than 2 MiB (3,145,728 bytes or more); split it into several files",
        ),
    ],
)
def test_the_size_cap(size: int, limit: int, refusal: str | None, tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_bytes(b"x" * size)
    if refusal is None:
        assert read_regular_file(path, limit) == b"x" * size
    else:
        with pytest.raises(FileRefused) as refused:
            read_regular_file(path, limit)
        assert str(refused.value) == refusal


def test_a_directory_or_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match=r"^it is a directory, not a (regular )?file$"):
        read_regular_file(tmp_path)
    with pytest.raises(FileRefused, match=r"^No such file or directory$"):
        read_regular_file(tmp_path / "gone.yaml")


def test_the_size_cap_of_every_manifest_and_variables_file_is_32_mib(tmp_path: Path) -> None:
    """The cap docs/commands.md states, in-process (the bad-input table's row
    runs the CLI in a child): one byte over it is refused, and the message says 32 MiB."""
    path = tmp_path / "m.yaml"
    with path.open("wb") as fh:
        fh.truncate(32 * 1024 * 1024 + 1)  # sparse: no 32 MiB written
    with pytest.raises(FileRefused) as refused:
        read_regular_file(path)
    assert str(refused.value).startswith("it is larger than 32 MiB (33,554,433 bytes or more)")


# A FIFO given as a manifest, with no process writing to it, is refused at once: opened without
# blocking, then seen to be no regular file. Opened the blocking way, the run would wait for a
# writer for ever; the test bounds that wait and then releases the reader.


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


# Reading a manifest file (manifest/files.py) past what `fstat` said: a file that grew after it
# was measured is still refused over the cap (never read past it), and an error while reading is a
# refusal naming it, not an empty manifest.

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


# `live_value` (manifest/renames.py), what a reader looks at for an entry: the live object of its
# key, else the one live object its former keys name (the reader hands it the entries' former
# keys, found once for every entry).

MANIFEST = """\
companies:
  - name: Acme Group
    previously: [Acme, ACME Ltd]
  - name: Initech
    previously: [Initrode]
  - name: Globex
"""


def test_an_entry_stands_for_the_live_object_of_its_one_live_former_key() -> None:
    desired = load_manifest_text(MANIFEST)
    row = spec("companies")
    live = {"acme": "live Acme", "initech": "live Initech", "initrode": "live Initrode"}
    formers = formers_of(desired, row)
    assert live_value(desired, row, "Acme Group", live, formers) == "live Acme"
    assert live_value(desired, row, " acme group ", live, formers) == "live Acme"
    # its own key is live: that one, not the former key's
    assert live_value(desired, row, "Initech", live, formers) == "live Initech"
    # no former key, and its key not live
    assert live_value(desired, row, "Globex", live, formers) is None
    # two of its former keys are live: which one it is cannot be told
    both = {"acme": "live Acme", "acme ltd": "live ACME Ltd"}
    assert live_value(desired, row, "Acme Group", both, formers) is None
    assert live_value(desired, row, "", live, formers) is None


def test_under_an_employee_key_other_than_e_mail_an_employee_is_looked_up_as_written() -> None:
    desired = load_manifest_text(
        "settings: {employee_key: employeeId}\n"
        "workspace:\n  employees:\n    - {employeeId: E5, previously: [E1], email: e5@acme.com}\n"
    )
    row = spec("workspace.employees")
    formers = formers_of(desired, row)
    assert live_value(desired, row, "E5", {"E5": "live E5"}, formers) == "live E5"
    assert live_value(desired, row, "E5", {"E1": "live E1"}, formers) == "live E1"
    # the same ids in another case are other employees
    assert live_value(desired, row, "E5", {"e5": "live e5", "e1": "live e1"}, formers) is None

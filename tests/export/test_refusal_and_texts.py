"""Two things an export's user reads: the refusal to write into a directory of manifests
names the first five and counts the rest; a live text is written as it reads, a
multi-line one as a block ending in one line break."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.export.entries import text
from reconciler.run.export import write_directory
from tests.export.test_output import result


def test_the_refusal_names_five_manifests_and_counts_the_rest(tmp_path: Path) -> None:
    for n in range(7):
        (tmp_path / f"m{n}.yaml").write_text("users: []\n")
    with pytest.raises(UsageError) as refused:
        write_directory(result(), tmp_path)
    shown = "m0.yaml, m1.yaml, m2.yaml, m3.yaml, m4.yaml and 2 more"
    assert f"already holds manifests ({shown})" in str(refused.value)


@pytest.mark.parametrize(
    ("live", "written"),
    [
        ("Key account  ", "Key account"),
        ("line one\nline two\n\n", "line one\nline two\n"),
        (None, ""),
        (42, "42"),
    ],
)
def test_a_live_text_is_written_as_it_reads(live: object, written: str) -> None:
    assert text(live) == written

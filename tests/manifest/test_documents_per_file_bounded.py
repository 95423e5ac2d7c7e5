"""A manifest file holds at most `MAX_DOCUMENTS` YAML documents (empty ones count): past
that, one problem naming the file and the line of the first document too many, and the
rest of the file is not read, so that a file of millions of `---` ends in seconds rather
than minutes and gigabytes. Both parsers (libyaml's and ruamel.yaml's) stop alike."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import yamltree
from reconciler.manifest.loader import load_manifest_text, load_manifests
from reconciler.manifest.yamltree import MAX_DOCUMENTS, parse_documents


def problems_of(text: str, *, libyaml: bool) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    parse_documents(text, lambda *p: found.append(p), lambda v: (v, []), libyaml=libyaml)
    return found


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "ruamel"])
def test_one_document_past_the_bound_is_a_problem_at_its_line(
    libyaml: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(yamltree, "MAX_DOCUMENTS", 3)
    three = "companies: []\n---\n" * 2 + "companies: []\n"
    assert problems_of(three, libyaml=libyaml) == []
    four = three + "---\ncompanies: []\n"
    assert problems_of(four, libyaml=libyaml) == [
        (7, 1, "more than 3 YAML documents in one file; the rest is not read: split it "
         "into several files"),
    ]  # fmt: skip


def test_empty_documents_count_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamltree, "MAX_DOCUMENTS", 3)
    with pytest.raises(ManifestError) as raised:
        load_manifest_text("---\n" * 5 + "companies: []\n", "m.yaml")
    assert raised.value.problems == [
        # The fourth `---` is on line 4; its empty document is placed where the next starts.
        "m.yaml:5:1: more than 3 YAML documents in one file; the rest is not read: split it "
        "into several files"
    ]


def test_a_file_of_a_million_documents_ends_in_seconds(tmp_path: Path) -> None:
    many = tmp_path / "many.yaml"
    many.write_text("companies: []\n---\n" * 1_000_000, encoding="utf-8")  # 18 MB
    started = time.monotonic()
    with pytest.raises(ManifestError) as raised:
        load_manifests([many], {})
    elapsed = time.monotonic() - started
    line = 2 * MAX_DOCUMENTS + 1
    assert raised.value.problems == [
        f"{many}:{line}:1: more than {MAX_DOCUMENTS:,} YAML documents in one file; the rest "
        "is not read: split it into several files"
    ]
    assert elapsed < 60  # about 3 s; all of them took about a minute and a half

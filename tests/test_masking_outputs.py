"""Credentials never reach an output (reconciler/masking.py): which variables are
credentials, every form of a value that is masked, the Basic header cut short, the
streams the CLI writes through, and the files of output (masked, whole or not at all,
an unwritable path named in one line)."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler import masking
from reconciler.errors import UsageError
from reconciler.masking import (
    REDACTED,
    Masker,
    MaskingStream,
    credential_names,
    install,
    mask,
    register,
    register_basic,
    unwritable_reason,
    write_text,
)

BUILT_IN = ["HELPDESK_TOKEN", "HELPDESK_PASSWORD", "WORKSPACE_API_KEY"]


@pytest.fixture(autouse=True)
def _masking_as_before() -> Iterator[None]:
    """`install` and `register` change what the whole process masks: put it back."""
    before = masking._active
    yield
    masking._active = before


@pytest.mark.parametrize(
    ("setting", "names"),
    [
        (None, BUILT_IN),
        ("", BUILT_IN),
        ("  ", BUILT_IN),
        ("SMTP_PASS", [*BUILT_IN, "SMTP_PASS"]),
        ("\tA\n B ,, C", [*BUILT_IN, "A", "B", "C"]),
        ("HELPDESK_TOKEN, A, A", [*BUILT_IN, "A"]),  # each name once, in the first place
    ],
)
def test_the_credential_variables(setting: str | None, names: list[str]) -> None:
    env = {} if setting is None else {"RECONCILER_SECRET_VARIABLES": setting}
    assert credential_names(env) == names


def test_install_masks_every_credential_variable_that_is_set() -> None:
    env = {
        "HELPDESK_TOKEN": "token-value",
        "HELPDESK_PASSWORD": "",  # set but empty: nothing to mask
        "RECONCILER_SECRET_VARIABLES": "SMTP_PASS LDAP_KEY",  # LDAP_KEY not set
        "SMTP_PASS": "smtp-secret",
        "NOT_A_CREDENTIAL": "plain-value",
    }
    masker = install(env)
    text = "token-value smtp-secret plain-value"
    assert masker.mask(text) == f"{REDACTED} {REDACTED} plain-value"
    assert mask(text) == f"{REDACTED} {REDACTED} plain-value"  # from now on, everywhere
    install({})
    assert mask(text) == text


def test_what_a_client_registers_is_masked_from_then_on() -> None:
    install({})
    assert mask("key: abcd-1234") == "key: abcd-1234"
    register("abcd-1234", "xy")  # too short to mask: readable output matters more
    assert mask("key: abcd-1234, xy") == f"key: {REDACTED}, xy"


def test_a_registered_basic_token_is_masked_alone_and_cut_short() -> None:
    install({})
    token = "YWRtaW46c2VjcmV0LXBhc3N3b3Jk"  # base64 of admin:secret-password
    register_basic(token)
    assert mask(token) == REDACTED
    assert mask(f"Authorization: Basic {token[:10]}...") == f"Authorization: Basic {REDACTED}..."


@pytest.mark.parametrize(
    ("value", "text", "shown"),
    [
        ("abcd", "x abcd y", f"x {REDACTED} y"),  # exactly the shortest masked
        ("abc", "x abc y", "x abc y"),
        ("tab\there", "tab\\there", REDACTED),  # control characters escaped, as messages show
        ("a/b c+d", "a%2Fb%20c%2Bd", REDACTED),  # a URL path segment
        ("a/b c+d", "a/b%20c%2Bd", REDACTED),  # a URL path
        ("a/b c+d", "a%2Fb+c%2Bd", REDACTED),  # a form field
        ('say "hi"', 'say \\"hi\\"', REDACTED),  # inside JSON
    ],
)
def test_the_forms_of_a_value_that_are_masked(value: str, text: str, shown: str) -> None:
    assert Masker([value]).mask(text) == shown


def test_the_longest_value_wins_where_one_holds_another() -> None:
    masker = Masker(["abcd"])
    masker.add(["abcdefgh"])
    assert masker.mask("abcdefgh and abcd") == f"{REDACTED} and {REDACTED}"
    assert Masker(["abcd", "abcdefgh"]).mask("[abcdefgh]") == f"[{REDACTED}]"


def test_a_masker_is_true_when_it_masks_something() -> None:
    assert not Masker([])
    assert Masker(["abcd"])
    only_basic = Masker([])
    only_basic.add_basic("YWJj")  # as short as a token can be quoted: still a token
    assert only_basic


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Basic YWRtaW46c2VjcmV0", f"Basic {REDACTED}"),
        ("basic YWRtaW46", f"basic {REDACTED}"),  # cut short
        ("Basic YWRt", f"Basic {REDACTED}"),  # the shortest prefix masked
        ("Basic YWR", "Basic YWR"),  # shorter: could be anything
        ("Basic YWRtaW46c2VjcmV0Zm9v", f"Basic {REDACTED}"),  # the token, then more
        ("Basic Zm9vYmFy", "Basic Zm9vYmFy"),  # another token
    ],
)
def test_a_basic_header_as_a_server_may_quote_it(text: str, shown: str) -> None:
    masker = Masker([])
    masker.add_basic("YWRtaW46c2VjcmV0")  # admin:secret
    assert masker.mask(text) == shown


def test_an_output_file_is_masked_and_its_directories_made(tmp_path: Path) -> None:
    install({"HELPDESK_TOKEN": "token-value"})
    path = tmp_path / "out" / "deeper" / "plan.json"
    write_text(path, '{"token": "token-value"}\n')
    assert path.read_text(encoding="utf-8") == '{"token": "***"}\n'
    assert os.listdir(path.parent) == ["plan.json"]  # no partial file left beside it


def test_an_output_file_replaces_the_one_there_whole(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text("old content that is longer than the new one\n", encoding="utf-8")
    write_text(path, "new\n")
    assert path.read_text(encoding="utf-8") == "new\n"
    assert sorted(os.listdir(tmp_path)) == ["plan.md"]


def test_an_output_under_a_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file\n", encoding="utf-8")
    path = tmp_path / "out" / "plan.json"
    with pytest.raises(UsageError) as refused:
        write_text(path, "{}\n")
    assert (
        str(refused.value) == f"cannot write {path}: {tmp_path / 'out'} is a file, not a directory"
    )
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_an_output_that_is_a_directory_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "plan.json").mkdir()
    with pytest.raises(UsageError) as refused:
        write_text(tmp_path / "plan.json", "{}\n")
    assert str(refused.value) == f"cannot write {tmp_path / 'plan.json'}: it is a directory"
    assert sorted(os.listdir(tmp_path)) == ["plan.json"]  # the partial file removed
    assert os.listdir(tmp_path / "plan.json") == []


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (PermissionError(13, "Permission denied"), "permission denied"),
        (IsADirectoryError(21, "Is a directory"), "it is a directory"),
        (NotADirectoryError(20, "Not a directory"), "a part of it is a file"),
        (FileExistsError(17, "File exists"), "a part of it is a file"),
        (OSError(28, "No space left on device"), "No space left on device"),
        (OSError("no errno"), "OSError"),
    ],
)
def test_why_a_path_cannot_be_written(error: OSError, reason: str, tmp_path: Path) -> None:
    assert unwritable_reason(error, tmp_path / "missing" / "plan.json") == reason


def test_the_masking_stream_holds_back_to_the_end_of_a_line() -> None:
    out = io.StringIO()
    stream = MaskingStream(out, Masker(["secret-value"]))
    assert stream.write("a secret-") == len("a secret-")
    assert out.getvalue() == ""  # held back: the value may go on in the next piece
    stream.writelines(["value\n", "b secret", "-value c\n", "tail"])
    assert out.getvalue() == f"a {REDACTED}\nb {REDACTED} c\n"
    stream.flush()
    assert out.getvalue() == f"a {REDACTED}\nb {REDACTED} c\ntail"
    stream.flush()  # nothing pending: nothing written twice
    assert out.getvalue() == f"a {REDACTED}\nb {REDACTED} c\ntail"
    stream.write(" more secret-value\n")  # and it goes on after a flush
    assert out.getvalue() == f"a {REDACTED}\nb {REDACTED} c\ntail more {REDACTED}\n"


def test_the_masking_stream_passes_on_what_it_does_not_handle() -> None:
    class Terminal(io.StringIO):
        flushed = 0

        def isatty(self) -> bool:
            return True

        def flush(self) -> None:
            self.flushed += 1

    terminal = Terminal()
    stream = MaskingStream(terminal, Masker([]))
    assert stream.isatty() is True
    stream.flush()
    assert terminal.flushed == 1
    with pytest.raises(TypeError, match="write\\(\\) argument must be str, not int"):
        stream.write(1)  # type: ignore[arg-type]


def test_bytes_written_to_the_masking_stream_are_masked_as_text() -> None:
    """click's `echo` writes bytes to a stream without `buffer` (its shell completion does)."""
    real = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stream = MaskingStream(real, Masker(["secret-value"]))
    assert stream.write(b"plan secret-value \xc3\xa9\n") == len("plan secret-value é\n")
    stream.write(bytearray(b"secret-"))
    stream.write(b"value")
    stream.flush()
    real.seek(0)
    written = real.buffer.read().decode()  # type: ignore[attr-defined]
    assert "secret-value" not in written and written.count(REDACTED) == 2
    assert written.startswith(f"plan {REDACTED} é\n")


def test_writers_find_no_binary_buffer_around_the_masking() -> None:
    """click writes bytes to `stream.buffer` when there is one: a real stdout has one, the
    masking stream must not show it (else the bytes would go around the masking)."""
    real = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert hasattr(real, "buffer")
    stream = MaskingStream(real, Masker(["secret-value"]))
    assert not hasattr(stream, "buffer")
    assert stream.encoding == "utf-8"  # what it does not handle comes from the stream


VALUE = "pässwörd/ä b"  # outside ASCII, with a slash and a space


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"[{VALUE}]", f"[{REDACTED}]"),  # as written
        ("[p\\u00e4ssw\\u00f6rd/\\u00e4 b]", f"[{REDACTED}]"),  # JSON, ASCII only
        ("[p\\xe4ssw\\xf6rd/\\xe4 b]", f"[{REDACTED}]"),  # escaped as problem messages show
        ("[p%C3%A4ssw%C3%B6rd%2F%C3%A4%20b]", f"[{REDACTED}]"),  # a URL path segment
        ("[p%C3%A4ssw%C3%B6rd/%C3%A4%20b]", f"[{REDACTED}]"),  # a URL path
        ("[p%C3%A4ssw%C3%B6rd%2F%C3%A4+b]", f"[{REDACTED}]"),  # a form field
        ("[pässwörd/ä]", "[pässwörd/ä]"),  # a part of it: could be anything
    ],
)
def test_a_credential_outside_ascii_is_masked_in_every_form(text: str, shown: str) -> None:
    assert Masker([VALUE]).mask(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Authorization=Basic%20YWRtaW46c2Vj", f"Authorization=Basic%20{REDACTED}"),
        ("Authorization=Basic+YWRtaW46c2Vj", f"Authorization=Basic+{REDACTED}"),
        ("Basic\t Zm9vOmJhcg==", f"Basic\t {REDACTED}"),  # the second token, whole
        ("Basic Zm9vOmJh...", f"Basic {REDACTED}..."),  # the second token, cut short
        ("Basic Zm9vYmF6", "Basic Zm9vYmF6"),  # neither
        ("Basicly YWRtaW46c2Vj", "Basicly YWRtaW46c2Vj"),  # not the word Basic
    ],
)
def test_a_basic_header_of_either_registered_token_is_masked_however_quoted(
    text: str, shown: str
) -> None:
    masker = Masker([])
    masker.add_basic("YWRtaW46c2VjcmV0")  # admin:secret
    masker.add_basic("Zm9vOmJhcg==")  # foo:bar
    assert masker.mask(text) == shown


def test_a_credential_variable_set_but_empty_masks_nothing() -> None:
    try:
        installed = install(
            {"HELPDESK_TOKEN": "", "WORKSPACE_API_KEY": "key-of-the-workspace", "OTHER": "x-y-z"}
        )
        assert mask("token= key=key-of-the-workspace other=x-y-z") == (
            f"token= key={REDACTED} other=x-y-z"
        )
        assert installed
    finally:
        install({})
    assert mask("key=key-of-the-workspace") == "key=key-of-the-workspace"

"""Credentials never reach an output: the masking itself, and a plan and an apply (every
format, the saved plan, the apply log) whose manifests hold a credential's value."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reconciler.masking import REDACTED, Masker, MaskingStream, credential_names

SECRET = 'hunter2-Tok\u00e9n/+&"x'


def test_credential_names_include_the_extra_setting() -> None:
    env = {"RECONCILER_SECRET_VARIABLES": " SMTP_PASS,LDAP_KEY  OTHER,"}
    assert credential_names(env) == [
        "HELPDESK_TOKEN",
        "HELPDESK_PASSWORD",
        "WORKSPACE_API_KEY",
        "SMTP_PASS",
        "LDAP_KEY",
        "OTHER",
    ]


@pytest.mark.parametrize(
    "shown",
    [
        SECRET,
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET, ensure_ascii=False)[1:-1],
        "hunter2-Tok%C3%A9n%2F%2B%26%22x",
    ],
    ids=["plain", "json", "json-unicode", "url"],
)
def test_every_form_of_a_value_is_masked(shown: str) -> None:
    masked = Masker([SECRET]).mask(f"before {shown} after")
    assert masked == f"before {REDACTED} after"


def test_short_values_are_not_masked() -> None:
    assert Masker(["abc", ""]).mask("abc") == "abc"
    assert not Masker(["abc"])


def test_a_value_written_in_pieces_is_masked_in_the_stream() -> None:
    out = io.StringIO()
    stream = MaskingStream(out, Masker([SECRET]))
    stream.write("token: " + SECRET[:5])
    stream.write(SECRET[5:] + "\nnext ")
    stream.flush()
    assert out.getvalue() == f"token: {REDACTED}\nnext "
    stream.write(SECRET.encode() + b"\n")  # bytes (click's echo of them) are masked as text
    assert out.getvalue() == f"token: {REDACTED}\nnext {REDACTED}\n"
    with pytest.raises(AttributeError) as missing:
        stream.buffer  # noqa: B018  (click must not find a way around the masking)
    # Refused by the stream itself, not by the stream it wraps (which may have a buffer).
    assert (missing.value.args, missing.value.obj) == (("buffer",), stream)


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env.update(HELPDESK_TOKEN=SECRET, RECONCILER_SECRET_VARIABLES="EXTRA", EXTRA="extra-value")
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.e2e
def test_a_credential_in_a_manifest_never_reaches_an_output(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "companies:\n"
        f"  - name: Masked Co\n    notes: {json.dumps('key ' + SECRET + ' end')}\n"
        "  - name: Extra Co\n    notes: 'extra-value'\n",
        encoding="utf-8",
    )
    outputs = []
    for fmt in ("text", "json", "markdown"):
        result = _run(tmp_path, "plan", "m.yaml", "--sandbox", "--format", fmt, "--out", "p.json")
        assert result.returncode == 0, result.stderr
        assert "Masked Co" in result.stdout and REDACTED in result.stdout
        outputs += [result.stdout, result.stderr, (tmp_path / "p.json").read_text("utf-8")]
    applied = _run(tmp_path, "apply", "m.yaml", "--sandbox", "--yes", "--log", "log.jsonl")
    assert applied.returncode == 0, applied.stderr
    outputs += [applied.stdout, applied.stderr, (tmp_path / "log.jsonl").read_text("utf-8")]
    for output in outputs:
        assert "hunter2" not in output and "extra-value" not in output
        assert "Tok\\u00e9n" not in output

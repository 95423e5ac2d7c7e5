"""Under GitHub Actions no line of output runs as a workflow command: the runner executes a
line that starts with `::` after leading white space, or holds `##[`, and a manifest value,
a live name or a server's error text may hold one. The standard streams neutralise every
such line (masking.py), except the annotations the product writes on purpose."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.masking import Masker, MaskingStream, allow_commands, install, neutralise


def executed(output: str) -> list[str]:
    """The lines of `output` the runner would execute, read as it reads them: lines end at
    `\\n`, `\\r` or both, and a command is `::` after white space, or `##[` anywhere."""
    return [
        line
        for line in re.split(r"\r\n|\r|\n", output)
        if line.strip().startswith("::") or "##[" in line
    ]


def written(*pieces: str, commands: bool = True, flush_each: bool = False) -> str:
    out = io.StringIO()
    stream = MaskingStream(out, Masker([]), commands=commands)
    for piece in pieces:
        stream.write(piece)
        if flush_each:
            stream.flush()
    stream.flush()
    return out.getvalue()


HOSTILE = [
    "::add-mask::hunter2\n",
    "::error file=x::boom\n",
    "::stop-commands::token\n",
    "   ::add-mask::leading spaces\n",
    "\t \u00a0::warning::tabs and a no-break space\n",
    "a value\n::add-mask::on its own line\n",
    "one line\r::add-mask::after a carriage return\n",
    "Live ##[add-mask]Safety Co\n",
    "text then ##[error]mid-line\n",
    "###[group]three hashes\n",
    "::add-mask::without a line end",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_no_line_is_a_command_under_github_actions(text: str) -> None:
    shown = written(text)
    assert executed(text)  # the case is one the runner would run
    assert executed(shown) == []
    assert shown.replace("\u200d", "") == text  # what a person reads is unchanged


@pytest.mark.parametrize(
    "pieces",
    [
        (":", ":add-mask::split after one colon\n"),
        ("  ", "::add-mask::split after the spaces\n"),
        ("#", "#[error]split in the hashes\n"),
        ("text ##", "[error]split before the bracket\n"),
        ("", "::add-mask::an empty write first\n"),
    ],
)
def test_a_command_split_across_flushed_writes_is_neutralised(pieces: tuple[str, ...]) -> None:
    shown = written(*pieces, flush_each=True)
    assert executed(shown) == []
    assert shown.replace("\u200d", "") == "".join(pieces)


def test_outside_github_actions_the_output_is_left_as_it_is() -> None:
    text = "".join(HOSTILE)
    assert written(text, commands=False) == text


def test_lines_that_are_no_command_are_untouched() -> None:
    text = "a: b::c\n  ## heading\nC# [x] and #[y]\nhttp://[::1]:80/\n"
    assert written(text) == text


def test_an_allowed_command_passes_once_and_only_whole() -> None:
    out = io.StringIO()
    masker = Masker([])
    stream = MaskingStream(out, masker, commands=True)
    masker.allow_commands(["::error title=T::m"])
    stream.write("::error title=T::m\n::error title=T::m\n")
    stream.write("  ::error title=T::m and more\n")
    stream.flush()
    lines = out.getvalue().splitlines()
    assert lines[0] == "::error title=T::m"
    assert executed("\n".join(lines[1:])) == []


def test_neutralise_keeps_the_text_and_only_adds_joiners() -> None:
    assert neutralise("::x::y") == "\u200d::x::y"
    assert neutralise("  ::x") == "  \u200d::x"
    assert neutralise("a ##[b]") == "a ##\u200d[b]"
    assert neutralise(":", ended=False) == "\u200d:"
    assert neutralise("ab#", ended=False) == "ab#\u200d"
    assert neutralise("ab#") == "ab#"


def test_validate_under_github_actions_runs_only_its_own_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manifest whose file name is a command, and a value holding `##[`: the problems on
    stderr are neutralised, the annotation of each (written on purpose) is not."""
    entry = "  - name: 'Live ##[add-mask]Safety Co'\n"
    bad = "companies:\n" + entry + entry
    (tmp_path / "::error file=x::m.yaml").write_text(bad, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["validate", "::error file=x::m.yaml"], env={"GITHUB_ACTIONS": "true"}
    )
    assert result.exit_code == 1
    ran = executed(result.output)
    assert len(ran) == 1 and ran[0].startswith("::error file=")  # the annotation itself
    assert ",title=Invalid manifest::duplicate companies entry" in ran[0]
    assert "##[" not in ran[0]  # the value quoted in the annotation is split too
    assert "##\u200d[add-mask]" in ran[0]
    assert "\u200d::error file=x::m.yaml:3:5: duplicate companies entry" in result.output


def test_the_annotations_written_on_purpose_are_allowed_once() -> None:
    masker = install({})
    allow_commands(["::notice::once"])
    assert masker.take_command("::notice::once")
    assert not masker.take_command("::notice::once")


@pytest.mark.e2e
def test_a_plan_under_github_actions_prints_no_command(tmp_path: Path) -> None:
    """The text plan on stdout, its diagnostics on stderr and the Markdown plan (whose
    multi-line values are shown line by line) carry hostile values and a hostile name."""
    (tmp_path / "m.yaml").write_text(
        "companies:\n"
        "  - name: 'Live ##[add-mask]Safety Co'\n"
        '    notes: "first\\n  ::add-mask::hidden\\n::stop-commands::tok\\nok ##[error]mid"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env.update(GITHUB_ACTIONS="true", GITLAB_CI="", GITHUB_STEP_SUMMARY="")
    for format_ in ("text", "markdown"):
        done = subprocess.run(
            [sys.executable, "-m", "reconciler", "plan", "m.yaml", "--sandbox",
             "--sandbox-seed", "empty", "--format", format_],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "Live ##\u200d[add-mask]Safety Co" in done.stdout
        assert executed(done.stdout) == [] and executed(done.stderr) == []
    assert "::add-mask::hidden\n" in done.stdout  # the Markdown shows the value's lines

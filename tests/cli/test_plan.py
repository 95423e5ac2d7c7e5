"""`reconciler plan` in-process against the embedded sandbox (`--sandbox`, the acme seed,
on 127.0.0.1), as a user or a script reads it: the plan whole on stdout in each format
(the JSON one document ending in one newline, what `> plan.json` keeps), the diagnostics
whole on stderr (and nothing else there: a CI job keeps stderr as its log), the exit
codes of each outcome, the lines saying what was written, a partial plan's note where
each format's reader starts; and the pull-request comment parts of `--comment-dir`:
exactly this plan's (stale parts removed), each within the 60,000 characters a comment
holds with a partial plan's note on top, each change linked to its manifest line under
`--source-url`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.run.outputs import write_comment_parts

NEW_COMPANY = "companies:\n  - name: Zeta Ltd\n"
UNKNOWN_COMPANY = (
    "users:\n  - username: zed\n    email: zed@example.com\n    first_name: Zed\n"
    "    last_name: Z\n    company: Nope Inc\n"
)

TEXT = """\
+ companies["Zeta Ltd"]
    # from c.yaml:2
    name: "Zeta Ltd"

Coverage (live objects the manifests manage; the others are unmanaged, not changes):
  companies  0 of 3 (0%); unmanaged: "Acme Corp", "Acme Field Services", "Acme Robotics"

Plan: 1 to create, 0 to update, 0 to delete, 0 to enable, 0 to disable.
"""

MARKDOWN = """\
## reconciler plan

| kind | create | update | delete | enable | disable |
|:--|--:|--:|--:|--:|--:|
| companies | 1 | 0 | 0 | 0 | 0 |
| **total** | **1** | **0** | **0** | **0** | **0** |

**Plan: 1 to create, 0 to update, 0 to delete, 0 to enable, 0 to disable.**

**Coverage** (live objects the manifests manage; the others are unmanaged, not changes):

| kind | live | managed | coverage | unmanaged |
|:--|--:|--:|--:|--:|
| companies | 3 | 0 | 0% | 3 |

<details><summary>companies: 1 to create</summary>

```diff
+ companies["Zeta Ltd"]
  # from c.yaml:2
+     name: "Zeta Ltd"
```

</details>

### Unmanaged objects (3)

Live objects no manifest entry names: not changes, `apply` leaves them alone.

- `companies["Acme Corp"]`
- `companies["Acme Field Services"]`
- `companies["Acme Robotics"]`
"""

ERROR = (
    "Error: users[\"zed\"]: company 'Nope Inc' is neither live nor in the manifests: the "
    "helpdesk would create it as a side effect, and a company cannot be deleted\n"
    "  at e.yaml:6:14\n"
    "  remedy: fix the name, or add the company under `companies` to create it\n\n"
)


@pytest.fixture
def workdir(clean_workdir: Path) -> Path:
    (clean_workdir / "c.yaml").write_text(NEW_COMPANY, encoding="utf-8")
    (clean_workdir / "e.yaml").write_text(UNKNOWN_COMPANY, encoding="utf-8")
    return clean_workdir


def plan(*args: str) -> Result:
    return CliRunner().invoke(main, ["plan", *args, "--sandbox"], env={"NO_COLOR": "1"})


def test_the_text_plan_is_whole_on_stdout_and_stderr_stays_empty(workdir: Path) -> None:
    result = plan("c.yaml")
    assert result.exit_code == 0, result.output
    assert result.stdout == TEXT
    assert result.stderr == ""  # no diagnostics: not even an empty line


def test_the_markdown_plan_is_whole_on_stdout_and_stderr_stays_empty(workdir: Path) -> None:
    result = plan("c.yaml", "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert result.stdout == MARKDOWN
    assert result.stderr == ""


def test_the_json_plan_carries_what_the_text_shows(workdir: Path) -> None:
    result = plan("c.yaml", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["summary"]["create"] == 1
    assert [c["address"] for c in document["changes"]] == ['companies["Zeta Ltd"]']
    assert result.stderr == ""


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_error_is_on_stderr_whole_and_exits_1(workdir: Path, fmt: str) -> None:
    result = plan("e.yaml", "--format", fmt)
    assert result.exit_code == 1, result.output
    assert result.stderr == ERROR
    assert "nothing can be applied until it is fixed" in result.stdout


def test_the_json_plan_keeps_its_errors_inside_and_exits_1(workdir: Path) -> None:
    result = plan("e.yaml", "--format", "json")
    assert result.exit_code == 1, result.output
    assert result.stderr == ""
    (error,) = json.loads(result.stdout)["errors"]
    assert "company 'Nope Inc' is neither live nor in the manifests" in error["message"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((), 0),
        (("--detailed-exitcode",), 2),  # changes present
        (("--fail-on-unmanaged",), 1),  # three live companies no entry names
        (("--prune", "--detailed-exitcode"), 2),  # warnings only: not errors
    ],
)
def test_the_exit_code_of_each_outcome(workdir: Path, args: tuple[str, ...], code: int) -> None:
    result = plan("c.yaml", *args)
    assert result.exit_code == code, result.output


def test_warnings_alone_are_on_stderr_whole_and_exit_0(workdir: Path) -> None:
    result = plan("c.yaml", "--prune")
    assert result.exit_code == 0, result.output
    assert result.stdout == TEXT
    assert result.stderr == "".join(
        f'Warning: companies["{name}"]: not in the manifests, and the API cannot delete '
        "companies\n  remedy: add it to the manifests, or delete it in the helpdesk's admin "
        "panel\n\n"
        for name in ("Acme Corp", "Acme Field Services", "Acme Robotics")
    )


def test_no_change_with_detailed_exitcode_exits_0(workdir: Path) -> None:
    (workdir / "none.yaml").write_text("companies: []\n", encoding="utf-8")
    result = plan("none.yaml", "--detailed-exitcode")
    assert result.exit_code == 0, result.output
    assert result.stdout == "No changes. The live state matches the manifests.\n"


def test_what_was_written_is_said_on_stderr_and_the_plan_saved(workdir: Path) -> None:
    result = plan("c.yaml", "--out", "p.json", "--comment-dir", "parts")
    assert result.exit_code == 0, result.output
    assert result.stdout == TEXT
    assert result.stderr == (
        "Saved the plan to p.json.\nWrote the plan in 1 comment part(s) to parts.\n"
    )
    saved = json.loads((workdir / "p.json").read_text(encoding="utf-8"))
    assert saved["made_from"]["prune"] is False
    assert saved["made_from"].get("environment") is None
    assert [c["address"] for c in saved["changes"]] == ['companies["Zeta Ltd"]']
    # Without --changed-since, the comment is the Markdown plan, no note on top.
    assert (workdir / "parts" / "1.md").read_text(encoding="utf-8") == MARKDOWN


def test_the_saved_plan_records_the_flags_it_was_made_with(workdir: Path) -> None:
    result = plan("c.yaml", "--out", "p.json", "--prune", "--target", "companies")
    assert result.exit_code == 0, result.output
    made_from = json.loads((workdir / "p.json").read_text(encoding="utf-8"))["made_from"]
    assert made_from["prune"] is True
    assert made_from["targets"] == ["companies"]


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


NOTE = "Partial plan: 1 of 2 entries, the 1 added or changed since HEAD and those they name."


@pytest.fixture
def partial(workdir: Path) -> Path:
    (workdir / "m").mkdir()
    manifest = workdir / "m" / "c.yaml"
    manifest.write_text(NEW_COMPANY, encoding="utf-8")
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-qm", "one company")
    manifest.write_text(NEW_COMPANY + "  - name: Omega Ltd\n", encoding="utf-8")
    return workdir


@pytest.mark.parametrize(
    ("fmt", "start", "on_stderr"),
    [
        ("text", f'{NOTE}\n\n+ companies["Omega Ltd"]\n', ""),
        ("markdown", f"> {NOTE}\n\n## reconciler plan\n", ""),
        ("json", "{", f"{NOTE}\n"),
    ],
)
def test_a_partial_plan_says_so_where_its_reader_starts(
    partial: Path, fmt: str, start: str, on_stderr: str
) -> None:
    result = plan("m", "--changed-since", "HEAD", "--format", fmt, "--comment-dir", "parts")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(start), result.stdout[:200]
    assert result.stderr == f"Wrote the plan in 1 comment part(s) to parts.\n{on_stderr}"
    comment = (partial / "parts" / "1.md").read_text(encoding="utf-8")
    assert comment.startswith(f"> {NOTE}\n\n## reconciler plan\n")


COMPANIES = 1_500


LIMIT = 60_000


def companies(count: int, longer: int = 0) -> str:
    """`count` companies, the name of the second `longer` characters longer."""
    lines = ["companies:"]
    for i in range(count):
        more = "-" * longer if i == 1 else ""
        lines += [
            f"  - name: Generated Company {i:04d}{more}",
            f"    notes: A company generated for a long plan, number {i}",
            f"    email_domains: [company-{i:04d}.example.com, company-{i:04d}.example.org]",
        ]
    return "\n".join(lines) + "\n"


def test_the_json_plan_on_stdout_ends_in_one_newline(workdir: Path) -> None:
    (workdir / "c.yaml").write_text(companies(2), encoding="utf-8")
    result = CliRunner().invoke(main, ["plan", "c.yaml", "--sandbox", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("}\n") and not result.stdout.endswith("\n\n")
    assert json.loads(result.stdout)["summary"]["create"] == 2


def test_a_partial_plans_comment_parts_fit_a_comment_with_the_note_on_top(workdir: Path) -> None:
    (workdir / "manifests").mkdir()
    manifest = workdir / "manifests" / "companies.yaml"
    manifest.write_text(companies(1), encoding="utf-8")
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-qm", "one company")
    # The first change made 120 characters longer (its name is shown twice): the first
    # part then ends where only counting the note (97 characters) in its budget keeps it
    # under the limit (each change takes about 273).
    manifest.write_text(companies(COMPANIES, longer=60), encoding="utf-8")
    args = ["plan", "manifests", "--sandbox", "--changed-since", "HEAD", "--comment-dir", "parts"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    files = sorted((workdir / "parts").iterdir(), key=lambda p: int(p.stem))
    parts = [p.read_text(encoding="utf-8") for p in files]
    assert len(parts) > 2
    assert parts[0].startswith(
        f"> Partial plan: {COMPANIES - 1} of {COMPANIES} entries, the {COMPANIES - 1} added or "
        "changed since HEAD and those they name.\n\n"
        f"## reconciler plan (part 1 of {len(parts)})\n"
    )
    assert [len(part) <= LIMIT for part in parts] == [True] * len(parts)
    # Filled up to the limit: the note is counted in the first part's budget.
    assert len(parts[0]) > LIMIT - 1_000
    together = "".join(parts)
    assert all(f"Generated Company {i:04d}" in together for i in range(1, COMPANIES))


BASE = "https://github.com/acme/helpdesk/blob/0123abc"


def test_the_comment_part_links_each_change_to_its_manifest_line(clean_workdir: Path) -> None:
    (clean_workdir / "c.yaml").write_text(companies(2), encoding="utf-8")
    args = ["plan", "c.yaml", "--sandbox", "--comment-dir", "parts", "--source-url", BASE]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    [part] = sorted((clean_workdir / "parts").iterdir())
    text = part.read_text(encoding="utf-8")
    assert f"]({BASE}/c.yaml#L2)" in text  # the first company's entry
    assert f"]({BASE}/c.yaml#L5)" in text
    assert result.stderr.endswith("Wrote the plan in 1 comment part(s) to parts.\n")


def test_the_comment_parts_are_exactly_this_plans(tmp_path: Path) -> None:
    for name in ("1.md", "2.md", "3.md", "12.md", "notes.md", "a3.md"):
        (tmp_path / name).write_text("old", encoding="utf-8")
    assert write_comment_parts(tmp_path, ["first", "second"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1.md", "2.md", "a3.md", "notes.md"]
    assert (tmp_path / "1.md").read_text(encoding="utf-8") == "first"
    assert (tmp_path / "2.md").read_text(encoding="utf-8") == "second"
    assert write_comment_parts(tmp_path, []) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a3.md", "notes.md"]

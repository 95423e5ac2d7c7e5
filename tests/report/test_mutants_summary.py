"""`plan --job-summary FILE` (GitHub's `$GITHUB_STEP_SUMMARY`): the Markdown a reviewer
reads on the run's page, golden, for several environments (each one's headline, counts,
brake and errors, a cell's `|` and line break kept inside its cell); the errors listed up
to 50 and the rest counted; the 1 MiB GitHub takes, shared with earlier steps, cut at a
line and never inside a character."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.plans import BrakeVerdict, Plan, error
from reconciler.report.digest import Planned
from reconciler.report.summary import append_summary, fit, job_summary, where_from
from tests.report.plans import clean, every_diagnostic, failed, several_kinds

CUT = (
    "\n\n_The rest of this summary is left out (GitHub's limit for a job summary); "
    "the full plan has it._\n"
)
MIB = 1024 * 1024


def errors(count: int) -> Planned:
    found = tuple(error(f"error {n}", location=f"m.yaml:{n}:1") for n in range(count))
    return Planned(Plan((), errors=found).to_dict())


def test_the_summary_of_several_environments() -> None:
    odd = Plan(
        (),
        errors=(error("a | b\nc", address="users['x|y']"),),
    ).to_dict()
    plans = [
        Planned(every_diagnostic(), "prod|eu"),
        Planned(several_kinds("staging"), "staging"),
        Planned(clean(), "qa"),
        Planned(failed(), "dev"),
        Planned(odd, "odd"),
    ]
    text = job_summary(plans, ["`plan.json`", "the artifacts"], title="Plan | all")
    assert text == (
        "## Plan \\| all\n"
        "\n"
        "### prod\\|eu: :x: errors: nothing may be applied (1 disable)\n"
        "\n"
        "| kind | create | update | delete | enable | disable |\n"
        "|---|---|---|---|---|---|\n"
        "| `users` |  |  |  |  | 1 |\n"
        "\n"
        "**Safety brake holds**: apply refuses this plan without `--force`: "
        "would disable 1 of 2 users (50%) > 25%\n"
        "\n"
        "**2 errors:**\n"
        '- `manifests/people.yaml:12:7` `users["alice"]`: '
        "company 'Globex, Inc: 100%' does not exist\n"
        "- the workspace refused the read: 500\n"
        "\n"
        "1 warning(s): see the full plan.\n"
        "\n"
        "### staging: :warning: changes (1 create, 2 update, 1 disable)\n"
        "\n"
        "| kind | create | update | delete | enable | disable |\n"
        "|---|---|---|---|---|---|\n"
        "| `companies` |  | 1 |  |  |  |\n"
        "| `users` | 1 | 1 |  |  | 1 |\n"
        "\n"
        "Safety brake: passes.\n"
        "\n"
        "1 warning(s): see the full plan.\n"
        "\n"
        "### qa: :white_check_mark: no changes: live matches the manifests (no changes)\n"
        "\n"
        "Safety brake: passes.\n"
        "\n"
        "### dev: :x: errors: nothing may be applied (no changes)\n"
        "\n"
        "**1 error:**\n"
        "- the helpdesk refused the read\n"
        "\n"
        "### odd: :x: errors: nothing may be applied (no changes)\n"
        "\n"
        "**1 error:**\n"
        "- `users['x\\|y']`: a \\| b c\n"
        "\n"
        "The full plan: `plan.json`, the artifacts.\n"
    )


def test_one_plan_has_no_environment_in_its_heading() -> None:
    assert job_summary([Planned(clean(), "prod")]).startswith(
        "## reconciler plan\n\n### :white_check_mark: no changes"
    )
    held = Plan((), errors=(error("no field SEX"),), brake=BrakeVerdict(("one", "two")))
    text = job_summary([Planned(held.to_dict())])
    assert "apply refuses this plan without `--force`: one; two\n" in text
    assert text.endswith("\n- no field SEX\n")  # the last line whole, one line break


@pytest.mark.parametrize(
    ("count", "last"),
    [(50, "- `m.yaml:49:1` error 49"), (52, "- ... and 2 more (in the full plan)")],
)
def test_fifty_errors_are_listed_and_the_rest_counted(count: int, last: str) -> None:
    lines = job_summary([errors(count)]).splitlines()
    assert f"**{count} errors:**" in lines
    listed = [line for line in lines if line.startswith("- `m.yaml:")]
    assert listed == [f"- `m.yaml:{n}:1` error {n}" for n in range(50)]
    assert lines[-1] == last


def test_what_fits_is_kept_whole() -> None:
    text = "line one\nline two\n" + "more " * 40 + "\n"
    assert fit(text, len(text)) == text
    room = len(CUT) + len("line one\nline")  # the second line does not fit: cut at its start
    assert fit(text, room) == "line one\n" + CUT
    assert fit("x" * 300, len(CUT) + 5) == CUT
    assert fit("x" * 300, len(CUT)) == CUT  # the note alone
    assert fit("\n" + "x" * 300, len(CUT)) == CUT
    assert fit(text, len(CUT) - 1) == ""  # not even the note fits
    # a cut inside a two-byte character drops the character, not the text
    assert fit("ab\n" + "é" * 400, len(CUT.encode()) + 4) == "ab\n" + CUT


def test_the_summary_file_holds_at_most_one_mib(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    append_summary(str(summary), "x\n" * MIB)
    assert MIB - 200 < summary.stat().st_size <= MIB
    new = tmp_path / "new.md"
    append_summary(str(new), "12345\n", limit=6)  # a new file: all the room is left
    assert new.read_text(encoding="utf-8") == "12345\n"
    full = tmp_path / "full.md"
    full.write_text("y" * 10, encoding="utf-8")
    append_summary(str(full), "z", limit=9)  # past the limit already: nothing more
    assert full.read_text(encoding="utf-8") == "y" * 10


def test_no_link_to_the_run_without_every_variable() -> None:
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "a/b"}
    assert where_from(env, None, Path("plan.html")) == ["`plan.html`"]
    assert where_from({"GITHUB_RUN_ID": "9"}, None, None) == []

"""`reconciler apply` in-process against the embedded sandbox (`--sandbox`, the acme seed,
on 127.0.0.1), as a user meets it: the confirmation (no terminal, declined, approved),
what is applied and said, and a saved plan's flags and environment, each refusal whole."""

from __future__ import annotations

import json
from pathlib import Path

import click.testing
import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.plans import Plan
from reconciler.plans.planfile import PlanInputs, write_plan_file

NEW_COMPANY = "companies:\n  - name: Zeta Ltd\n"


@pytest.fixture
def workdir(clean_workdir: Path) -> Path:
    (clean_workdir / "c.yaml").write_text(NEW_COMPANY, encoding="utf-8")
    return clean_workdir


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """stdin (and the other streams) a terminal, as when a person runs apply."""
    monkeypatch.setattr(click.testing._NamedTextIOWrapper, "isatty", lambda self: True)


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"}, input=stdin)


def test_without_a_terminal_or_yes_nothing_is_applied(workdir: Path) -> None:
    result = run("apply", "c.yaml", "--sandbox")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: there is no terminal to confirm on: add --yes to apply without asking\n"
    )
    assert result.stdout.endswith("Plan: 1 to create, 0 to update, 0 to delete, 0 to enable, "
                                  "0 to disable.\n")  # fmt: skip
    still = run("plan", "c.yaml", "--sandbox", "--detailed-exitcode")
    assert still.exit_code == 2, still.output


def test_an_answer_other_than_yes_cancels(workdir: Path, terminal: None) -> None:
    result = run("apply", "c.yaml", "--sandbox", stdin="no\n")
    assert result.exit_code == 1
    assert "\nDo you want to apply these 1 change (1 to create)?\n" in result.stderr
    assert "  Only 'yes' will be accepted to approve.\n  Enter a value: no\n" in result.stderr
    assert result.stderr.endswith("\nApply cancelled.\n")
    still = run("plan", "c.yaml", "--sandbox", "--detailed-exitcode")
    assert still.exit_code == 2, still.output


def test_yes_applies_writes_the_log_and_a_second_apply_has_nothing_to_do(
    workdir: Path, terminal: None
) -> None:
    result = run("apply", "c.yaml", "--sandbox", "--log", "logs/a.jsonl", stdin="  yes \n")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith(
        "Apply complete: 1 change(s), 1 operation(s). Log: logs/a.jsonl\n"
        "Not recorded as applied: not in a git work tree.\n"  # docs/drift.md
    )
    records = [json.loads(line) for line in (workdir / "logs" / "a.jsonl").read_text().splitlines()]
    assert [r.get("address") for r in records if "address" in r] == ['companies["Zeta Ltd"]']
    again = run("apply", "c.yaml", "--sandbox", "--yes")
    assert again.exit_code == 0, again.output
    assert again.stdout.endswith("No changes. The live state matches the manifests.\n")
    assert "Apply complete" not in again.stderr


def test_a_log_where_no_file_can_be_is_refused_before_any_call(workdir: Path) -> None:
    result = run("apply", "c.yaml", "--sandbox", "--yes", "--log", "c.yaml/apply.jsonl")
    assert result.exit_code == 1
    assert result.output == "Error: --log c.yaml/apply.jsonl: c.yaml is a file, not a directory\n"
    assert not (workdir / ".reconciler").exists()  # no sandbox started, nothing read


def test_a_log_that_is_a_symbolic_link_is_refused_before_any_call(workdir: Path) -> None:
    (workdir / "elsewhere.txt").write_text("kept\n", encoding="utf-8")
    (workdir / "apply.jsonl").symlink_to(workdir / "elsewhere.txt")
    result = run("apply", "c.yaml", "--sandbox", "--yes", "--log", "apply.jsonl")
    assert result.exit_code == 1
    assert result.output == (
        "Error: --log apply.jsonl: it is a symbolic link, and the file is appended to: give "
        "the path of the file itself\n"
    )
    assert (workdir / "elsewhere.txt").read_text(encoding="utf-8") == "kept\n"
    assert not (workdir / ".reconciler").exists()  # no sandbox started, nothing read


def test_a_full_disk_under_the_log_stops_the_apply_with_its_summary(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.applying.test_applylog import FillingFile

    names = [f"Zeta {n:02}" for n in range(12)]
    (workdir / "c.yaml").write_text(
        "companies:\n" + "".join(f"  - name: {name}\n" for name in names), encoding="utf-8"
    )
    file = FillingFile(room=700)  # the start record and a few operations
    monkeypatch.setattr("reconciler.applying.log.open_for_append", lambda path: file)
    result = run("apply", "c.yaml", "--sandbox", "--yes", "--log", "a.jsonl", "--parallelism", "1")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert "Apply stopped: cannot write the apply log a.jsonl: No space left on device. " in (
        result.stderr
    )
    assert "  done (" in result.stderr and "  not attempted (" in result.stderr
    lines = file.getvalue().decode().splitlines(keepends=True)
    assert lines and all(line.endswith("\n") and json.loads(line) for line in lines)
    again = run("plan", "c.yaml", "--sandbox")  # what was done is live; the rest is planned
    done = result.stderr.split("  done (", 1)[1].split(")", 1)[0]
    assert f"Plan: {12 - int(done)} to create" in again.stdout


@pytest.fixture
def saved(workdir: Path) -> Path:
    made = run("plan", "c.yaml", "--sandbox", "--out", "p.json")
    assert made.exit_code == 0, made.output
    return workdir / "p.json"


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        (["--prune"], "--prune"),
        (["--prune", "--target", "companies"], "--prune, --target"),
        (["--exclude", "users", "--prune"], "--prune, --exclude"),
    ],
)
def test_flags_the_saved_plan_was_not_made_with_are_refused_by_name(
    saved: Path, flags: list[str], refused: str
) -> None:
    result = run("apply", "c.yaml", "--sandbox", "--plan", "p.json", "--yes", *flags)
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {refused} contradict the saved plan, which was made with (none): leave them "
        "out (the plan's own are used) or plan again\n"
    )


def test_the_saved_plan_is_applied_with_its_own_flags(saved: Path) -> None:
    result = run("apply", "c.yaml", "--sandbox", "--plan", "p.json", "--yes")
    assert result.exit_code == 0, result.output
    assert "Apply complete: 1 change(s), 1 operation(s)." in result.stderr


def test_a_saved_plan_is_not_narrowed_by_changed_since(saved: Path) -> None:
    result = run("apply", "c.yaml", "--plan", "p.json", "--changed-since", "HEAD", "--yes")
    assert result.exit_code == 1
    assert result.output == (
        "Error: --changed-since belongs to `plan`: a saved plan is applied whole\n"
    )


def test_a_partial_saved_plan_is_refused(workdir: Path) -> None:
    partial = Plan((), live_digest="sha256:x", scope={"partial": True, "since": "HEAD"})
    write_plan_file(workdir / "part.json", partial, PlanInputs("sha256:" + "0" * 64))
    result = run("apply", "c.yaml", "--plan", "part.json", "--yes")
    assert result.exit_code == 1
    assert result.output == (
        "Error: part.json is a partial plan (--changed-since): apply the changes with "
        "`apply --changed-since REF`, which plans them again, or save a full plan\n"
    )


def test_a_plan_saved_for_an_environment_is_refused_without_it(workdir: Path) -> None:
    inputs = PlanInputs("sha256:" + "0" * 64, environment="prod")
    write_plan_file(workdir / "prod.json", Plan((), live_digest="sha256:x"), inputs)
    result = run("apply", "c.yaml", "--plan", "prod.json", "--yes")
    assert result.exit_code == 1
    assert result.output == (
        "Error: the saved plan was made for environment prod, and this apply runs with no "
        "--env: apply it for the environment it was made for, or plan again\n"
    )

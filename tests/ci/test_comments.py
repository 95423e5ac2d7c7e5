"""The code that posts the plan on a pull request (the github-script step) or a merge
request (the GitLab job's after_script) keeps ONE comment: it creates it the first time,
finds it again by the marker on later runs (past the first page of comments), updates it,
and never touches a comment someone else wrote, even one quoting the marker."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.ci.fakes import BOT_ID, TOKEN, FakeGitLab, node, run_github_script
from tests.ci.recipes import GITHUB, GITLAB_CI, base_env, gitlab_script, load_yaml, run_bash

MARKER = "<!-- reconciler-plan -->"


# -- GitHub: actions/github-script ---------------------------------------------------------


def github_post_script() -> str:
    workflow = load_yaml(GITHUB / "reconciler-plan.yml")
    for step in workflow["jobs"]["plan"]["steps"]:
        if step.get("uses", "").startswith("actions/github-script@"):
            return str(step["with"]["script"])
    raise AssertionError("the plan workflow has no github-script step")


def human(number: int, body: str) -> dict[str, Any]:
    return {"id": number, "body": body, "user": {"login": f"dev{number}", "type": "User"}}


def bot(number: int, body: str) -> dict[str, Any]:
    return {"id": number, "body": body, "user": {"login": "github-actions[bot]", "type": "Bot"}}


@pytest.fixture
def runner_temp(tmp_path: Path) -> Path:
    path = tmp_path / "runner-temp"
    path.mkdir()
    return path


def post_on_github(
    runner_temp: Path, comments: list[dict[str, Any]], body: str | None
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    if node() is None:
        pytest.skip("Node.js is not installed: the github-script step cannot be run")
    if body is not None:
        (runner_temp / "plan-comment.md").write_text(body, encoding="utf-8")
    env = base_env(RUNNER_TEMP=str(runner_temp), PLAN_MARKER=MARKER)
    return run_github_script(github_post_script(), comments, env, runner_temp)


def test_github_creates_the_comment_then_updates_it(runner_temp: Path) -> None:
    quoting = human(1, f"{MARKER}\nI quoted the plan comment here.")
    result, state = post_on_github(runner_temp, [quoting], f"{MARKER}\nfirst plan")
    assert result.returncode == 0, result.stderr
    [(action, created)] = state["log"]
    assert action == "create"

    result, state = post_on_github(runner_temp, state["comments"], f"{MARKER}\nsecond plan")
    assert result.returncode == 0, result.stderr
    assert state["log"] == [["update", created]]
    assert [c["body"] for c in state["comments"]] == [quoting["body"], f"{MARKER}\nsecond plan"]


def test_github_finds_its_comment_past_the_first_page(runner_temp: Path) -> None:
    comments = [human(n, f"comment {n}") for n in range(1, 151)]
    comments.insert(120, bot(500, f"{MARKER}\nold plan"))
    comments.insert(3, bot(501, "another bot's comment"))
    result, state = post_on_github(runner_temp, comments, f"{MARKER}\nnew plan")
    assert result.returncode == 0, result.stderr
    assert state["log"] == [["update", 500]]
    assert next(c for c in state["comments"] if c["id"] == 500)["body"] == f"{MARKER}\nnew plan"


def write_parts(runner_temp: Path, count: int) -> list[str]:
    bodies = [f"{MARKER}\npart one"] + [
        f"<!-- reconciler-plan part {n} -->\npart {n}" for n in range(2, count + 1)
    ]
    for stale in runner_temp.glob("plan-comment*.md"):
        stale.unlink()
    for n, body in enumerate(bodies, start=1):
        name = "plan-comment.md" if n == 1 else f"plan-comment-{n}.md"
        (runner_temp / name).write_text(body, encoding="utf-8")
    return bodies


def test_github_posts_every_part_then_updates_them_and_removes_the_extra_ones(
    runner_temp: Path,
) -> None:
    someone = human(1, "<!-- reconciler-plan part 3 -->\nquoted by a person")
    bodies = write_parts(runner_temp, 3)
    result, state = post_on_github(runner_temp, [someone], None)
    assert result.returncode == 0, result.stderr
    assert [action for action, _ in state["log"]] == ["create"] * 3
    created = [ident for _, ident in state["log"]]

    bodies = write_parts(runner_temp, 2)  # a shorter plan
    result, state = post_on_github(runner_temp, state["comments"], None)
    assert result.returncode == 0, result.stderr
    assert state["log"] == [["update", created[0]], ["update", created[1]], ["delete", created[2]]]
    assert [c["body"] for c in state["comments"]] == [someone["body"], *bodies]
    assert "Removed plan comment part 3" in result.stdout


def test_github_posts_nothing_when_no_step_wrote_a_comment(runner_temp: Path) -> None:
    result, state = post_on_github(runner_temp, [], None)
    assert result.returncode == 0, result.stderr
    assert state["log"] == [] and "Nothing to post" in result.stdout


# -- GitLab: the plan job's after_script ----------------------------------------------------


def post_on_gitlab(
    workdir: Path, gitlab: FakeGitLab, body: str | None, token: str = TOKEN
) -> subprocess.CompletedProcess[str]:
    if body is not None:
        (workdir / ".reconciler").mkdir(exist_ok=True)
        (workdir / ".reconciler" / "plan-comment.md").write_text(body, encoding="utf-8")
    config = load_yaml(GITLAB_CI)
    env = base_env(
        **config["variables"],
        CI_API_V4_URL=gitlab.api_url,
        CI_PROJECT_ID=str(gitlab.project),
        CI_MERGE_REQUEST_IID=str(gitlab.merge_request),
        RECONCILER_GITLAB_TOKEN=token,
    )
    return run_bash(gitlab_script(config, "reconciler-plan", "after_script"), env, workdir)


def test_gitlab_creates_the_note_then_updates_it(tmp_path: Path) -> None:
    with FakeGitLab() as gitlab:
        gitlab.add_note(f"{MARKER}\nquoted by a person", author=1)
        gitlab.add_note(f"{MARKER}\nsystem", author=BOT_ID, system=True)
        gitlab.notes[-1]["body"] = "added 1 commit"  # system notes never carry the marker
        first = post_on_gitlab(tmp_path, gitlab, f"{MARKER}\nfirst plan")
        assert first.returncode == 0, first.stderr
        assert "Posted the plan note 3." in first.stdout
        second = post_on_gitlab(tmp_path, gitlab, f"{MARKER}\nsecond plan")
        assert second.returncode == 0, second.stderr
        assert "Updated the plan note 3." in second.stdout
    assert [n["body"] for n in gitlab.notes] == [
        f"{MARKER}\nquoted by a person",
        "added 1 commit",
        f"{MARKER}\nsecond plan",
    ]


def test_gitlab_posts_every_part_then_updates_them_and_removes_the_extra_ones(
    tmp_path: Path,
) -> None:
    (tmp_path / ".reconciler").mkdir()
    with FakeGitLab() as gitlab:
        gitlab.add_note("<!-- reconciler-plan part 2 -->\nquoted by a person", author=1)
        write_parts(tmp_path / ".reconciler", 3)
        first = post_on_gitlab(tmp_path, gitlab, None)
        assert first.returncode == 0, first.stderr
        assert first.stdout.count("Posted the plan note") == 3
        bodies = write_parts(tmp_path / ".reconciler", 2)
        second = post_on_gitlab(tmp_path, gitlab, None)
        assert second.returncode == 0, second.stderr
        assert "Updated the plan note 2." in second.stdout
        assert "Updated the plan note 3." in second.stdout
        assert "Removed plan note part 3" in second.stdout
    assert [n["body"] for n in gitlab.notes] == [
        "<!-- reconciler-plan part 2 -->\nquoted by a person",
        *bodies,
    ]


def test_gitlab_finds_its_note_past_the_first_page(tmp_path: Path) -> None:
    with FakeGitLab() as gitlab:
        for n in range(130):
            gitlab.add_note(f"note {n}", author=1)
        gitlab.add_note(f"{MARKER}\nold plan", author=BOT_ID)
        result = post_on_gitlab(tmp_path, gitlab, f"{MARKER}\nnew plan")
    assert result.returncode == 0, result.stderr
    assert len(gitlab.notes) == 131 and gitlab.notes[-1]["body"] == f"{MARKER}\nnew plan"
    pages = [path for method, path in gitlab.requests if method == "GET" and "notes" in path]
    assert len(pages) == 2


def test_gitlab_without_a_token_or_a_comment_posts_nothing(tmp_path: Path) -> None:
    with FakeGitLab() as gitlab:
        nothing = post_on_gitlab(tmp_path, gitlab, None)
        assert nothing.stderr == "Nothing to post: the job stopped before validating.\n"
        no_token = post_on_gitlab(tmp_path, gitlab, f"{MARKER}\nplan", token="")
        assert no_token.stderr == "RECONCILER_GITLAB_TOKEN is not set: the plan is not posted.\n"
    assert gitlab.requests == [] and gitlab.notes == []
    # after_script failing does not fail a GitLab job; the message is in its log.
    assert nothing.returncode == 1 and no_token.returncode == 1


def test_the_docs_say_what_comment_dir_writes_first_and_what_the_recipes_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from reconciler.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("companies:\n  - name: Zeta Ltd\n", encoding="utf-8")
    made = CliRunner().invoke(main, ["plan", "c.yaml", "--sandbox", "--comment-dir", "parts"])
    assert made.exit_code == 0, made.output
    first = (tmp_path / "parts" / "1.md").read_text(encoding="utf-8").splitlines()[0]
    docs = " ".join((Path(__file__).parents[2] / "docs" / "workflows.md").read_text().split())
    assert f"`1.md` starts with the heading `{first}`" in docs
    recipe = load_yaml(GITHUB / "reconciler-plan.yml")["env"]["PLAN_MARKER"]
    assert f"`{recipe}` above part 1" in docs

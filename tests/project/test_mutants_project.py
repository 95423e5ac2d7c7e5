"""The project file (project/load.py, environments.py), whole messages: where the project
file is found (here, above, not at all), a file that cannot be read or decoded, every
problem of a bad file at once; the selection error and the wrong-tenant guard in full;
the variables an environment's connection is made from; which changed files concern it."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError, UsageError
from reconciler.project import load_project, locate_project, resolve, select
from reconciler.project.environments import affected
from reconciler.project.load import find_project_file

TWO = """\
environments:
  acme:
    paths: [baseline, /abs/acme]
    var_files: [vars/acme.yaml]
    helpdesk_url: https://acme.example.com/helpdesk
    workspace_url: https://ws.acme.example.com
    search_rate_limit: 12
  globex:
    paths: [baseline]
"""


def write(folder: Path, text: str = TWO) -> Path:
    path = folder / "reconciler.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        load_project(path)
    return [p.replace(f"{path}:", "") for p in caught.value.problems]


def test_the_project_file_is_found_here_or_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path)
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert find_project_file(tmp_path) == Path("reconciler.yaml")  # named as given
    assert locate_project(None).names == ["acme", "globex"]
    assert find_project_file(inner) == tmp_path.resolve() / "reconciler.yaml"
    monkeypatch.chdir(inner)
    assert find_project_file(tmp_path) == tmp_path / "reconciler.yaml"
    assert locate_project(None).path == tmp_path.resolve() / "reconciler.yaml"
    assert locate_project(tmp_path / "reconciler.yaml").path == tmp_path / "reconciler.yaml"


def test_no_project_file_says_how_to_give_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert find_project_file(tmp_path) is None
    with pytest.raises(UsageError) as refused:
        locate_project(None)
    assert str(refused.value) == (
        "--env needs a project file: no reconciler.yaml in the current directory or above "
        "it (or give one with --project FILE; docs/environments.md)"
    )


def test_a_file_that_cannot_be_read_or_decoded(tmp_path: Path) -> None:
    folder = tmp_path / "reconciler.yaml"
    folder.mkdir()
    [message] = problems(folder)
    assert message.startswith("1:1: cannot read the project file: ")
    latin = tmp_path / "latin"
    latin.mkdir()
    (latin / "reconciler.yaml").write_bytes(b"environments:\n  caf\xe9: {paths: [x]}\n")
    [message] = problems(latin / "reconciler.yaml")
    assert "UTF-8" in message or "utf-8" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ["1:1: a project file holds one mapping: environments:"]),
        ("a: 1\n---\nb: 2\n", ["1:1: a project file holds one mapping: environments:"]),
        (
            "environments:\n  a:\n    paths: []\n    rate_limit: 20000\n  b:\n    paths: [x]\n"
            "    colour: red\n",
            [
                "3:12: environments.a.paths: list should have at least 1 item after "
                "validation, not 0",
                "4:17: environments.a.rate_limit: input should be less than or equal to 10000",
                "7:5: environments.b.colour: unknown field",
            ],
        ),
        (
            "environments:\n  a:\n",
            ["2:3: environments.a: input should be a valid dictionary or instance of Environment"],
        ),
        ("extra: 1\nenvironments: {a: {paths: [x]}}\n", ["1:1: extra: unknown field"]),
        ("environments: {a: {paths: [x]}}\nenvironments: {}\n", None),
    ],
)
def test_every_problem_of_a_bad_project_file(
    tmp_path: Path, text: str, expected: list[str] | None
) -> None:
    found = problems(write(tmp_path, text))
    if expected is None:  # a duplicate key: the YAML reader's own message, at its line
        assert len(found) == 1 and found[0].startswith("2:1: ")
    else:
        assert found == expected


def test_waves_are_all_or_nothing(tmp_path: Path) -> None:
    text = (
        "environments:\n  a: {paths: [x], wave: 2}\n  b: {paths: [x]}\n"
        "  c: {paths: [x], wave: 1}\n  d: {paths: [x]}\n"
    )
    path = write(tmp_path, text)
    example = "a is in wave 2 at 2:3"  # the file's name is taken off each problem
    assert problems(path) == [
        f"3:3: environments.b: no wave, but other environments have one ({example}): give "
        "every environment a wave, or none",
        f"5:3: environments.d: no wave, but other environments have one ({example}): give "
        "every environment a wave, or none",
    ]


def test_the_selection_error_in_full(tmp_path: Path) -> None:
    path = write(tmp_path)
    with pytest.raises(UsageError) as refused:
        select(load_project(path), ["prod", "acme", "stag*"])
    assert str(refused.value) == (
        f"no environment 'prod', 'stag*' in {path} (its environments: acme, globex)"
    )


def test_the_guard_names_every_address_given_and_both_ways_out(tmp_path: Path) -> None:
    path = write(tmp_path)
    target = resolve(load_project(path), "acme")
    environ = {"HELPDESK_URL": "https://globex.example.com", "WORKSPACE_URL": "https://ws.x"}
    with pytest.raises(UsageError) as refused:
        target.guard(environ, helpdesk_flag="https://other.example.com")
    where = f"({path}:2:3)"
    assert str(refused.value) == (
        "wrong tenant: --helpdesk-url is https://other.example.com, but environment acme is "
        f"bound to https://acme.example.com/helpdesk {where}; HELPDESK_URL is "
        "https://globex.example.com, but environment acme is bound to "
        f"https://acme.example.com/helpdesk {where}; WORKSPACE_URL is https://ws.x, but "
        f"environment acme is bound to https://ws.acme.example.com {where}. Nothing was "
        "sent: unset the variable (or drop the flag) to use the environment's own address"
    )


def test_what_an_environment_is_made_of(tmp_path: Path) -> None:
    project = load_project(write(tmp_path))
    acme, globex = resolve(project, "acme"), resolve(project, "globex")
    assert acme.paths == (tmp_path / "baseline", Path("/abs/acme"))
    assert acme.var_files == (tmp_path / "vars/acme.yaml",)
    assert (acme.rate_limit, acme.search_rate_limit) == (None, 12)
    assert acme.where == f"{tmp_path / 'reconciler.yaml'}:2:3"
    assert project.where("nobody") == str(tmp_path / "reconciler.yaml")
    assert acme.variables({"X": "1"}) == {
        "X": "1",
        "HELPDESK_URL": "https://acme.example.com/helpdesk",
        "WORKSPACE_URL": "https://ws.acme.example.com",
    }
    assert globex.variables({"HELPDESK_URL": "u"}) == {"HELPDESK_URL": "u"}
    assert globex.var_files == () and globex.helpdesk_url is None


def test_which_changed_files_concern_an_environment(tmp_path: Path) -> None:
    project = load_project(write(tmp_path))
    acme, globex = resolve(project, "acme"), resolve(project, "globex")
    base = tmp_path / "baseline"
    assert affected(project, globex, [base / "users.yaml"])
    assert affected(project, globex, [base])
    assert affected(project, globex, [tmp_path / "reconciler.yaml"])
    assert affected(project, acme, [tmp_path / "vars" / "acme.yaml"])
    assert not affected(project, globex, [tmp_path / "vars" / "acme.yaml"])
    assert not affected(project, globex, [tmp_path / "baseline-old" / "x.yaml"])
    assert not affected(project, globex, [])
    assert affected(project, acme, [Path("/abs/acme/./users.yaml")])


def test_an_environment_without_safety_overrides_keeps_the_manifests_brake(
    tmp_path: Path,
) -> None:
    from reconciler.manifest.models import Safety

    globex = resolve(load_project(write(tmp_path)), "globex")
    given = Safety(max_change_percent=12, min_existing=4, max_irreversible=2)
    assert globex.safety(given) == given

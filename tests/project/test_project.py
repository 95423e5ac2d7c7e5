"""The project file (reconciler/project/): loading with located problems, selection by
pattern, URL normalisation, the wrong-tenant guard and per-environment credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError, UsageError
from reconciler.project import (
    load_project,
    locate_project,
    normalise_url,
    project_schema_text,
    resolve,
    select,
)
from reconciler.project.environments import affected, listings
from reconciler.project.load import find_project_file

GOOD = """\
environments:
  acme:
    paths: [baseline, tenants/acme]
    var_files: [vars/acme.yaml]
    helpdesk_url: https://acme.example.com/helpdesk
    workspace_url: https://ws.acme.example.com
    credentials:
      HELPDESK_TOKEN: ACME_HELPDESK_TOKEN
      WORKSPACE_API_KEY: ACME_WORKSPACE_API_KEY
    rate_limit: 30
    safety: {max_change_percent: 5}
  acme-staging:
    paths: [baseline]
  globex:
    paths: [baseline, tenants/globex]
"""


def project(tmp_path: Path, text: str = GOOD) -> Path:
    path = tmp_path / "reconciler.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# (project file text, a problem it gives, as shown)
BAD_PROJECT_FILES = [
    (
        "environments: {}\n",
        "reconciler.yaml:1:15: environments: dictionary should have at least 1 item",
    ),
    (
        "environments:\n  a:\n    var_files: []\n",
        "reconciler.yaml:3:5: environments.a: missing required field 'paths'",
    ),
    (
        "environments:\n  a:\n    paths: [x]\n    helpdsk_url: u\n",
        "reconciler.yaml:4:5: environments.a.helpdsk_url: unknown field",
    ),
    (
        "environments:\n  a:\n    paths: [x]\n    rate_limit: 20000\n",
        "reconciler.yaml:4:17: "
        "environments.a.rate_limit: input should be less than or equal to 10000",
    ),
    (
        "environments:\n  a:\n    paths: [x]\n    credentials: {HELPDESK_TOKEN: 'not a name'}\n",
        "reconciler.yaml:4:35: "
        "environments.a.credentials.HELPDESK_TOKEN: string should match pattern",
    ),
    (
        "environments:\n  a b:\n    paths: [x]\n",
        "reconciler.yaml:2:3: environments.a b",
    ),
    (
        "- just a list\n",
        "reconciler.yaml:1:1: a project file holds one mapping",
    ),
    (
        "environments: [\n",
        "reconciler.yaml:2:1: ",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD_PROJECT_FILES)
def test_a_bad_project_file_is_reported_at_its_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = project(tmp_path, text)
    with pytest.raises(ManifestError) as caught:
        load_project(path)
    shown = "\n".join(caught.value.problems).replace(str(tmp_path) + "/", "")
    assert expected in shown


@pytest.mark.parametrize(
    ("patterns", "expected"),
    [
        (["*"], ["acme", "acme-staging", "globex"]),
        (["acme*"], ["acme", "acme-staging"]),
        (["globex", "acme"], ["acme", "globex"]),  # the project's order, not the flags'
        (["acme", "acme"], ["acme"]),
        (["?lobex"], ["globex"]),
    ],
)
def test_patterns_select_in_the_project_order(
    tmp_path: Path, patterns: list[str], expected: list[str]
) -> None:
    assert select(load_project(project(tmp_path)), patterns) == expected


def test_a_pattern_matching_nothing_names_the_environments(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as refused:
        select(load_project(project(tmp_path)), ["acme", "prod"])
    assert str(refused.value) == (
        f"no environment 'prod' in {tmp_path / 'reconciler.yaml'} (its environments: acme, "
        "acme-staging, globex)"
    )


@pytest.mark.parametrize(
    ("given", "declared", "same"),
    [
        ("https://acme.example.com/helpdesk", "https://acme.example.com/helpdesk", True),
        ("HTTPS://ACME.example.com/helpdesk/", "https://acme.example.com/helpdesk", True),
        ("https://acme.example.com:443/helpdesk", "https://acme.example.com/helpdesk", True),
        ("http://acme.example.com:80", "http://acme.example.com/", True),
        ("http://acme.example.com/helpdesk", "https://acme.example.com/helpdesk", False),
        ("https://acme.example.com:8443/helpdesk", "https://acme.example.com/helpdesk", False),
        ("https://globex.example.com/helpdesk", "https://acme.example.com/helpdesk", False),
        ("https://acme.example.com/HelpDesk", "https://acme.example.com/helpdesk", False),
    ],
)
def test_urls_compare_after_normalising(given: str, declared: str, same: bool) -> None:
    assert (normalise_url(given) == normalise_url(declared)) is same


@pytest.mark.parametrize(
    ("environ", "flags", "named"),
    [
        ({"HELPDESK_URL": "https://globex.example.com/helpdesk"}, {}, "HELPDESK_URL is https://globex"),
        ({"WORKSPACE_URL": "https://ws.globex.example.com"}, {}, "WORKSPACE_URL is https://ws.globex"),
        ({}, {"helpdesk_flag": "https://globex.example.com/helpdesk"}, "--helpdesk-url is https://globex"),
        ({}, {"workspace_flag": "https://ws.globex.example.com"}, "--workspace-url is https://ws.globex"),
    ],
)  # fmt: skip
def test_the_guard_names_both_addresses(
    tmp_path: Path, environ: dict[str, str], flags: dict[str, str], named: str
) -> None:
    target = resolve(load_project(project(tmp_path)), "acme")
    with pytest.raises(UsageError) as caught:
        target.guard(environ, **flags)
    assert named in str(caught.value)
    assert "bound to https://" in str(caught.value) and "reconciler.yaml:2:3" in str(caught.value)


def test_the_guard_accepts_the_same_address_and_unbound_environments(tmp_path: Path) -> None:
    loaded = load_project(project(tmp_path))
    resolve(loaded, "acme").guard(
        {"HELPDESK_URL": "HTTPS://acme.example.com:443/helpdesk/"},
        workspace_flag="https://ws.acme.example.com/",
    )
    resolve(loaded, "globex").guard({"HELPDESK_URL": "https://anything.example.com"})


def test_credentials_come_from_the_variables_named_and_replace_the_plain_ones(
    tmp_path: Path,
) -> None:
    target = resolve(load_project(project(tmp_path)), "acme")
    environ = {
        "ACME_HELPDESK_TOKEN": "acme-token",
        "ACME_WORKSPACE_API_KEY": "acme-key",
        "HELPDESK_TOKEN": "someone-elses",
        "HELPDESK_USERNAME": "someone",
        "HELPDESK_PASSWORD": "else",
        "OTHER": "kept",
    }
    found = target.variables(environ)
    assert found["HELPDESK_TOKEN"] == "acme-token"
    assert found["WORKSPACE_API_KEY"] == "acme-key"
    assert "HELPDESK_USERNAME" not in found and "HELPDESK_PASSWORD" not in found
    assert found["HELPDESK_URL"] == "https://acme.example.com/helpdesk"
    assert found["OTHER"] == "kept"
    assert target.paths == (tmp_path / "baseline", tmp_path / "tenants/acme")
    assert target.rate_limit == 30


def test_a_missing_credential_variable_is_named_never_its_value(tmp_path: Path) -> None:
    target = resolve(load_project(project(tmp_path)), "acme")
    with pytest.raises(UsageError) as refused:
        target.variables({"ACME_HELPDESK_TOKEN": "secret-value"})
    assert str(refused.value) == (
        "environment acme: ACME_WORKSPACE_API_KEY (its WORKSPACE_API_KEY) not set "
        f"({tmp_path / 'reconciler.yaml'}:2:3)"
    )


def test_every_missing_credential_variable_is_named_at_once(tmp_path: Path) -> None:
    target = resolve(load_project(project(tmp_path)), "acme")
    with pytest.raises(UsageError) as refused:
        target.variables({})
    assert str(refused.value) == (
        "environment acme: ACME_HELPDESK_TOKEN (its HELPDESK_TOKEN), ACME_WORKSPACE_API_KEY "
        f"(its WORKSPACE_API_KEY) not set ({tmp_path / 'reconciler.yaml'}:2:3)"
    )


def test_a_workspace_credential_alone_is_read_and_the_helpdesk_variables_serve(
    tmp_path: Path,
) -> None:
    text = "environments:\n  ws:\n    paths: [x]\n    credentials: {WORKSPACE_API_KEY: WS_KEY}\n"
    target = resolve(load_project(project(tmp_path, text)), "ws")
    environ = {"WS_KEY": "ws-key", "WORKSPACE_API_KEY": "someone-elses", "HELPDESK_TOKEN": "t"}
    assert target.variables(environ) == {
        "WS_KEY": "ws-key",
        "WORKSPACE_API_KEY": "ws-key",
        "HELPDESK_TOKEN": "t",
    }


def test_each_environment_knows_every_variable_any_environment_reads_a_credential_from(
    tmp_path: Path,
) -> None:
    loaded = load_project(project(tmp_path))
    assert resolve(loaded, "globex").credential_variables == {
        "ACME_HELPDESK_TOKEN",
        "ACME_WORKSPACE_API_KEY",
    }


def test_without_credentials_the_plain_variables_serve(tmp_path: Path) -> None:
    target = resolve(load_project(project(tmp_path)), "globex")
    assert target.variables({"HELPDESK_TOKEN": "t"})["HELPDESK_TOKEN"] == "t"


def test_safety_overrides_replace_only_what_they_give(tmp_path: Path) -> None:
    from reconciler.manifest.models import Safety

    target = resolve(load_project(project(tmp_path)), "acme")
    merged = target.safety(Safety(max_change_percent=30, min_existing=3))
    assert (merged.max_change_percent, merged.min_existing) == (5, 3)


def test_the_committed_schema_is_current() -> None:
    committed = Path(__file__).parents[2] / "schemas" / "project.schema.json"
    assert committed.read_text(encoding="utf-8") == project_schema_text()


# The project file (project/load.py, environments.py), whole messages: where the project file is
# found (here, above, not at all), a file that cannot be read or decoded, every problem of a bad
# file at once; the selection error and the wrong-tenant guard in full; the variables an
# environment's connection is made from; which changed files concern it; the listing of the
# project file given.

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


def test_a_selection_naming_unknown_environments_is_refused_naming_them(tmp_path: Path) -> None:
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
    assert acme.root == globex.root == tmp_path  # var files outside it are not read
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


def test_the_listing_is_of_the_project_file_given_not_of_the_one_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = write(tmp_path)
    here = tmp_path / "elsewhere"
    here.mkdir()
    write(here, "environments:\n  other:\n    paths: [x]\n")
    monkeypatch.chdir(here)
    assert listings(given, ["a*"]) == [
        {
            "name": "acme",
            "description": None,
            "paths": [str(tmp_path / "baseline"), "/abs/acme"],
            "var_files": [str(tmp_path / "vars" / "acme.yaml")],
            "helpdesk_url": "https://acme.example.com/helpdesk",
            "workspace_url": "https://ws.acme.example.com",
            "credentials": {},
            "wave": None,
        }
    ]

"""The project file (reconciler/project/): loading with located problems, selection by
pattern, URL normalisation, the wrong-tenant guard and per-environment credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError, UsageError
from reconciler.project import load_project, normalise_url, project_schema_text, resolve, select

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
    with pytest.raises(UsageError, match=r"no environment 'prod' .*acme, acme-staging, globex"):
        select(load_project(project(tmp_path)), ["acme", "prod"])


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
    with pytest.raises(UsageError, match=r"ACME_WORKSPACE_API_KEY .*not set"):
        target.variables({"ACME_HELPDESK_TOKEN": "secret-value"})


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

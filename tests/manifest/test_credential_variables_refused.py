"""No manifest value reads a variable that holds a credential: a value is shown in plans
and comments, and written to the helpdesk (a company's notes holding the admin token,
shown as `***` in the plan, would be written in clear). Refused, each with the field it is
in: the variables reconciler.yaml names under `credentials:`, the CI platforms' tokens,
and any name that says it is a secret, unless `settings.allow_variables` names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.validate import validate_manifests
from reconciler.manifest.variables import PLATFORM_CREDENTIALS, Variables

ADMIN_TOKEN = "the-admin-token-of-acme"
SHOWN = "values in manifests are shown in plans and pull-request comments"


def problems(text: str, env: dict[str, str], **options: object) -> list[str]:
    with pytest.raises(ManifestError) as raised:
        load_manifest_text(text, "m.yaml", env=env, **options)  # type: ignore[arg-type]
    assert all(ADMIN_TOKEN not in problem for problem in raised.value.problems)
    return raised.value.problems


def test_a_variable_reconciler_yaml_names_under_credentials_is_refused(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text("companies:\n  - name: Acme\n    notes: '${SVC_TOK}'\n", encoding="utf-8")
    with pytest.raises(ManifestError) as raised:
        validate_manifests([manifest], {"SVC_TOK": ADMIN_TOKEN}, credential_variables=["SVC_TOK"])
    assert raised.value.problems == [
        f"{manifest}:3:12: companies[0].notes: '${{SVC_TOK}}' refers to a credential: "
        f"reconciler.yaml names SVC_TOK under `credentials:` ({SHOWN})"
    ]


@pytest.mark.parametrize("name", sorted(PLATFORM_CREDENTIALS))
def test_a_ci_platforms_token_is_refused(name: str) -> None:
    text = f"users: [{{username: a, notes: 'x ${{{name}}}'}}]\n"
    assert problems(text, {name: ADMIN_TOKEN}) == [
        f"m.yaml:1:30: users[0].notes: '${{{name}}}' refers to a credential: "
        f"{name} is a CI platform's token ({SHOWN})"
    ]


@pytest.mark.parametrize(
    "name", ["SMTP_TOKEN", "DB_PASSWORD", "APP_SECRET", "SIGNING_KEY", "smtp_password", "PASSWORD"]
)
def test_a_name_that_says_it_is_a_secret_is_refused(name: str) -> None:
    text = f"companies:\n  - name: Acme\n    email_domains: [a.example.com, '${{{name}}}']\n"
    assert problems(text, {name: ADMIN_TOKEN}) == [
        f"m.yaml:3:36: companies[0].email_domains[1]: '${{{name}}}' may hold a secret (its "
        f"name says so), and {SHOWN}: list {name} under settings.allow_variables if it "
        "holds none"
    ]


@pytest.mark.parametrize("name", ["KEYBOARD", "MONKEY", "TOKENS_LEFT", "PASSWORD_HINT", "TEAM"])
def test_names_that_only_contain_the_words_are_read(name: str) -> None:
    text = "companies: [{name: '${" + name + "}'}]\n"
    desired = load_manifest_text(text, env={name: "Acme"})
    assert [c.name for c in desired.manifest.companies] == ["Acme"]


def test_settings_allow_a_secret_looking_name_by_name() -> None:
    text = (
        "settings:\n  allow_variables: [SUPPORT_PORTAL_KEY]\n"
        "companies:\n  - name: Acme\n    notes: 'portal ${SUPPORT_PORTAL_KEY}'\n"
    )
    desired = load_manifest_text(text, env={"SUPPORT_PORTAL_KEY": "public-42"})
    assert desired.manifest.companies[0].notes == "portal public-42"
    assert desired.manifest.settings.allow_variables == ["SUPPORT_PORTAL_KEY"]


def test_an_allowance_in_another_file_counts_and_others_stay_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "companies:\n  - name: Acme\n    notes: '${PORTAL_KEY} ${OTHER_KEY}'\n", encoding="utf-8"
    )
    (tmp_path / "b.yaml").write_text("settings: {allow_variables: [PORTAL_KEY]}\n", "utf-8")
    env = {"PORTAL_KEY": "p", "OTHER_KEY": ADMIN_TOKEN}
    with pytest.raises(ManifestError) as raised:
        validate_manifests([tmp_path / "a.yaml", tmp_path / "b.yaml"], env)
    [problem] = raised.value.problems
    assert "'${OTHER_KEY}' may hold a secret" in problem and "PORTAL_KEY'" not in problem


@pytest.mark.parametrize(
    ("name", "env", "credentials", "why"),
    [
        ("HELPDESK_TOKEN", {}, (), "a manifest may not read HELPDESK_PASSWORD"),
        ("GITHUB_TOKEN", {}, (), "GITHUB_TOKEN is a CI platform's token"),
        ("SVC_TOK", {}, ("SVC_TOK",), "reconciler.yaml names SVC_TOK under `credentials:`"),
        ("SMTP_PASS", {"RECONCILER_SECRET_VARIABLES": "SMTP_PASS"}, (), "may not read"),
    ],
)
def test_no_setting_allows_a_credential(
    name: str, env: dict[str, str], credentials: tuple[str, ...], why: str
) -> None:
    text = f"settings: {{allow_variables: [{name}]}}\ncompanies: [{{name: '${{{name}}}'}}]\n"
    found = problems(text, {**env, name: ADMIN_TOKEN}, credential_variables=credentials)
    assert len(found) == 2
    assert found[0].startswith(f"m.yaml:1:30: settings.allow_variables[0]: {name} cannot be")
    assert why in found[0]
    assert found[1].startswith(f"m.yaml:2:20: companies[0].name: '${{{name}}}' refers to a")


def test_an_allowance_names_a_variable_not_a_pattern() -> None:
    assert problems("settings: {allow_variables: ['*_KEY']}\n", {})[0].startswith(
        "m.yaml:1:30: settings.allow_variables[0]:"
    )


def test_the_variables_refuse_before_looking_up() -> None:
    variables = Variables({"X_TOKEN": ADMIN_TOKEN}, {"Y_SECRET": ADMIN_TOKEN})
    for name in ("X_TOKEN", "Y_SECRET"):
        value, found = variables.substitute(f"${{{name}}}")
        assert value == f"${{{name}}}" and len(found) == 1
    assert variables.refused == {"X_TOKEN", "Y_SECRET"}
    allowed = variables.allowing(["X_TOKEN"])
    assert allowed.substitute("${X_TOKEN}") == (ADMIN_TOKEN, [])

"""`${NAME}` substitution in-process (`Variables.substitute`): what replaces what, and the
exact message a person reads for each reference that cannot be replaced. The messages
as the CLI prints them, with file and line, are in test_bad_input.py."""

from __future__ import annotations

import pytest

from reconciler.manifest.variables import Variables

SECRET = "s3cr3t-value-never-shown"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("${TEAM}", "Ops"),
        ("a ${TEAM} b ${SITE}", "a Ops b Leeds"),
        ("$${TEAM}", "${TEAM}"),  # a literal `${`
        ("$$${TEAM}", "$${TEAM}"),  # `$` then a literal `${`
        ("cost $5 and $TEAM", "cost $5 and $TEAM"),  # a `$` elsewhere is left alone
        ("${FROM_FILE}", "file wins"),
        ("${EMPTY}", ""),
    ],
)
def test_references_are_replaced(text: str, expected: str) -> None:
    env = {"TEAM": "Ops", "SITE": "Leeds", "FROM_FILE": "env loses", "EMPTY": "x"}
    variables = Variables(env, {"FROM_FILE": "file wins", "EMPTY": ""})
    assert variables.substitute(text) == (expected, [])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("${MISSING}", "variable 'MISSING' is not set"),
        ("${TEAM", "unterminated '${': write '${NAME}', or '$${' for a literal '${'"),
        (
            "${9LIVES}",
            "invalid variable name '9LIVES' in '${9LIVES}': names are letters, digits and "
            "'_', not starting with a digit ('$${' writes a literal '${')",
        ),
        (
            "${}",
            "invalid variable name '' in '${}': names are letters, digits and '_', not "
            "starting with a digit ('$${' writes a literal '${')",
        ),
        (
            "${HELPDESK_PASSWORD}",
            "'${HELPDESK_PASSWORD}' refers to a credential: a manifest may not read "
            "HELPDESK_PASSWORD, HELPDESK_TOKEN, SMTP_PASS, WORKSPACE_API_KEY (values in "
            "manifests are shown in plans and pull-request comments; "
            "RECONCILER_SECRET_VARIABLES names more)",
        ),
        ("${SMTP_PASS}", "'${SMTP_PASS}' refers to a credential"),
    ],
)
def test_a_reference_that_cannot_be_replaced_is_left_as_written_with_a_message(
    text: str, message: str
) -> None:
    env = {
        "TEAM": "Ops",
        "HELPDESK_PASSWORD": SECRET,
        "SMTP_PASS": SECRET,
        "RECONCILER_SECRET_VARIABLES": "SMTP_PASS",
    }
    result, problems = Variables(env, {"SMTP_PASS": SECRET}).substitute(text)
    assert result == text
    assert len(problems) == 1
    assert problems[0].startswith(message)
    assert SECRET not in problems[0]


def test_every_bad_reference_in_a_value_has_its_message() -> None:
    result, problems = Variables({"A": "1"}).substitute("${A} ${B} ${C}")
    assert result == "1 ${B} ${C}"
    assert problems == ["variable 'B' is not set", "variable 'C' is not set"]

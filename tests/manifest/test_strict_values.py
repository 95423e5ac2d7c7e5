"""A manifest's values mean what they say (manifest/values.py): booleans, whole numbers
within 32 bits, percentages, e-mail addresses and domains, and custom field values, written
or given by a variable (`${NAME}` alone), each refused with the message `validate` shows,
or read as the value the plan then compares. Two tables: values refused, values read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import Manifest, load_manifests

RULE = "automation_rules:\n  - id: {id}\n    enabled: {enabled}\n"
SAFETY = "settings:\n  safety:\n    max_change_percent: {percent}\n    min_existing: {count}\n"
USER = "users:\n  - username: a\n    email: {email}\n"
COMPANY = "companies:\n  - name: A\n    email_domains: [{domain}]\n"
FIELD = "users:\n  - username: a\n    custom_fields:\n      X: {value}\n"
INT32 = "(the API stores it in 32 bits)"
DOMAIN = (
    "letters, digits, '-' and '.' (an internationalised domain in its xn-- form); one "
    "domain per list item"
)
SPECIAL = (
    "is not a value a field can hold: YAML reads an unquoted .inf or .nan as a special "
    "number; quote it (for example '.{bare}') to write it as text"
)
HOSTNAME_253 = ".".join(["a" * 63] * 3 + ["a" * 61])

# (id, manifest, variables, the problems after "m.yaml:")
REFUSED: list[tuple[str, str, dict[str, str], list[str]]] = [
    (
        "a boolean variable that is no boolean",
        RULE.format(id=5, enabled="${ON}"),
        {"ON": "1"},
        ["3:14: automation_rules[0].enabled: expected true or false, found '1' (from a variable)"],
    ),
    (
        "an unset variable is reported once",
        RULE.format(id="${ID}", enabled="${ON}"),
        {},
        ["2:9: variable 'ID' is not set", "3:14: variable 'ON' is not set"],
    ),
    (
        "a YAML 1.1 boolean",
        RULE.format(id=5, enabled="On"),
        {},
        [
            "3:14: automation_rules[0].enabled: expected true or false, found 'On' (YAML 1.2 "
            "reads it as text)"
        ],
    ),
    (
        "null for a boolean",
        RULE.format(id=5, enabled="null"),
        {},
        ["3:14: automation_rules[0].enabled: expected true or false, found nothing (null)"],
    ),
    (
        "a number for a boolean",
        RULE.format(id=5, enabled="1"),
        {},
        ["3:14: automation_rules[0].enabled: expected true or false, found 1"],
    ),
    (
        "quoted true",
        RULE.format(id=5, enabled="'true'"),
        {},
        ["3:14: automation_rules[0].enabled: expected true or false, found 'true'"],
    ),
    (
        "a whole-number variable that is a fraction",
        RULE.format(id="${ID}", enabled="true"),
        {"ID": "7.5"},
        ["2:9: automation_rules[0].id: expected a whole number, found '7.5' (from a variable)"],
    ),
    (
        "an id of 0",
        RULE.format(id=0, enabled="true"),
        {},
        [f"2:9: automation_rules[0].id: 0 is out of range: from 1 to 2147483647 {INT32}"],
    ),
    (
        "an id past 32 bits",
        RULE.format(id=2147483648, enabled="true"),
        {},
        [f"2:9: automation_rules[0].id: 2147483648 is out of range: from 1 to 2147483647 {INT32}"],
    ),
    (
        "true for an id",
        RULE.format(id="true", enabled="true"),
        {},
        ["2:9: automation_rules[0].id: expected a whole number, found true"],
    ),
    (
        "quoted digits for an id",
        RULE.format(id="'5'", enabled="true"),
        {},
        ["2:9: automation_rules[0].id: expected a whole number, found '5'"],
    ),
    (
        "a fraction for an id",
        RULE.format(id="5.0", enabled="true"),
        {},
        ["2:9: automation_rules[0].id: expected a whole number, found 5.0"],
    ),
    (
        "out of range percent and count",
        SAFETY.format(percent=100.5, count=-1),
        {},
        [
            "3:25: settings.safety.max_change_percent: 100.5 is out of range: from 0 to 100",
            f"4:19: settings.safety.min_existing: -1 is out of range: from 0 to 2147483647 {INT32}",
        ],
    ),
    (
        "a negative percent",
        SAFETY.format(percent=-0.5, count=3),
        {},
        ["3:25: settings.safety.max_change_percent: -0.5 is out of range: from 0 to 100"],
    ),
    (
        "a number variable that is no number",
        SAFETY.format(percent="${P}", count=3),
        {"P": "abc"},
        [
            "3:25: settings.safety.max_change_percent: expected a number, found 'abc' (from a "
            "variable)"
        ],
    ),
    (
        "false for a number",
        SAFETY.format(percent="false", count=3),
        {},
        ["3:25: settings.safety.max_change_percent: expected a number, found false"],
    ),
    (
        "text for a number",
        SAFETY.format(percent="'5'", count=3),
        {},
        ["3:25: settings.safety.max_change_percent: expected a number, found '5'"],
    ),
    (
        "an e-mail domain without a dot",
        USER.format(email="a@b"),
        {},
        [
            "3:12: users[0].email: 'a@b' is not an e-mail address: the domain 'b' has no '.', "
            "and the workspace service refuses such an address"
        ],
    ),
    (
        "an e-mail domain of dots only",
        USER.format(email="a@b."),
        {},
        [
            "3:12: users[0].email: 'a@b.' is not an e-mail address: the domain 'b.' has no "
            "'.', and the workspace service refuses such an address"
        ],
    ),
    (
        "an e-mail with a space",
        USER.format(email="'a b@c.com'"),
        {},
        [
            "3:12: users[0].email: 'a b@c.com' is not an e-mail address: The email address "
            "contains invalid characters before the @-sign: SPACE."
        ],
    ),
    (
        "a domain holding ;",
        COMPANY.format(domain="'a.com;b.com'"),
        {},
        [
            "3:21: companies[0].email_domains[0]: 'a.com;b.com' is not a domain name (it holds "
            f"';'): {DOMAIN}"
        ],
    ),
    (
        "a domain holding a space",
        COMPANY.format(domain="'a .com'"),
        {},
        [
            "3:21: companies[0].email_domains[0]: 'a .com' is not a domain name (it holds white "
            f"space): {DOMAIN}"
        ],
    ),
    (
        "a domain holding _",
        COMPANY.format(domain="a_b.com"),
        {},
        [f"3:21: companies[0].email_domains[0]: 'a_b.com' is not a domain name: {DOMAIN}"],
    ),
    (
        "a domain too long",
        COMPANY.format(domain=HOSTNAME_253 + "a"),
        {},
        [f"3:21: companies[0].email_domains[0]: '{HOSTNAME_253}a' is not a domain name: {DOMAIN}"],
    ),
    (
        "infinity",
        FIELD.format(value=".inf"),
        {},
        ["4:10: users[0].custom_fields.X: inf " + SPECIAL.format(bare="inf")],
    ),
    (
        "minus infinity",
        FIELD.format(value="-.inf"),
        {},
        ["4:10: users[0].custom_fields.X: -inf " + SPECIAL.format(bare="inf")],
    ),
    (
        "not a number",
        FIELD.format(value=".nan"),
        {},
        ["4:10: users[0].custom_fields.X: nan " + SPECIAL.format(bare="nan")],
    ),
    (
        "a number too large",
        FIELD.format(value="1e999"),
        {},
        ["4:10: users[0].custom_fields.X: inf " + SPECIAL.format(bare="inf")],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "variables", "problems"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
@pytest.mark.usefixtures("no_network")
def test_a_value_refused(
    manifest: str,
    variables: dict[str, str],
    problems: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(manifest, encoding="utf-8")
    with pytest.raises(ManifestError) as refused:
        load_manifests([Path("m.yaml")], {}, variables)
    assert refused.value.problems == [f"m.yaml:{problem}" for problem in problems]


def _rule(manifest: Manifest) -> tuple[int, bool]:
    rule = manifest.automation_rules[0]
    return rule.id, rule.enabled


def _safety(manifest: Manifest) -> tuple[float, int]:
    assert manifest.settings is not None
    return manifest.settings.safety.max_change_percent, manifest.settings.safety.min_existing


# (id, manifest, variables, what is read, the value read)
READ: list[tuple[str, str, dict[str, str], Any, Any]] = [
    (
        "true from a variable",
        RULE.format(id=5, enabled="${ON}"),
        {"ON": " TRUE "},
        _rule,
        (5, True),
    ),
    (
        "false from a variable",
        RULE.format(id=5, enabled="${ON}"),
        {"ON": "False"},
        _rule,
        (5, False),
    ),
    (
        "an id from a variable",
        RULE.format(id="${ID}", enabled="false"),
        {"ID": " +7 "},
        _rule,
        (7, False),
    ),
    ("the largest id", RULE.format(id=2147483647, enabled="true"), {}, _rule, (2147483647, True)),
    ("the smallest id", RULE.format(id=1, enabled="true"), {}, _rule, (1, True)),
    ("the edges of safety", SAFETY.format(percent=100, count=0), {}, _safety, (100, 0)),
    ("zero percent", SAFETY.format(percent=0, count=2147483647), {}, _safety, (0, 2147483647)),
    (
        "a percent from a variable",
        SAFETY.format(percent="${P}", count=3),
        {"P": " 2.5e1 "},
        _safety,
        (25.0, 3),
    ),
    (
        "a fraction from a variable",
        SAFETY.format(percent="${P}", count="${C}"),
        {"P": ".5", "C": "-0"},
        _safety,
        (0.5, 0),
    ),
    (
        "an e-mail address trimmed",
        USER.format(email="' a@b.com '"),
        {},
        lambda m: m.users[0].email,
        "a@b.com",
    ),
    (
        "a reserved domain (self-hosted installs)",
        USER.format(email="a@corp.local"),
        {},
        lambda m: m.users[0].email,
        "a@corp.local",
    ),
    (
        "an intranet host's address (its last label no public top-level domain)",
        USER.format(email="ops@mail.site-2"),
        {},
        lambda m: m.users[0].email,
        "ops@mail.site-2",
    ),
    (
        "an internationalised address",
        USER.format(email="jürgen@bücher.de"),
        {},
        lambda m: m.users[0].email,
        "jürgen@bücher.de",
    ),
    (
        "an e-mail from a variable",
        USER.format(email="${MAIL}"),
        {"MAIL": "x@y.org"},
        lambda m: m.users[0].email,
        "x@y.org",
    ),
    (
        "a domain trimmed, 253 characters long",
        COMPANY.format(domain=f"' {HOSTNAME_253} '"),
        {},
        lambda m: m.companies[0].email_domains,
        [HOSTNAME_253],
    ),
    (
        "a quoted .inf is text",
        FIELD.format(value="'.inf'"),
        {},
        lambda m: m.users[0].custom_fields,
        {"X": ".inf"},
    ),
    (
        "a large finite number",
        FIELD.format(value="1e300"),
        {},
        lambda m: m.users[0].custom_fields,
        {"X": 1e300},
    ),
]


@pytest.mark.parametrize(
    ("manifest", "variables", "read", "value"), [r[1:] for r in READ], ids=[r[0] for r in READ]
)
@pytest.mark.usefixtures("no_network")
def test_a_value_read(
    manifest: str,
    variables: dict[str, str],
    read: Any,
    value: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(manifest, encoding="utf-8")
    found = read(load_manifests([Path("m.yaml")], {}, variables).manifest)
    assert found == value
    assert type(found) is type(value)

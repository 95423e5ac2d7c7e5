"""A manifest's values mean what they say (manifest/values.py): booleans, whole numbers
within 32 bits, percentages, e-mail addresses and domains, and custom field values, written
or given by a variable (`${NAME}` alone), each refused with the message `validate` shows,
or read as the value the plan then compares. Two tables: values refused, values read."""

# ruff: noqa: E501  (a message is one line, whatever its length)

# ruff: noqa: E501  (a row of the table is one line, whatever its length)

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.document import Manifest
from reconciler.manifest.loader import load_manifest_text, load_manifests
from tests.manifest.refusals import problems_of

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


# A boolean field written with a YAML 1.1 word (`yes`, `no`, `on`, `off`, `y`, `n`, in any case)
# is refused with the reason: YAML 1.2 reads it as text. Any other text is refused without it.

HINT = " (YAML 1.2 reads it as text)"
WORDS = [("yes", HINT), ("no", HINT), ("on", HINT), ("off", HINT), ("y", HINT), ("n", HINT)]
WORDS += [("Off", HINT), ("YES", HINT), ("maybe", ""), ("true ", "")]


@pytest.mark.parametrize(("word", "hint"), WORDS, ids=[w for w, _ in WORDS])
@pytest.mark.usefixtures("no_network")
def test_a_yaml_1_1_boolean_word_is_refused_with_the_reason(
    word: str, hint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert problems_of(f"users: [{{username: a, is_admin: '{word}'}}]\n") == [
        f"m.yaml:1:33: users[0].is_admin: expected true or false, found '{word}'{hint}"
    ]


UNSET = [
    ("a domain", "companies: [{name: A, email_domains: ['${NOPE}']}]\n", ["1:39"]),
    ("a boolean and an e-mail", "users: [{username: a, is_admin: '${NOPE}', email: '${NOPE}'}]\n", ["1:33", "1:51"]),
    ("an id", "automation_rules: [{id: '${NOPE}', enabled: true}]\n", ["1:25"]),
    ("a percent and a count", "settings: {safety: {max_change_percent: '${NOPE}', min_existing: '${NOPE}'}}\n", ["1:41", "1:66"]),
    ("a quantity", "assets: [{serial_number: S, quantity: '${NOPE}'}]\n", ["1:39"]),
]  # fmt: skip


@pytest.mark.parametrize(("manifest", "places"), [u[1:] for u in UNSET], ids=[u[0] for u in UNSET])
@pytest.mark.usefixtures("no_network")
def test_a_variable_not_set_is_reported_once_not_again_as_a_bad_value(
    manifest: str, places: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NOPE", raising=False)
    assert problems_of(manifest) == [f"m.yaml:{p}: variable 'NOPE' is not set" for p in places]


# Strict values (manifest/values.py), pinned whole: whole numbers and numbers at and past each end
# of their ranges, given written or by a variable (which may pad them, sign them, or write `.5`
# and `1e2`), the YAML 1.1 words that are no booleans, e-mail addresses (the usual ones, the
# special-use domains, a domain without a dot, one email-validator refuses) and domain names
# (white space, `;`, a bad label, at most 253 characters), and the infinite numbers no custom
# field can hold. A variable not set is reported once, as such.

ENV = {
    "N": " 7 ", "P": "+7", "M": "-3", "F": "7.0", "H": ".5", "E": "1e2", "E3": "1e3",
    "X": "abc", "B": " TRUE ", "BF": "false", "Y": "yes", "MAIL": " v@acme.com ", "D": "acme.org",
}  # fmt: skip

REFUSED_IN_FULL = [
    (
        "assets: [{serial_number: a, quantity: 1}, {serial_number: b, quantity: 0}, {serial_number: c, quantity: 2147483647}, {serial_number: d, quantity: 2147483648}, {serial_number: e, quantity: -1}, {serial_number: f, quantity: 1.5}, {serial_number: g, quantity: '5'}, {serial_number: h, quantity: [1]}, {serial_number: i, quantity: 2027-01-01}, {serial_number: j, quantity: true}]\n",
        [
            "m.yaml:1:72: assets[1].quantity: 0 is out of range: from 1 to 2147483647 (the API stores it in 32 bits)",
            "m.yaml:1:147: assets[3].quantity: 2147483648 is out of range: from 1 to 2147483647 (the API stores it in 32 bits)",
            "m.yaml:1:189: assets[4].quantity: -1 is out of range: from 1 to 2147483647 (the API stores it in 32 bits)",
            "m.yaml:1:223: assets[5].quantity: expected a whole number, found 1.5",
            "m.yaml:1:258: assets[6].quantity: expected a whole number, found '5'",
            "m.yaml:1:293: assets[7].quantity: expected a whole number, found a list",
            "m.yaml:1:328: assets[8].quantity: expected a whole number, found a date",
            "m.yaml:1:370: assets[9].quantity: expected a whole number, found true",
        ],
    ),
    (
        "assets: [{serial_number: c, quantity: '${M}'}, {serial_number: d, quantity: '${F}'}, {serial_number: e, quantity: '${NOPE}'}, {serial_number: f, quantity: 'x${N}'}]\n",
        [
            "m.yaml:1:39: assets[0].quantity: -3 is out of range: from 1 to 2147483647 (the API stores it in 32 bits)",
            "m.yaml:1:77: assets[1].quantity: expected a whole number, found '7.0' (from a variable)",
            "m.yaml:1:115: variable 'NOPE' is not set",
            "m.yaml:1:156: assets[3].quantity: expected a whole number, found 'x 7 '",
        ],
    ),
    (
        "settings: {safety: {min_existing: 0, max_irreversible: -1, max_change_percent: 100}}\n",
        [
            "m.yaml:1:56: settings.safety.max_irreversible: -1 is out of range: from 0 to 2147483647 (the API stores it in 32 bits)",
        ],
    ),
    (
        "settings: {safety: {min_existing: 2147483648, max_change_percent: 100.5}}\n",
        [
            "m.yaml:1:35: settings.safety.min_existing: 2147483648 is out of range: from 0 to 2147483647 (the API stores it in 32 bits)",
            "m.yaml:1:67: settings.safety.max_change_percent: 100.5 is out of range: from 0 to 100",
        ],
    ),
    (
        "settings: {safety: {max_change_percent: -0.1}}\n",
        [
            "m.yaml:1:41: settings.safety.max_change_percent: -0.1 is out of range: from 0 to 100",
        ],
    ),
    (
        "settings: {safety: {max_change_percent: '${NOPE}', min_existing: '${NOPE}'}}\n",
        [
            "m.yaml:1:41: variable 'NOPE' is not set",
            "m.yaml:1:66: variable 'NOPE' is not set",
        ],
    ),
    (
        "settings: {safety: {max_change_percent: '${E3}'}}\n",
        [
            "m.yaml:1:41: settings.safety.max_change_percent: 1000.0 is out of range: from 0 to 100",
        ],
    ),
    (
        "settings: {safety: {max_change_percent: '${X}'}}\n",
        [
            "m.yaml:1:41: settings.safety.max_change_percent: expected a number, found 'abc' (from a variable)",
        ],
    ),
    (
        "settings: {safety: {max_change_percent: '50'}}\n",
        [
            "m.yaml:1:41: settings.safety.max_change_percent: expected a number, found '50'",
        ],
    ),
    (
        "settings: {safety: {max_change_percent: true}}\n",
        [
            "m.yaml:1:41: settings.safety.max_change_percent: expected a number, found true",
        ],
    ),
    (
        "users: [{username: a, is_admin: '${B}'}, {username: b, is_admin: Yes}, {username: c, is_admin: '${Y}'}, {username: d, is_admin: 'true'}, {username: e, disabled: '${NOPE}'}, {username: f, is_admin: maybe}, {username: g, disabled: 1}, {username: h, disabled: off}]\n",
        [
            "m.yaml:1:66: users[1].is_admin: expected true or false, found 'Yes' (YAML 1.2 reads it as text)",
            "m.yaml:1:96: users[2].is_admin: expected true or false, found 'yes' (from a variable) (YAML 1.2 reads it as text)",
            "m.yaml:1:129: users[3].is_admin: expected true or false, found 'true'",
            "m.yaml:1:162: variable 'NOPE' is not set",
            "m.yaml:1:198: users[5].is_admin: expected true or false, found 'maybe'",
            "m.yaml:1:230: users[6].disabled: expected true or false, found 1",
            "m.yaml:1:258: users[7].disabled: expected true or false, found 'off' (YAML 1.2 reads it as text)",
        ],
    ),
    (
        "users: [{username: b, email: 'a@b'}, {username: d, email: 'a@@b.com'}, {username: g, email: 5}, {username: h, email: '${NOPE}'}, {username: i, email: 'a@b.'}]\n",
        [
            "m.yaml:1:30: users[0].email: 'a@b' is not an e-mail address: the domain 'b' has no '.', and the workspace service refuses such an address",
            "m.yaml:1:59: users[1].email: 'a@@b.com' is not an e-mail address: The part after the @-sign contains invalid characters: '@'.",
            'm.yaml:1:93: users[2].email: expected text, found a number; quote it to keep it as written: "5"',
            "m.yaml:1:118: variable 'NOPE' is not set",
            "m.yaml:1:151: users[4].email: 'a@b.' is not an e-mail address: the domain 'b.' has no '.', and the workspace service refuses such an address",
        ],
    ),
    (
        "companies: [{name: a, email_domains: ['a b.com', '-a.com', 'a;b', '${NOPE}', 'a_b.com']}]\n",
        [
            "m.yaml:1:39: companies[0].email_domains[0]: 'a b.com' is not a domain name (it holds white space): letters, digits, '-' and '.' (an internationalised domain in its xn-- form); one domain per list item",
            "m.yaml:1:50: companies[0].email_domains[1]: '-a.com' is not a domain name: letters, digits, '-' and '.' (an internationalised domain in its xn-- form); one domain per list item",
            "m.yaml:1:60: companies[0].email_domains[2]: 'a;b' is not a domain name (it holds ';'): letters, digits, '-' and '.' (an internationalised domain in its xn-- form); one domain per list item",
            "m.yaml:1:67: variable 'NOPE' is not set",
            "m.yaml:1:78: companies[0].email_domains[4]: 'a_b.com' is not a domain name: letters, digits, '-' and '.' (an internationalised domain in its xn-- form); one domain per list item",
        ],
    ),
    (
        "users: [{username: a, custom_fields: {A: .inf, B: -.inf, C: .nan, D: '.inf', E: 1e400}}]\n",
        [
            "m.yaml:1:42: users[0].custom_fields.A: inf is not a value a field can hold: YAML reads an unquoted .inf or .nan as a special number; quote it (for example '.inf') to write it as text",
            "m.yaml:1:51: users[0].custom_fields.B: -inf is not a value a field can hold: YAML reads an unquoted .inf or .nan as a special number; quote it (for example '.inf') to write it as text",
            "m.yaml:1:61: users[0].custom_fields.C: nan is not a value a field can hold: YAML reads an unquoted .inf or .nan as a special number; quote it (for example '.nan') to write it as text",
            "m.yaml:1:81: users[0].custom_fields.E: inf is not a value a field can hold: YAML reads an unquoted .inf or .nan as a special number; quote it (for example '.inf') to write it as text",
        ],
    ),
]

ACCEPTED_AS_READ = [
    (
        "assets: [{serial_number: a, quantity: 1}, {serial_number: c, quantity: 2147483647}, {serial_number: n, quantity: '${N}'}, {serial_number: p, quantity: '${P}'}]\nsettings: {safety: {min_existing: 0, max_irreversible: 2147483647, max_change_percent: '${H}'}}\n",
        {
            "settings": {
                "safety": {
                    "max_change_percent": 0.5,
                    "min_existing": 0,
                    "max_irreversible": 2147483647,
                }
            },
            "assets": [
                {"serial_number": "a", "quantity": 1},
                {"serial_number": "c", "quantity": 2147483647},
                {"serial_number": "n", "quantity": 7},
                {"serial_number": "p", "quantity": 7},
            ],
        },
    ),
    (
        "settings: {safety: {max_change_percent: '${E}', min_existing: '${N}'}}\n",
        {"settings": {"safety": {"max_change_percent": 100.0, "min_existing": 7}}},
    ),
    (
        "settings: {safety: {max_change_percent: 0}}\n",
        {"settings": {"safety": {"max_change_percent": 0.0}}},
    ),
    (
        "users: [{username: a, is_admin: '${B}', disabled: '${BF}'}, {username: g, is_admin: null, disabled: false}, {username: b, email: ' a@acme.com '}, {username: c, email: a@corp.local}, {username: d, email: 'ü@corp.local'}, {username: e, email: 'café@example.com'}, {username: f, email: '${MAIL}'}]\n",
        {
            "users": [
                {"username": "a", "is_admin": True, "disabled": False},
                {"username": "g", "is_admin": None, "disabled": False},
                {"username": "b", "email": "a@acme.com"},
                {"username": "c", "email": "a@corp.local"},
                {"username": "d", "email": "ü@corp.local"},
                {"username": "e", "email": "café@example.com"},
                {"username": "f", "email": "v@acme.com"},
            ]
        },
    ),
    (
        "companies: [{name: a, email_domains: [' acme.com ', '${D}', 'xn--bcher-kva.example', 'A-1.b2']}]\n",
        {
            "companies": [
                {
                    "name": "a",
                    "email_domains": ["acme.com", "acme.org", "xn--bcher-kva.example", "A-1.b2"],
                }
            ]
        },
    ),
]


@pytest.mark.parametrize(("text", "expected"), REFUSED_IN_FULL, ids=range(len(REFUSED_IN_FULL)))
def test_values_past_their_limits_are_refused_with_every_message(
    text: str, expected: list[str]
) -> None:
    with pytest.raises(ManifestError) as refused:
        load_manifest_text(text, "m.yaml", env=ENV)
    assert refused.value.problems == expected


@pytest.mark.parametrize(("text", "expected"), ACCEPTED_AS_READ, ids=range(len(ACCEPTED_AS_READ)))
def test_values_within_their_limits_are_read_as_the_plan_compares_them(
    text: str, expected: dict[str, Any]
) -> None:
    manifest = load_manifest_text(text, "m.yaml", env=ENV).manifest
    dumped = manifest.model_dump(mode="json", exclude_unset=True)
    assert {kind: value for kind, value in dumped.items() if value} == expected


LABEL = "a" * 63
LONGEST = ".".join([LABEL, LABEL, LABEL, "a" * 61])  # 253 characters


def test_a_domain_name_is_at_most_253_characters() -> None:
    text = f"companies: [{{name: a, email_domains: [{LONGEST}, {LONGEST}a]}}]\n"
    with pytest.raises(ManifestError) as refused:
        load_manifest_text(text, "m.yaml")
    column = text.index(f"{LONGEST}a") + 1
    assert refused.value.problems == [
        f"m.yaml:1:{column}: companies[0].email_domains[1]: '{LONGEST}a' is not a domain "
        "name: letters, digits, '-' and '.' (an internationalised domain in its xn-- form); "
        "one domain per list item"
    ]
    accepted = load_manifest_text(text.replace(f", {LONGEST}a", ""), "m.yaml").manifest
    assert accepted.companies[0].email_domains == [LONGEST]

"""Strict values (manifest/values.py), pinned whole: whole numbers and numbers at and past
each end of their ranges, given written or by a variable (which may pad them, sign them,
or write `.5` and `1e2`), the YAML 1.1 words that are no booleans, e-mail addresses (the
usual ones, the special-use domains, a domain without a dot, one email-validator refuses)
and domain names (white space, `;`, a bad label, at most 253 characters), and the
infinite numbers no custom field can hold. A variable not set is reported once, as such."""

# ruff: noqa: E501  (a message is one line, whatever its length)

from __future__ import annotations

from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import load_manifest_text

ENV = {
    "N": " 7 ", "P": "+7", "M": "-3", "F": "7.0", "H": ".5", "E": "1e2", "E3": "1e3",
    "X": "abc", "B": " TRUE ", "BF": "false", "Y": "yes", "MAIL": " v@acme.com ", "D": "acme.org",
}  # fmt: skip

REFUSED = [
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

ACCEPTED = [
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


@pytest.mark.parametrize(("text", "expected"), REFUSED, ids=range(len(REFUSED)))
def test_refused_values_in_full(text: str, expected: list[str]) -> None:
    with pytest.raises(ManifestError) as refused:
        load_manifest_text(text, "m.yaml", env=ENV)
    assert refused.value.problems == expected


@pytest.mark.parametrize(("text", "expected"), ACCEPTED, ids=range(len(ACCEPTED)))
def test_accepted_values_as_read(text: str, expected: dict[str, Any]) -> None:
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

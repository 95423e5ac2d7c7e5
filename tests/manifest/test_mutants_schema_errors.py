"""Every shape of schema message (`schema_errors`), pinned whole: what the user reads for a
document that is no mapping, a missing or unknown field (with the nearest name, or the
list of names), an unknown kind, `previously` where the API cannot rename, a value of the
wrong type (each kind of value named, with the quoting hint where quoting keeps it), an
empty text, a bad key of a mapping, and a custom field value that fits no member of the
union (folded into one message), or the shape of `{option_id: N}` (its own errors)."""

# ruff: noqa: E501  (a message is one line, whatever its length)

from __future__ import annotations

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest import load_manifest_text

CASES = [
    (
        "- a\n",
        [
            "m.yaml:1:1: a manifest must be a mapping of kinds (settings, companies, departments, categories, tech_permissions, users, assets, automation_rules, workspace), not a list",
        ],
    ),
    (
        "users: [{email: a@b.co}]\n",
        [
            "m.yaml:1:9: users[0]: missing required field 'username'",
        ],
    ),
    (
        "users: [{username: a, emial: x}]\n",
        [
            "m.yaml:1:23: users[0]: unknown field 'emial'; did you mean 'email'?",
        ],
    ),
    (
        "users: [{username: a, zzzzz: 1}]\n",
        [
            "m.yaml:1:23: users[0]: unknown field 'zzzzz' (the fields: username, previously, email, first_name, last_name, phone, location, notes, company, department, is_admin, disabled, send_welcome_email, custom_fields)",
        ],
    ),
    (
        "userz: []\n",
        [
            "m.yaml:1:1: unknown kind 'userz'; did you mean 'users'?",
        ],
    ),
    (
        "zzzzzzz: []\n",
        [
            "m.yaml:1:1: unknown kind 'zzzzzzz' (the kinds: settings, companies, departments, categories, tech_permissions, users, assets, automation_rules, workspace)",
        ],
    ),
    (
        "tech_permissions: [{category: X, technicians: [], previously: Y}]\n",
        [
            "m.yaml:1:51: tech_permissions[0]: 'previously' is not allowed on tech_permissions: the API cannot rename tech permissions; they follow their category: rename the category in the helpdesk's admin panel, then change `category:` here",
        ],
    ),
    (
        "automation_rules: [{id: 1, enabled: true, previously: 2}]\n",
        [
            "m.yaml:1:43: automation_rules[0]: 'previously' is not allowed on automation_rules: the API cannot rename automation rules; rules are addressed by their id, which never changes: use the new rule's id",
        ],
    ),
    (
        "companies: [{name: 12}, {name: 1.5}, {name: true}, {name: 2027-01-01}, {name: 2027-01-01 10:00:00}, {name: null}, {name: [a]}, {name: {a: 1}}, {name: ''}]\n",
        [
            'm.yaml:1:20: companies[0].name: expected text, found a number; quote it to keep it as written: "12"',
            'm.yaml:1:32: companies[1].name: expected text, found a number; quote it to keep it as written: "1.5"',
            'm.yaml:1:45: companies[2].name: expected text, found true; quote it to keep it as written: "true"',
            'm.yaml:1:59: companies[3].name: expected text, found a date; quote it to keep it as written: "2027-01-01"',
            'm.yaml:1:79: companies[4].name: expected text, found a date and time; quote it to keep it as written: "2027-01-01 10:00:00"',
            "m.yaml:1:108: companies[5].name: expected text, found nothing (null)",
            "m.yaml:1:122: companies[6].name: expected text, found a list",
            "m.yaml:1:135: companies[7].name: expected text, found a mapping",
            "m.yaml:1:151: companies[8].name: must not be empty",
        ],
    ),
    (
        "companies: [{name: A, email_domains: x}]\n",
        [
            "m.yaml:1:38: companies[0].email_domains: expected a list, found text",
        ],
    ),
    (
        "users: [5, x, [1], null]\n",
        [
            "m.yaml:1:9: users[0]: expected a mapping, found a number",
            "m.yaml:1:12: users[1]: expected a mapping, found text",
            "m.yaml:1:15: users[2]: expected a mapping, found a list",
            "m.yaml:1:20: users[3]: expected a mapping, found nothing (null)",
        ],
    ),
    (
        'users: [{username: a, custom_fields: {X: [1], "My \\"F\\"": {a: 1}, Y: {option_id: x}, "": 2}}]\n',
        [
            "m.yaml:1:42: users[0].custom_fields.X: expected text, a number, a date, true/false or {option_id: N}, found a list",
            'm.yaml:1:59: users[0].custom_fields["My \\"F\\""]: missing required field \'option_id\'',
            'm.yaml:1:60: users[0].custom_fields["My \\"F\\""]: unknown field \'a\' (the fields: option_id)',
            "m.yaml:1:82: users[0].custom_fields.Y.option_id: expected a whole number, found 'x'",
            "m.yaml:1:86: users[0].custom_fields: key '': must not be empty",
        ],
    ),
    (
        'settings: {ignore_fields: {userz: [a]}, section_ids: {"": 1}}\n',
        [
            "m.yaml:1:28: settings.ignore_fields: key 'userz': unknown kind 'userz' (the kinds: companies, departments, categories, users, tech_permissions, assets, automation_rules or workspace.employees)",
            "m.yaml:1:55: settings.section_ids: key '': must not be empty",
        ],
    ),
    (
        'settings: {custom_field_options: {T: {"": 1, G: x}}}\n',
        [
            "m.yaml:1:39: settings.custom_field_options.T: key '': must not be empty",
            "m.yaml:1:49: settings.custom_field_options.T.G: expected a whole number, found 'x'",
        ],
    ),
    (
        "users: {username: a}\n",
        [
            "m.yaml:1:8: users: expected a list, found a mapping",
        ],
    ),
    (
        "settings: [1]\n",
        [
            "m.yaml:1:11: settings: expected a mapping, found a list",
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=range(len(CASES)))
def test_schema_messages_in_full(text: str, expected: list[str]) -> None:
    with pytest.raises(ManifestError) as refused:
        load_manifest_text(text, "m.yaml")
    assert refused.value.problems == expected

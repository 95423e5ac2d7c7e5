"""What `reconciler validate` tells the user about a manifest the schema refuses
(manifest/schema_errors.py), in-process: each row is a manifest and the exact problems,
`file:line:column: path: message`, at the node they are about (the unknown key, the entry
that lacks a field, the value of the wrong type), with the suggestion or the list of what
is allowed."""

# ruff: noqa: E501  (a message is one line, whatever its length)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.loader import load_manifest_text
from tests.manifest.refusals import problems_of

KINDS = "settings, companies, departments, categories, tech_permissions, users, assets, "
KINDS += "automation_rules, workspace"
KIND_VALUES = "companies, departments, categories, users, tech_permissions, assets, "
KIND_VALUES += "automation_rules or workspace.employees"
CUSTOM = "expected text, a number, a date, true/false or {option_id: N}"

# (id, manifest, the problems after "m.yaml:")
ROWS: list[tuple[str, str, list[str]]] = [
    (
        "a list at the top",
        "- a\n",
        [f"1:1: a manifest must be a mapping of kinds ({KINDS}), not a list"],
    ),
    (
        "text at the top",
        "hello\n",
        [f"1:1: a manifest must be a mapping of kinds ({KINDS}), not text"],
    ),
    (
        "a required field missing",
        "users:\n  - email: a@b.com\n",
        ["2:5: users[0]: missing required field 'username'"],
    ),
    (
        "a misspelt field",
        "users:\n  - username: a\n    emial: x@y.com\n",
        ["3:5: users[0]: unknown field 'emial'; did you mean 'email'?"],
    ),
    (
        "a misspelt kind",
        "userz: []\n",
        ["1:1: unknown kind 'userz'; did you mean 'users'?"],
    ),
    (
        "an unknown kind",
        "zzz: 1\n",
        [f"1:1: unknown kind 'zzz' (the kinds: {KINDS})"],
    ),
    (
        "an unknown field",
        "companies:\n  - name: A\n    qqq: 1\n",
        [
            "3:5: companies[0]: unknown field 'qqq' (the fields: name, previously, "
            "email_domains, notes, custom_fields)"
        ],
    ),
    (
        "a misspelt nested field",
        "settings:\n  safety:\n    max_change_pct: 5\n",
        [
            "3:5: settings.safety: unknown field 'max_change_pct'; did you mean "
            "'max_change_percent'?"
        ],
    ),
    (
        "previously on departments",
        "departments:\n  - name: IT\n    previously: [X]\n",
        [
            "3:5: departments[0]: 'previously' is not allowed on departments: the API cannot "
            "rename departments; name the new department on its users (UpdateUser creates it), "
            "then rename or delete the old one in the helpdesk's admin panel"
        ],
    ),
    (
        "previously on categories",
        "categories:\n  - name: Hardware\n    previously: [HW]\n",
        [
            "3:5: categories[0]: 'previously' is not allowed on categories: the API cannot "
            "rename categories; rename it in the helpdesk's admin panel, then change its name "
            "in the manifests (and in the tech permissions that name it)"
        ],
    ),
    (
        "previously on tech permissions",
        "tech_permissions:\n  - category: Hardware\n    technicians: []\n    previously: [HW]\n",
        [
            "4:5: tech_permissions[0]: 'previously' is not allowed on tech_permissions: the "
            "API cannot rename tech permissions; they follow their category: rename the "
            "category in the helpdesk's admin panel, then change `category:` here"
        ],
    ),
    (
        "previously on automation rules",
        "automation_rules:\n  - id: 5\n    enabled: true\n    previously: [4]\n",
        [
            "4:5: automation_rules[0]: 'previously' is not allowed on automation_rules: the API "
            "cannot rename automation rules; rules are addressed by their id, which never "
            "changes: use the new rule's id"
        ],
    ),
    (
        "a list for text",
        "users:\n  - username: a\n    notes: [1]\n",
        ["3:12: users[0].notes: expected text, found a list"],
    ),
    (
        "a mapping for text",
        "users:\n  - username: a\n    notes: {a: 1}\n",
        ["3:12: users[0].notes: expected text, found a mapping"],
    ),
    (
        "true for text",
        "users:\n  - username: a\n    first_name: true\n",
        [
            "3:17: users[0].first_name: expected text, found true; quote it to keep it as written: "
            '"true"'
        ],
    ),
    (
        "false for a key",
        "users:\n  - username: false\n",
        [
            "2:15: users[0].username: expected text, found false; quote it to keep it as written: "
            '"false"'
        ],
    ),
    (
        "a number in a list of text",
        "workspace:\n  employees:\n    - email: a@b.com\n      previously: [1]\n",
        [
            "4:20: workspace.employees[0].previously[0]: expected text, found a number; quote it "
            'to keep it as written: "1"'
        ],
    ),
    (
        "null for a key",
        "departments:\n  - name: null\n",
        ["2:11: departments[0].name: expected text, found nothing (null)"],
    ),
    (
        "empty text",
        "departments:\n  - name: ''\n",
        ["2:11: departments[0].name: must not be empty"],
    ),
    ("a number for a list", "users: 5\n", ["1:8: users: expected a list, found a number"]),
    (
        "a mapping for a list",
        "workspace:\n  employees: {a: 1}\n",
        ["2:14: workspace.employees: expected a list, found a mapping"],
    ),
    (
        "a number for an entry",
        "users:\n  - 5\n",
        ["2:5: users[0]: expected a mapping, found a number"],
    ),
    (
        "a list for settings",
        "settings: [1]\n",
        ["1:11: settings: expected a mapping, found a list"],
    ),
    (
        "a list for a mapping of ids",
        "settings:\n  section_ids: [1]\n",
        ["2:16: settings.section_ids: expected a mapping, found a list"],
    ),
    (
        "an unknown kind to prune",
        "settings:\n  prune: [userz]\n",
        [f"2:11: settings.prune[0]: unknown kind 'userz' (the kinds: {KIND_VALUES})"],
    ),
    (
        "an unknown kind as a key",
        "settings:\n  ignore_fields:\n    userz: [a]\n",
        [
            "3:5: settings.ignore_fields: key 'userz': unknown kind 'userz' (the kinds: "
            f"{KIND_VALUES})"
        ],
    ),
    (
        "a list for a custom field",
        "users:\n  - username: a\n    custom_fields:\n      Tier: [1]\n",
        [f"4:13: users[0].custom_fields.Tier: {CUSTOM}, found a list"],
    ),
    (
        "a date and time where a custom field takes a day",
        "users:\n  - username: a\n    custom_fields:\n      Start: 2024-01-01T10:00:00\n",
        [f"4:14: users[0].custom_fields.Start: {CUSTOM}, found a date and time"],
    ),
    (
        "a custom field name that is no identifier",
        "companies:\n  - name: A\n    custom_fields:\n      'say \"x\"': [1]\n",
        [f'4:18: companies[0].custom_fields["say \\"x\\""]: {CUSTOM}, found a list'],
    ),
    (
        "a bad option id",
        "users:\n  - username: a\n    custom_fields:\n      Contract tier: {option_id: x}\n",
        [
            '4:34: users[0].custom_fields["Contract tier"].option_id: expected a whole number, '
            "found 'x'"
        ],
    ),
    (
        "an option id misspelt",
        "users:\n  - username: a\n    custom_fields:\n      Tier: {opt: 1}\n",
        [
            "4:13: users[0].custom_fields.Tier: missing required field 'option_id'",
            "4:14: users[0].custom_fields.Tier: unknown field 'opt' (the fields: option_id)",
        ],
    ),
    (
        "yes for true",
        "automation_rules:\n  - id: 5\n    enabled: yes\n",
        [
            "3:14: automation_rules[0].enabled: expected true or false, found 'yes' (YAML 1.2 "
            "reads it as text)"
        ],
    ),
    (
        "a date for true",
        "automation_rules:\n  - id: 5\n    enabled: 2024-01-02\n",
        ["3:14: automation_rules[0].enabled: expected true or false, found a date"],
    ),
    (
        "a list in a list of text",
        "assets:\n  - serial_number: S\n    assigned_users: [a, [b]]\n",
        ["3:25: assets[0].assigned_users[1]: expected text, found a list"],
    ),
    (
        "every problem, in order",
        "users:\n  - username: a\n    emial: x\n  - email: b@c.com\n",
        [
            "3:5: users[0]: unknown field 'emial'; did you mean 'email'?",
            "4:5: users[1]: missing required field 'username'",
        ],
    ),
]


@pytest.mark.parametrize(("manifest", "problems"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
@pytest.mark.usefixtures("no_network")
def test_what_validate_says_of_a_manifest_the_schema_refuses(
    manifest: str, problems: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert problems_of(manifest) == [f"m.yaml:{problem}" for problem in problems]


# Every shape of schema message (`schema_errors`), pinned whole: what the user reads for a
# document that is no mapping, a missing or unknown field (with the nearest name, or the list of
# names), an unknown kind, `previously` where the API cannot rename, a value of the wrong type
# (each kind of value named, with the quoting hint where quoting keeps it), an empty text, a bad
# key of a mapping, and a custom field value that fits no member of the union (folded into one
# message), or the shape of `{option_id: N}` (its own errors).

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
        'settings: {custom_field_options: {users: {T: {"": 1, G: x}}}}\n',
        [
            "m.yaml:1:47: settings.custom_field_options.users.T: key '': must not be empty",
            "m.yaml:1:57: settings.custom_field_options.users.T.G: expected a whole number, "
            "found 'x'",
        ],
    ),
    (  # the flat form (field name first): refused with the form to write instead
        "settings:\n  custom_field_options:\n    Tier: {Gold: 7}\n    user: {Tier: {Gold: 8}}\n",
        [
            "m.yaml:3:5: settings.custom_field_options: 'Tier' is not a kind: the options are "
            "keyed by kind, then field name (a companies field and a users field of one name "
            "are two fields); write `custom_field_options: {companies: {Tier: {OPTION: ID}}}` "
            "with the kind whose field 'Tier' is (companies, users or assets)",
            "m.yaml:4:5: settings.custom_field_options: unknown kind 'user'; did you mean 'users'?",
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
def test_each_shape_of_schema_problem_reads_as_its_whole_message(
    text: str, expected: list[str]
) -> None:
    with pytest.raises(ManifestError) as refused:
        load_manifest_text(text, "m.yaml")
    assert refused.value.problems == expected

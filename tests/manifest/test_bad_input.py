"""Every bad input, run as a user runs it: `python -m reconciler` in a child
process, through `validate` and `plan`. Each must exit 1 with a one-line message holding
the expected fragment, print no traceback and never the credential, and end (the timeout
is the guard against a hang, not a measure of speed).

One row per case: `Row(id, manifest, exit code, message fragment, ...)`. The manifest is
written to `m.yaml`; `{fifo}`, `{dir}` and `{big}` in the arguments become a FIFO, an empty
directory and a sparse file over the size cap, made in the test's directory."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SECRET = "s3cr3t-T0KEN-value"
OK = "companies: [{name: Acme}]\n"
BOTH = ("validate", "plan")
PLAN = ("plan",)


# The schema's verdicts. It rejects what is wrong in the manifest as written; it accepts
# a manifest whose problem is elsewhere, and says so in its descriptions (`Variable`):
REJECTS = "rejects"
VARIABLE = "the value of a variable"  # `${NAME}` is allowed; only its value is wrong
CREDENTIAL = "a credential's name"  # which names are credentials is known at run time
NOT_THE_MANIFEST = "not the manifest"  # a file, an option or the environment is wrong
ACROSS_ENTRIES = "a rule across entries"  # the schema checks each entry on its own
VERDICTS = (REJECTS, VARIABLE, CREDENTIAL, NOT_THE_MANIFEST, ACROSS_ENTRIES)


@dataclass(frozen=True)
class Row:
    id: str
    manifest: str
    exit_code: int
    fragment: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    commands: tuple[str, ...] = BOTH
    paths: tuple[str, ...] = ("m.yaml",)
    # What the JSON Schema says of `manifest` (check-jsonschema): REJECTS it at the path
    # validate names, or accepts it for one of the reasons below, which the test checks.
    schema: str = NOT_THE_MANIFEST


ROWS = [
    # strict values, as the schema says
    Row("is_admin: \"yes\"", 'users: [{username: a, is_admin: "yes"}]', 1, "m.yaml:1:33: users[0].is_admin: expected true or false, found 'yes'", schema=REJECTS),
    Row("is_admin: on", "users: [{username: a, is_admin: on}]", 1, "m.yaml:1:33: users[0].is_admin: expected true or false, found 'on'", schema=REJECTS),
    Row("disabled: 1", "users: [{username: a, disabled: 1}]", 1, "m.yaml:1:33: users[0].disabled: expected true or false, found 1", schema=REJECTS),
    Row("asset enabled: yes", "assets: [{serial_number: S, enabled: yes}]", 1, "assets[0].enabled: expected true or false, found 'yes'", schema=REJECTS),
    Row("rule enabled: \"false\"", 'automation_rules: [{id: 1, enabled: "false"}]', 1, "automation_rules[0].enabled: expected true or false, found 'false'", schema=REJECTS),
    Row("send_welcome_email: 0", "users: [{username: a, send_welcome_email: 0}]", 1, "users[0].send_welcome_email: expected true or false, found 0", schema=REJECTS),
    Row("boolean variable that is no boolean", "users: [{username: a, is_admin: '${ADMIN}'}]", 1, "users[0].is_admin: expected true or false, found 'yes' (from a variable)", env={"ADMIN": "yes"}, schema=VARIABLE),
    Row("e-mail without a domain", "users: [{username: a, email: 'alice@'}]", 1, "m.yaml:1:30: users[0].email: 'alice@' is not an e-mail address", schema=REJECTS),
    Row("e-mail with a space", "users: [{username: a, email: 'al ice@acme.com'}]", 1, "users[0].email: 'al ice@acme.com' is not an e-mail address", schema=REJECTS),
    Row("two e-mails in one", "users: [{username: a, email: 'a@acme.com;b@acme.com'}]", 1, "users[0].email: 'a@acme.com;b@acme.com' is not an e-mail address", schema=REJECTS),
    Row("e-mail from a variable", "users: [{username: a, email: '${MAIL}'}]", 1, "users[0].email: 'nobody' is not an e-mail address", env={"MAIL": "nobody"}, schema=VARIABLE),
    Row("rule id over 32 bits", "automation_rules: [{id: 2147483648, enabled: true}]", 1, "automation_rules[0].id: 2147483648 is out of range: from 1 to 2147483647", schema=REJECTS),
    Row("rule id zero", "automation_rules: [{id: 0, enabled: true}]", 1, "automation_rules[0].id: 0 is out of range", schema=REJECTS),
    Row("rule id as text", "automation_rules: [{id: '101', enabled: true}]", 1, "automation_rules[0].id: expected a whole number, found '101'", schema=REJECTS),
    Row("quantity over 32 bits", "assets: [{serial_number: S, quantity: 99999999999}]", 1, "assets[0].quantity: 99999999999 is out of range: from 1 to 2147483647", schema=REJECTS),
    Row("quantity true", "assets: [{serial_number: S, quantity: true}]", 1, "assets[0].quantity: expected a whole number, found true", schema=REJECTS),
    Row("quantity from a variable over 32 bits", "assets: [{serial_number: S, quantity: '${Q}'}]", 1, "assets[0].quantity: 4294967296 is out of range", env={"Q": "4294967296"}, schema=VARIABLE),
    Row("option id over 32 bits", "users: [{username: a, custom_fields: {Tier: {option_id: 2147483648}}}]", 1, "users[0].custom_fields.Tier.option_id: 2147483648 is out of range", schema=REJECTS),
    Row("section id over 32 bits", "settings: {section_ids: {IT: 2147483648}}", 1, "settings.section_ids.IT: 2147483648 is out of range", schema=REJECTS),
    Row("dropdown option id over 32 bits", "settings: {custom_field_options: {users: {Tier: {Gold: 3000000000}}}}", 1, "settings.custom_field_options.users.Tier.Gold: 3000000000 is out of range", schema=REJECTS),
    Row("dropdown options keyed by field name", "settings: {custom_field_options: {Tier: {Gold: 7}}}", 1, "m.yaml:1:35: settings.custom_field_options: 'Tier' is not a kind", schema=REJECTS),
    Row("min_existing over 32 bits", "settings: {safety: {min_existing: 2147483648}}", 1, "settings.safety.min_existing: 2147483648 is out of range", schema=REJECTS),
    Row("max_change_percent true", "settings: {safety: {max_change_percent: true}}", 1, "settings.safety.max_change_percent: expected a number, found true", schema=REJECTS),
    Row("max_change_percent over 100", "settings: {safety: {max_change_percent: 101}}", 1, "settings.safety.max_change_percent: 101 is out of range: from 0 to 100", schema=REJECTS),
    Row("';' in email_domains", "companies: [{name: A, email_domains: ['acme.com;acme.org']}]", 1, "companies[0].email_domains[0]: 'acme.com;acme.org' is not a domain name (it holds ';')", schema=REJECTS),
    Row("space in email_domains", "companies: [{name: A, email_domains: ['acme .com']}]", 1, "companies[0].email_domains[0]: 'acme .com' is not a domain name (it holds white space)", schema=REJECTS),
    Row("e-mail address in email_domains", "companies: [{name: A, email_domains: ['@acme.com']}]", 1, "companies[0].email_domains[0]: '@acme.com' is not a domain name", schema=REJECTS),
    Row("employee e-mail without a domain", "workspace: {employees: [{email: 'bob@'}]}", 1, "m.yaml:1:33: workspace.employees[0].email: 'bob@' is not an e-mail address", schema=REJECTS),
    Row("two e-mails in an employee's", "workspace: {employees: [{email: 'a@acme.com;b@acme.com'}]}", 1, "workspace.employees[0].email: 'a@acme.com;b@acme.com' is not an e-mail address", schema=REJECTS),
    Row("the token's value in a bad e-mail", f"users: [{{username: a, email: '{SECRET}@'}}]", 1, "users[0].email: '***@' is not an e-mail address", schema=REJECTS),
    Row("misspelt user field", "users: [{username: a, emial: a@acme.com}]", 1, "m.yaml:1:23: users[0]: unknown field 'emial'; did you mean 'email'?", schema=REJECTS),
    # files and options
    Row("manifest is a FIFO", OK, 1, "{fifo}:1:1: cannot read the file: it is a FIFO", paths=("{fifo}",)),
    Row("FIFO in the manifest directory", OK, 1, "cannot read the file: it is a FIFO", paths=(".",)),
    Row("var file is a FIFO", OK, 1, "cannot read the variables file: it is a FIFO", ("--var-file", "{fifo}")),
    Row("var file is /dev/zero", OK, 1, "/dev/zero:1:1: cannot read the variables file: it is a device", ("--var-file", "/dev/zero")),
    Row("var file is a directory", OK, 1, "'--var-file': File '{dir}' is a directory", ("--var-file", "{dir}")),
    Row("manifest over the size cap", OK, 1, "{big}:1:1: cannot read the file: it is larger than 32 MiB", paths=("{big}",)),
    Row("manifest path missing", OK, 1, "nowhere.yaml:1:1: no such file or directory", paths=("nowhere.yaml",)),
    Row("manifest path under a file", OK, 1, "m.yaml/x.yaml:1:1: cannot read: Not a directory", paths=("m.yaml/x.yaml",)),
    Row("directory without manifests", OK, 1, "{dir}:1:1: no manifest files", paths=("{dir}",)),
    Row("control character in HELPDESK_TOKEN", OK, 1, "HELPDESK_TOKEN holds a control or non-ASCII character (at position 5)", env={"HELPDESK_TOKEN": "abcd\n" + SECRET}, commands=PLAN),
    Row("space in WORKSPACE_API_KEY", OK, 1, "WORKSPACE_API_KEY holds a space", env={"WORKSPACE_URL": "http://127.0.0.1:9/ws", "WORKSPACE_API_KEY": "a b"}, commands=PLAN),
    Row("':' in HELPDESK_USERNAME", OK, 1, "HELPDESK_USERNAME holds ':'", env={"HELPDESK_TOKEN": "", "HELPDESK_USERNAME": "a:b", "HELPDESK_PASSWORD": SECRET}, commands=PLAN),
    Row("WORKSPACE_URL unset for managed employees", "workspace: {employees: [{email: a@acme.com}]}", 1, "the workspace service is not configured: set WORKSPACE_URL and WORKSPACE_API_KEY, or leave it out with --exclude workspace.employees", commands=("plan", "apply --yes")),
    Row("negative --rate-limit", OK, 1, "'--rate-limit': -1 is not in the range 0<=x<=10000", ("--rate-limit", "-1"), commands=PLAN),
    Row("huge --search-rate-limit", OK, 1, "'--search-rate-limit': 99999 is not in the range", ("--search-rate-limit", "99999"), commands=PLAN),
    Row("rate limit not a number", OK, 1, "'--rate-limit': 'fast' is not a valid integer", ("--rate-limit", "fast"), commands=PLAN),
    Row("sandbox port out of range", OK, 1, "'--port': 70000 is not in the range 0<=x<=65535", ("--port", "70000"), commands=("sandbox serve",), paths=()),
    # usage errors exit 1 (item 5)
    Row("unknown option", OK, 1, "No such option '--bogus'", ("--bogus",)),
    Row("unknown command", OK, 1, "No such command 'plna'", commands=("plna",)),
    Row("unknown format", OK, 1, "'--format': 'yaml' is not one of", ("--format", "yaml"), commands=PLAN),
    Row("no path", OK, 1, "Missing argument 'PATHS...'", paths=()),
    # secrets (item 6)
    Row("${HELPDESK_PASSWORD} in a value", "companies: [{name: Acme, notes: '${HELPDESK_PASSWORD}'}]", 1, "m.yaml:1:33: companies[0].notes: '${HELPDESK_PASSWORD}' refers to a credential", schema=CREDENTIAL),
    Row("${HELPDESK_TOKEN} in a key field", "companies: [{name: '${HELPDESK_TOKEN}'}]", 1, "m.yaml:1:20: companies[0].name: '${HELPDESK_TOKEN}' refers to a credential", schema=CREDENTIAL),
    Row("${WORKSPACE_API_KEY} in an employee", "workspace: {employees: [{email: a@acme.com, note: '${WORKSPACE_API_KEY}'}]}", 1, "'${WORKSPACE_API_KEY}' refers to a credential", schema=CREDENTIAL),
    Row("a name in RECONCILER_SECRET_VARIABLES", "companies: [{name: '${SMTP_PASS}'}]", 1, "'${SMTP_PASS}' refers to a credential", env={"RECONCILER_SECRET_VARIABLES": "SMTP_PASS, OTHER", "SMTP_PASS": SECRET}, schema=CREDENTIAL),
    # renames (docs/renaming.md)
    Row("previously on a category", "categories: [{name: Hardware, previously: [HW]}]", 1, "m.yaml:1:31: categories[0]: 'previously' is not allowed on categories: the API cannot rename categories; rename it in the helpdesk's admin panel", schema=REJECTS),
    Row("previously on a rule", "automation_rules: [{id: 1, enabled: true, previously: [2]}]", 1, "automation_rules[0]: 'previously' is not allowed on automation_rules: the API cannot rename automation rules; rules are addressed by their id", schema=REJECTS),
    Row("one former key under two entries", "users: [{username: a, previously: [x]}, {username: b, previously: [X]}]", 1, "m.yaml:1:68: former key 'X' is also listed under user 'a'", schema=ACROSS_ENTRIES),
    Row("a swap of usernames", "users: [{username: a, previously: [b]}, {username: b, previously: [a]}]", 1, "m.yaml:1:36: former key 'b' is the key of another entry (user 'b'): a chain or a swap", schema=ACROSS_ENTRIES),
]  # fmt: skip


def _materialise(text: str, tmp_path: Path) -> str:
    return (
        text.replace("{fifo}", str(tmp_path / "fifo.yaml"))
        .replace("{dir}", str(tmp_path / "empty"))
        .replace("{big}", str(tmp_path / "big.yaml"))
    )


def _run(row: Row, command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {key: os.environ[key] for key in ("PATH", "HOME", "SYSTEMROOT") if key in os.environ}
    env.update(HELPDESK_URL="http://127.0.0.1:9/helpdesk", HELPDESK_TOKEN=SECRET, NO_COLOR="1")
    env.update(row.env)
    paths = [_materialise(path, tmp_path) for path in row.paths]
    args = [_materialise(arg, tmp_path) for arg in row.args]
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *command.split(), *paths, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,  # a hang guard: every case ends in about a second
    )


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "empty").mkdir()
    with open(tmp_path / "big.yaml", "wb") as big:  # sparse: no disk is used
        big.truncate(40 * 1024 * 1024)
    return tmp_path


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_bad_input_exits_1_with_one_line(row: Row, case_dir: Path) -> None:
    (case_dir / "m.yaml").write_text(row.manifest, encoding="utf-8")
    fragment = _materialise(row.fragment, case_dir)
    for command in row.commands:
        result = _run(row, command, case_dir)
        output = result.stdout + result.stderr
        assert result.returncode == row.exit_code, (command, output)
        assert "Traceback" not in output, (command, output)
        assert SECRET not in output, (command, output)
        lines = [line for line in result.stderr.splitlines() if fragment in line]
        assert lines, (command, fragment, output)
        # One line for the problem; beside it at most a count of problems, or click's
        # usage line and its hint for a usage error.
        said = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(said) <= 3 and len(lines) == 1, (command, result.stderr)


def test_the_rows_have_unique_ids() -> None:
    assert len({row.id for row in ROWS}) == len(ROWS)


SCHEMA = Path(__file__).parents[2] / "schemas" / "manifest.schema.json"
CHECK_JSONSCHEMA = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
needs_check_jsonschema = pytest.mark.skipif(
    CHECK_JSONSCHEMA is None, reason="check-jsonschema is not installed (the dev extra has it)"
)


def _check_jsonschema(*files: Path) -> subprocess.CompletedProcess[str]:
    assert CHECK_JSONSCHEMA is not None
    # Without the file check-jsonschema reports no row at all, which the accepted rows
    # would take for agreement: a copy of the tree without schemas/ fails here, plainly.
    assert SCHEMA.is_file(), f"{SCHEMA} is missing"
    return subprocess.run(
        [CHECK_JSONSCHEMA, "--schemafile", str(SCHEMA), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


@needs_check_jsonschema
def test_the_schema_and_validate_agree_on_every_row(tmp_path: Path) -> None:
    """check-jsonschema (offline, the committed schema) on each row's manifest: a row the
    schema REJECTS is reported at the path `validate` names (or, inside a union, at the
    union's); any other row's manifest is accepted, for the reason the row gives."""
    files = []
    for index, row in enumerate(ROWS):
        assert row.schema in VERDICTS, row.id
        if row.schema == VARIABLE:
            assert "${" in row.manifest and row.env, row.id
        files.append(tmp_path / f"case{index}.yaml")
        files[-1].write_text(row.manifest, encoding="utf-8")
    result = _check_jsonschema(*files)
    for path, row in zip(files, ROWS, strict=True):
        reported = [line for line in result.stdout.splitlines() if f"{path.name}::$." in line]
        if row.schema != REJECTS:
            assert reported == [], (row.id, row.schema, reported)
            continue
        field_path = re.sub(r"^m\.yaml:\d+:\d+: ", "", row.fragment).split(": ")[0]
        paths = [line.split("::$.", 1)[1].split(": ")[0] for line in reported]
        assert any(field_path.startswith(path) for path in paths), (row.id, reported)


@needs_check_jsonschema
def test_check_jsonschema_names_a_misspelt_user_field_first(tmp_path: Path) -> None:
    manifest = tmp_path / "users.yaml"
    manifest.write_text(
        "users:\n  - username: alice\n    email: alice@acme.com\n"
        "  - username: bob\n    emial: bob@acme.com\n",
        encoding="utf-8",
    )
    result = _check_jsonschema(manifest)
    assert result.returncode == 1
    errors = [line.strip() for line in result.stdout.splitlines() if "::$" in line]
    assert errors[0] == (
        f"{manifest}::$.users[1]: Additional properties are not allowed ('emial' was unexpected)"
    )


@needs_check_jsonschema
def test_the_schema_accepts_the_examples_and_variables(tmp_path: Path) -> None:
    variables = tmp_path / "variables.yaml"
    variables.write_text(
        "users: [{username: a, email: '${MAIL}', is_admin: '${ADMIN}'}]\n"
        "automation_rules: [{id: '${RULE}', enabled: '${ON}'}]\n"
        "settings: {prune: ['${KIND}'], safety: {min_existing: '${MIN}'}}\n"
        "companies:\n",
        encoding="utf-8",
    )
    examples = sorted((SCHEMA.parents[1] / "examples" / "acme").glob("*.yaml"))
    result = _check_jsonschema(variables, *examples)
    assert result.returncode == 0, result.stdout

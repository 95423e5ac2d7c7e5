"""Loading good manifests: merged content, where each entry was written, variables, files and
directories, several documents, and the problems only a file system can cause."""

from __future__ import annotations

import os
import warnings
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.kinds.companies import Company
from reconciler.manifest import files
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifest_text, load_manifests
from reconciler.manifest.models import Kind, OptionId, Settings

# DESIGN §2's example, with an alias, a merge key and a variable.
DESIGN_EXAMPLE = """\
settings:
  prune: [assets, tech_permissions]
  ignore_fields: {assets: [comments]}
  safety: {max_change_percent: 30, min_existing: 10}
  custom_field_options:
    companies: {Contract tier: {Gold: 7, Silver: 8}}
companies:
  - name: Acme Corp
    email_domains: [acme.com, acme.co.uk]
    notes: Key account
    custom_fields: {Contract tier: Gold, Renewal date: 2027-01-31, VIP: true, Size: {option_id: 3}}
departments:
  - name: IT
categories:
  - name: Hardware
    section: IT Support
tech_permissions:
  - category: Hardware
    technicians: [tina, alice]
users:
  - username: alice
    email: ${ALICE_EMAIL}
    first_name: Alice
    last_name: Smith
    company: Acme Corp
    department: IT
    is_admin: false
    disabled: false
    custom_fields: {Employee ID: E-1001}
assets:
  - &laptop
    serial_number: SN-0001
    model_name: ThinkPad X1
    manufacturer: Lenovo
    type: Laptop
    supplier: CDW
    location: HQ
    quantity: 1
    company: Acme Corp
    assigned_users: [alice]
    enabled: true
    custom_fields: {Warranty until: 2027-06-30}
  - <<: *laptop
    serial_number: SN-0002
    assigned_users: []
automation_rules:
  - id: 101
    name: Escalate critical tickets
    enabled: false
workspace:
  employees:
    - email: alice@acme.com
      firstName: Alice
      department: IT
"""
ENV = {"ALICE_EMAIL": "alice@acme.com"}


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems(paths: list[Path], env: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        load_manifests(paths, env or {})
    return caught.value.problems


# -- good manifests --------------------------------------------------------------------------


def test_the_design_example_loads_with_every_value_typed() -> None:
    desired = load_manifest_text(DESIGN_EXAMPLE, "acme.yaml", env=ENV)
    manifest = desired.manifest
    acme = manifest.companies[0]
    assert acme.custom_fields == {
        "Contract tier": "Gold",
        "Renewal date": date(2027, 1, 31),
        "VIP": True,
        "Size": OptionId(option_id=3),
    }
    assert manifest.users[0].email == "alice@acme.com"
    assert manifest.users[0].model_fields_set >= {"is_admin", "disabled", "email"}
    assert "notes" not in manifest.users[0].model_fields_set  # omitted: not managed
    copy = manifest.assets[1]
    assert (copy.serial_number, copy.model_name, copy.assigned_users) == (
        "SN-0002",
        "ThinkPad X1",
        [],
    )
    assert manifest.automation_rules[0].enabled is False
    assert manifest.workspace is not None
    assert manifest.workspace.employees[0].fields == {
        "email": "alice@acme.com",
        "firstName": "Alice",
        "department": "IT",
    }
    assert desired.settings.prune == [Kind.assets, Kind.tech_permissions]
    options = desired.settings.custom_field_options
    assert options.of("companies") == {"Contract tier": {"Gold": 7, "Silver": 8}}
    assert options.of("users") == {}
    assert desired.kinds_used == frozenset(Kind)
    assert desired.files == ("acme.yaml",)


def test_locations_of_entries_and_of_values_inside_them() -> None:
    desired = load_manifest_text(DESIGN_EXAMPLE, "acme.yaml", env=ENV)
    assert desired.location("companies", "Acme Corp") == "acme.yaml:8:5"
    assert desired.location(Kind.companies, "  acme   CORP ") == "acme.yaml:8:5"
    assert desired.location("companies", "Acme Corp", "custom_fields", "VIP") == "acme.yaml:11:73"
    assert desired.location("users", "alice", "email") == "acme.yaml:22:12"
    assert desired.location("tech_permissions", "hardware", "technicians", 1) == "acme.yaml:19:25"
    assert desired.location("assets", "SN-0002") == "acme.yaml:43:5"
    # A merged field is where it was written: in the anchored entry.
    assert desired.location("assets", "SN-0002", "model_name") == "acme.yaml:33:17"
    assert desired.location("automation_rules", "101") == "acme.yaml:47:5"
    assert desired.location("automation_rules", 101) == "acme.yaml:47:5"
    assert desired.location("workspace.employees", "ALICE@acme.com") == "acme.yaml:52:7"
    assert desired.settings_location("prune", 1) == "acme.yaml:2:19"
    assert desired.location("companies", "Globex") is None
    assert desired.location("companies", "Acme Corp", "no such field") is None
    assert desired.location("assets", "SN-0001", "assigned_users", 5) is None
    assert desired.location("widgets", "x") is None


def test_a_desired_state_built_in_code_has_defaults_and_no_locations() -> None:
    from reconciler.manifest.document import Manifest

    desired = DesiredState.from_manifest(Manifest(companies=[Company(name="Acme")]))
    assert desired.settings == Settings()
    assert desired.kinds_used == frozenset({Kind.companies})
    assert desired.location("companies", "Acme") is None
    assert desired.settings_location() is None


def test_an_empty_kind_is_no_entries_and_an_explicit_empty_mapping_is_fine() -> None:
    desired = load_manifest_text("users:\ncompanies: []\nworkspace:\n  employees:\n")
    assert desired.manifest.users == [] and desired.kinds_used == frozenset()
    assert load_manifest_text("{}").manifest.companies == []
    assert (
        load_manifest_text("\ufeffcompanies: [{name: Acme}]\n").manifest.companies[0].name == "Acme"
    )


def test_several_documents_in_one_file_merge_and_empty_ones_are_skipped() -> None:
    text = "---\ncompanies: [{name: Acme}]\n---\n---\nusers: [{username: alice}]\n...\n"
    desired = load_manifest_text(text, "two.yaml")
    assert [c.name for c in desired.manifest.companies] == ["Acme"]
    assert desired.location("users", "alice") == "two.yaml:5:9"


# -- variables -------------------------------------------------------------------------------


def test_variables_come_before_the_environment_and_dollar_dollar_escapes() -> None:
    text = (
        "users:\n"
        "  - username: ${USER_NAME}\n"
        "    email: ${USER_NAME}@${DOMAIN}\n"
        "    notes: 'costs $$5, write $${HOME} for a literal'\n"
        '    custom_fields: {Employee ID: "E-${ID}"}\n'
        "assets:\n"
        "  - serial_number: SN-${ID}\n"
        "    quantity: ${QUANTITY}\n"
        "workspace:\n"
        "  employees:\n"
        "    - email: a@b.c\n"
        "      ${NOT_A_KEY}: ${ID}\n"
    )
    env = {"USER_NAME": "from-env", "DOMAIN": "acme.com", "ID": "7", "QUANTITY": "3"}
    desired = load_manifest_text(text, env=env, variables={"USER_NAME": "alice"})
    user = desired.manifest.users[0]
    assert (user.username, user.email) == ("alice", "alice@acme.com")
    assert user.notes == "costs $$5, write ${HOME} for a literal"
    assert user.custom_fields == {"Employee ID": "E-7"}
    asset = desired.manifest.assets[0]
    assert (asset.serial_number, asset.quantity) == ("SN-7", 3)  # "3" is read as a number
    assert desired.manifest.workspace is not None
    assert desired.manifest.workspace.employees[0].fields == {"email": "a@b.c", "${NOT_A_KEY}": "7"}


def test_every_unset_variable_is_reported_where_it_is_used() -> None:
    text = "companies:\n  - name: ${A}\n    notes: ${B} and ${C}\n"
    with pytest.raises(ManifestError) as caught:
        load_manifest_text(text, "v.yaml", env={"B": "set"})
    assert caught.value.problems == [
        "v.yaml:2:11: variable 'A' is not set",
        "v.yaml:3:12: variable 'C' is not set",
    ]


# -- files and directories --------------------------------------------------------------------


def test_directories_are_read_recursively_in_sorted_order_skipping_hidden_names(
    tmp_path: Path,
) -> None:
    write(tmp_path, "m/b.yaml", "companies: [{name: B}]\n")
    write(tmp_path, "m/a.yml", "companies: [{name: A}]\n")
    write(tmp_path, "m/sub/c.YAML", "companies: [{name: C}]\n")
    write(tmp_path, "m/sub/notes.txt", "not: [a manifest\n")
    write(tmp_path, "m/.git/config.yaml", "not: [a manifest\n")
    write(tmp_path, "m/.draft.yaml", "not: [a manifest\n")
    write(tmp_path, "extra.conf", "companies: [{name: D}]\n")  # named: read whatever its suffix
    desired = load_manifests([tmp_path / "m", tmp_path / "extra.conf", tmp_path / "m/a.yml"], {})
    assert [c.name for c in desired.manifest.companies] == ["A", "B", "C", "D"]
    assert [Path(f).name for f in desired.files] == ["a.yml", "b.yaml", "c.YAML", "extra.conf"]
    assert desired.location("companies", "c") == f"{tmp_path / 'm/sub/c.YAML'}:1:13"


def test_entries_of_several_files_merge_and_settings_may_be_anywhere(tmp_path: Path) -> None:
    write(tmp_path, "1-companies.yaml", "companies: [{name: Acme}]\nusers: [{username: tina}]\n")
    write(tmp_path, "2-settings.yaml", "settings: {prune: [users], employee_key: id}\n")
    write(
        tmp_path, "3-people.yaml", "users: [{username: alice}]\nworkspace: {employees: [{id: 1}]}\n"
    )
    desired = load_manifests([tmp_path], {})
    assert [u.username for u in desired.manifest.users] == ["tina", "alice"]
    assert desired.settings.employee_key == "id"
    assert desired.location("workspace.employees", "1") == f"{tmp_path / '3-people.yaml'}:2:25"
    assert desired.settings_location("prune", 0) == f"{tmp_path / '2-settings.yaml'}:1:20"


def test_problems_of_every_file_are_reported_at_once_in_load_order(tmp_path: Path) -> None:
    write(tmp_path, "b.yaml", "companies: [{name: Acme, colour: red}]\n")
    write(tmp_path, "a.yaml", "users:\n  - {username: alice}\n  - {username: alice}\n")
    write(tmp_path, "c.yaml", "companies: [{name: ACME}]\n")
    found = problems([tmp_path / "c.yaml", tmp_path, tmp_path / "missing"])
    c, a, b = (str(tmp_path / name) for name in ("c.yaml", "a.yaml", "b.yaml"))
    assert found == [
        f"{a}:3:5: duplicate users entry 'alice' (first at {a}:2:5)",
        f"{b}:1:13: duplicate companies entry 'Acme' (first at {c}:1:13)",
        f"{b}:1:26: companies[0]: unknown field 'colour' (the fields: name, previously, "
        "email_domains, "
        "notes, custom_fields)",
        f"{tmp_path / 'missing'}:1:1: no such file or directory",
    ]


def test_a_file_that_cannot_be_read_is_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = write(tmp_path, "locked.yaml", "companies: []\n")
    write(tmp_path, "fine.yaml", "companies: []\n")
    original = os.open

    def open_file(path: Any, flags: int, *args: Any) -> int:  # root may read anything
        if Path(path).name == "locked.yaml":
            raise PermissionError(13, "Permission denied")
        return original(path, flags, *args)

    monkeypatch.setattr(files.os, "open", open_file)
    assert problems([tmp_path]) == [f"{locked}:1:1: cannot read the file: Permission denied"]


def test_paths_that_are_not_there_and_directories_without_manifests(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path, "only-hidden/.x.yaml", "companies: []\n")
    assert problems([tmp_path / "nope.yaml", tmp_path / "empty", tmp_path / "only-hidden"]) == [
        f"{tmp_path / 'nope.yaml'}:1:1: no such file or directory",
        f"{tmp_path / 'empty'}:1:1: no manifest files (*.yaml, *.yml) in this directory",
        f"{tmp_path / 'only-hidden'}:1:1: no manifest files (*.yaml, *.yml) in this directory",
    ]


def test_no_paths_at_all_loads_nothing() -> None:
    assert load_manifests([], {}).manifest.companies == []


# -- hostile input ----------------------------------------------------------------------------


def test_an_alias_bomb_is_refused_before_expansion() -> None:
    levels = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 12):  # 10^12 nodes if it were expanded
        levels.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 10) + "]")
    text = "\n".join(levels) + "\n"
    # Expanded, this would never finish: being refused at all is the proof it was not.
    with pytest.raises(ManifestError) as caught:
        load_manifest_text(text, "bomb.yaml")
    [problem] = caught.value.problems
    assert problem.startswith("bomb.yaml:5:38: aliases expand to more than 100,000 nodes")


def test_a_merge_key_bomb_is_refused_too() -> None:
    lines = ["k0: &k0 {" + ", ".join(f"f{i}: {i}" for i in range(50)) + "}"]
    for level in range(1, 8):
        fields = ", ".join(f"x{i}: *k{level - 1}" for i in range(50))
        lines.append(f"k{level}: &k{level} {{{fields}}}")
    with pytest.raises(ManifestError) as caught:
        load_manifest_text("\n".join(lines) + "\n")
    assert "aliases expand to more than" in caught.value.problems[0]


def test_a_chain_of_aliases_cannot_nest_past_the_limit() -> None:
    # Each alias adds a level: in an employee's open fields, a59 would reach 65 levels.
    chain = "".join(f"      a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 70))
    text = "workspace:\n  employees:\n    - email: a@b.c\n      a0: &a0 [x]\n" + chain
    with pytest.raises(ManifestError) as caught:
        load_manifest_text(text, "chain.yaml")
    assert caught.value.problems == ["chain.yaml:63:18: aliases nest deeper than 64 levels"]


def test_an_aliased_value_is_shared_and_located_where_each_part_is_written() -> None:
    text = (
        "companies:\n"
        "  - {name: A, custom_fields: &tiers {Contract tier: Gold}}\n"
        "  - {name: B, custom_fields: *tiers}\n"
    )
    desired = load_manifest_text(text, "t.yaml")
    a, b = desired.manifest.companies
    assert a.custom_fields == b.custom_fields == {"Contract tier": "Gold"}
    assert desired.location("companies", "B") == "t.yaml:3:5"
    assert desired.location("companies", "B", "custom_fields") == "t.yaml:3:30"
    assert desired.location("companies", "B", "custom_fields", "Contract tier") == "t.yaml:2:53"


def test_a_redefined_anchor_is_valid_yaml_and_raises_no_warning() -> None:
    text = "companies:\n  - &a {name: A}\n  - &a {name: B}\n  - *a\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ManifestError) as caught:
            load_manifest_text(text, "anchors.yaml")
    assert caught.value.problems == [
        "anchors.yaml:4:5: duplicate companies entry 'B' (first at anchors.yaml:3:5)"
    ]


def test_every_problem_is_one_line_even_when_a_name_holds_a_line_break() -> None:
    text = 'companies:\n  - name: Acme\n    "bad\\nfield": 1\n'
    with pytest.raises(ManifestError) as caught:
        load_manifest_text(text, "nl.yaml")
    assert caught.value.problems == [
        "nl.yaml:3:5: companies[0]: unknown field 'bad\\nfield' (the fields: name, previously, "
        "email_domains, notes, custom_fields)"
    ]


def test_windows_line_endings_keep_positions() -> None:
    text = "companies:\r\n  - name: Acme\r\n    colour: red\r\n"
    with pytest.raises(ManifestError) as caught:
        load_manifest_text(text, "crlf.yaml")
    assert caught.value.problems[0].startswith("crlf.yaml:3:5: companies[0]: unknown field")


# Loading paths (manifest/loader.py): a linked directory outside the folder given is read (its
# manifests count, as under prune a skipped one would remove its objects), a directory that cannot
# be read is named, a file that is not UTF-8 does not stop the files after it, and a manifest
# given as text is named `manifest.yaml` unless told otherwise.


@pytest.mark.usefixtures("no_network")
def test_a_linked_directory_outside_the_folder_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("outside").mkdir()
    Path("outside/o.yaml").write_text("companies:\n  - name: Outside\n", encoding="utf-8")
    Path("m").mkdir()
    Path("m/own.yaml").write_text("companies:\n  - name: Own\n", encoding="utf-8")
    Path("m/link").symlink_to("../outside")
    desired = load_manifests([Path("m")], {})
    assert desired.files == ("m/link/o.yaml", "m/own.yaml")
    assert [c.name for c in desired.manifest.companies] == ["Outside", "Own"]


@pytest.mark.usefixtures("no_network")
def test_a_directory_that_cannot_be_read_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m/sub").mkdir(parents=True)
    Path("m/a.yaml").write_text("companies:\n  - name: A\n", encoding="utf-8")
    Path("m/sub/b.yaml").write_text("companies:\n  - name: B\n", encoding="utf-8")
    original = os.scandir

    def scandir(path: Any = ".") -> Any:  # root may read any directory
        if os.fspath(path) == os.path.join("m", "sub"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return original(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert problems([Path("m")]) == ["m:1:1: cannot read the directory m/sub: Permission denied"]


def test_a_file_that_is_not_utf8_does_not_stop_the_files_after_it(tmp_path: Path) -> None:
    latin = tmp_path / "a-latin.yaml"
    latin.write_bytes(b"companies:\n  - name: Caf\xe9\n")
    after = tmp_path / "b-after.yaml"
    after.write_text("companies:\n  - name: B\n    qqq: 1\n", encoding="utf-8")
    found = problems([latin, after])
    assert found[0] == (f"{latin}:2:14: not UTF-8 text (byte 0xe9); manifests must be UTF-8")
    assert found[1].startswith(f"{after}:3:5: companies[0]: unknown field 'qqq'")
    assert len(found) == 2


def test_a_manifest_given_as_text_is_named_manifest_yaml() -> None:
    desired = load_manifest_text("companies:\n  - name: A\n")
    assert desired.files == ("manifest.yaml",)
    assert desired.location("companies", "A") == "manifest.yaml:2:5"
    # asked again (the planner asks each environment of a fleet for the same places)
    assert desired.location("companies", "A") == "manifest.yaml:2:5"
    with pytest.raises(ManifestError) as refused:
        load_manifest_text("companies: 1\n")
    assert refused.value.problems[0].startswith("manifest.yaml:1:12: companies: ")

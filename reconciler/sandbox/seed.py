"""Initial content of a sandbox: `reconciler sandbox serve --seed FILE` (docs/sandbox-seed.md).

A seed is a YAML or JSON file describing both services. Loading runs in two passes:
`_Validator` reads the whole file into a `_Plan` and collects every problem with its
`file:line:column`; only a file without problems is written, by `_write`, in one store
batch, so a bad seed leaves the database untouched. Without a seed the sandbox gets one
administrator and one workspace key, both generated.

Positions come from ruamel.yaml's node tree: the file is composed, never constructed as a
whole, and only plain scalars go through the safe constructor, so no tag can build an
object. JSON is read by the same parser after `json` has checked its stricter syntax.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from defusedxml import DefusedXmlException, ElementTree
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

from reconciler.errors import SeedError
from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.companies import normalise_domains
from reconciler.sandbox.helpdesk.custom_fields import DROPDOWN, USAGE_NAMES, validate_value
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record, Store
from reconciler.sandbox.workspace import EMPLOYEE_OPTIONAL, EMPLOYEE_REQUIRED


@dataclass(frozen=True)
class Credentials:
    helpdesk_username: str
    helpdesk_password: str
    helpdesk_token: str
    workspace_api_key: str


def initialise(state: SandboxState, seed: Path | None) -> Credentials:
    """Fill the (empty) store from `seed`, or with a generated administrator when None.
    Raises SeedError listing every problem of the file; nothing is written then."""
    if seed is None:
        return _initialise_default(state)
    problems = _Problems(str(seed))
    plan = _Validator(problems).run(_read(seed, problems))
    if problems or plan.credentials is None:
        raise SeedError(problems.messages())
    _write(state.store, plan, state.timestamp())
    return plan.credentials


def _initialise_default(state: SandboxState) -> Credentials:
    store = state.store
    password = secrets.token_urlsafe(12)
    token = records.new_token()
    key = secrets.token_urlsafe(24)
    admin = records.user("admin", "admin@example.com", password=password, token=token, role="admin")
    with store.batch():
        _write_standard(store, [])
        store.insert("users", admin)
        store.insert("ws_api_keys", {"key": key, "name": "sandbox"})
    return Credentials("admin", password, token, key)


# -- reading the file with positions ---------------------------------------------------


@dataclass(eq=False)
class SeedNode:
    """A value of the seed and where it starts (1-based). Mappings hold {key: SeedNode} in
    `value` and the key nodes in `keys`; scalars keep their source text in `raw`."""

    value: Any
    line: int
    column: int
    raw: str | None = None
    keys: dict[str, SeedNode] = field(default_factory=dict)


class _Problems:
    def __init__(self, file: str) -> None:
        self.file = file
        self._found: list[tuple[int, int, str]] = []

    def add(self, node: SeedNode, message: str) -> None:
        self._found.append((node.line, node.column, message))

    def __bool__(self) -> bool:
        return bool(self._found)

    def messages(self) -> list[str]:
        # In file order: the sections are checked in dependency order, not as written.
        # Once each: a mapping merged (`<<`) into many entries is read many times.
        ordered = sorted(dict.fromkeys(self._found), key=lambda p: (p[0], p[1]))
        return [f"{self.file}:{line}:{col}: {msg}" for line, col, msg in ordered]


def _read(path: Path, problems: _Problems) -> SeedNode:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SeedError([f"{path}:1:1: cannot read the seed file: {exc.strerror or exc}"]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise SeedError([f"{path}:{line}:{column}: the seed file is not UTF-8 text"]) from None
    if path.suffix.lower() == ".json":
        # YAML reads JSON too, but forgives what JSON forbids (trailing commas).
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise SeedError([f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}"]) from None
    yaml = YAML(typ="safe", pure=True)
    try:
        root = yaml.compose(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
        raise SeedError([f"{path}:{where}: invalid YAML: {exc.problem or exc}"]) from None
    except YAMLError as exc:
        raise SeedError([f"{path}:1:1: invalid YAML: {exc}"]) from None
    return SeedNode({}, 1, 1) if root is None else _Converter(yaml, problems).convert(root)


class _Converter:
    """ruamel nodes to `SeedNode`s: scalars built by the safe constructor, merge keys (`<<`)
    applied, duplicate keys and recursive aliases reported. An aliased node is converted
    once and shared (nothing changes a `SeedNode`), so nested aliases cannot blow up."""

    def __init__(self, yaml: YAML, problems: _Problems) -> None:
        self._construct = yaml.constructor.construct_object
        self._problems = problems
        self._open: set[int] = set()
        self._done: dict[int, SeedNode] = {}

    def convert(self, node: Any) -> SeedNode:
        if id(node) in self._done:
            return self._done[id(node)]
        here = SeedNode(None, node.start_mark.line + 1, node.start_mark.column + 1)
        if id(node) in self._open:
            self._problems.add(here, "a recursive alias cannot be loaded")
            return here
        self._open.add(id(node))
        if isinstance(node, MappingNode):
            self._mapping(node, here)
        elif isinstance(node, SequenceNode):
            here.value = [self.convert(item) for item in node.value]
        else:
            here.raw = str(node.value)
            here.value = self._scalar(node, here)
        self._open.discard(id(node))
        self._done[id(node)] = here
        return here

    def _scalar(self, node: Any, here: SeedNode) -> Any:
        try:
            return self._construct(node, deep=True)
        except YAMLError as exc:  # an unknown tag
            problem = str(getattr(exc, "problem", None) or exc).splitlines()[0]
            self._problems.add(here, f"cannot read this value: {problem}")
            return None
        except ValueError:
            # Looks like a date but is none (2025-13-01): text, for the field to judge.
            return str(node.value)

    def _mapping(self, node: Any, out: SeedNode) -> None:
        out.value = {}
        merges: list[SeedNode] = []
        for key_node, value_node in node.value:
            if str(getattr(key_node.tag, "value", key_node.tag)).endswith(":merge"):
                merges.append(self.convert(value_node))
                continue
            key = self.convert(key_node)
            if not isinstance(key_node, ScalarNode) or key.raw is None:
                self._problems.add(key, "a mapping key must be a plain value")
            elif key.raw in out.keys:
                self._problems.add(key, f"duplicate key '{key.raw}'")
            else:
                out.keys[key.raw] = key
                out.value[key.raw] = self.convert(value_node)
        for merged in merges:
            for source in merged.value if isinstance(merged.value, list) else [merged]:
                if not isinstance(source.value, dict):
                    self._problems.add(source, "'<<' must name a mapping or a list of mappings")
                    continue
                for name, value in source.value.items():
                    # Explicit keys win over merged ones, earlier merges over later ones.
                    if name not in out.value:
                        out.keys[name] = source.keys[name]
                        out.value[name] = value


# -- typed access to the seed's mappings ------------------------------------------------


def _key(name: str) -> str:
    """Names are matched case-insensitively, as the helpdesk matches them."""
    return name.strip().casefold()


def _scalar_text(node: SeedNode) -> str | None:
    """Text of a scalar; numbers and dates keep their source spelling (`0123`)."""
    if isinstance(node.value, str):
        return node.value
    if node.value is None or isinstance(node.value, bool | dict | list):
        return None
    return node.raw


def _items(node: SeedNode | None, problems: _Problems, what: str) -> list[SeedNode]:
    if node is None or node.value is None:
        return []
    if not isinstance(node.value, list):
        problems.add(node, f"{what} must be a list")
        return []
    return list(node.value)


class _Entry:
    """One mapping of the seed, read field by field; every wrong field is reported at its
    place and read as absent, so that checking goes on."""

    def __init__(
        self, node: SeedNode, problems: _Problems, what: str, known: str, noun: str = "field"
    ) -> None:
        self.node = node
        self.what = what
        self.problems = problems
        self.ok = isinstance(node.value, dict)
        self.values: dict[str, SeedNode] = node.value if self.ok else {}
        names = known.split()
        if not self.ok:
            problems.add(node, f"{what} must be a mapping of {', '.join(names)}")
        for name, key in node.keys.items():
            if name not in names:
                problems.add(key, f"unknown {noun} '{name}' in {what}; known: {', '.join(names)}")

    def get(self, name: str) -> SeedNode | None:
        node = self.values.get(name)
        return None if node is None or node.value is None else node

    def at(self, name: str) -> SeedNode:
        """Where a field is (or the entry, when the field is absent)."""
        return self.values.get(name) or self.node

    def missing(self, name: str) -> None:
        if self.ok:  # a non-mapping was reported once already
            self.problems.add(self.node, f"{self.what} needs '{name}'")

    def text(self, name: str, *, required: bool = False, strip: bool = True) -> str | None:
        node = self.get(name)
        if node is None:
            if required:
                self.missing(name)
            return None
        text = _scalar_text(node)
        if text is None:
            self.problems.add(node, f"'{name}' must be text")
            return None
        text = text.strip() if strip else text
        if required and not text:
            self.problems.add(node, f"'{name}' must not be empty")
            return None
        return text

    def flag(self, name: str, default: bool) -> bool:
        node = self.get(name)
        if node is None:
            return default
        if not isinstance(node.value, bool):
            self.problems.add(node, f"'{name}' must be true or false")
            return default
        return node.value

    def integer(
        self, name: str, *, required: bool = False, minimum: int | None = None
    ) -> int | None:
        node = self.get(name)
        if node is None:
            if required:
                self.missing(name)
            return None
        if isinstance(node.value, bool) or not isinstance(node.value, int):
            self.problems.add(node, f"'{name}' must be an integer")
            return None
        if minimum is not None and node.value < minimum:
            self.problems.add(node, f"'{name}' must be at least {minimum}")
            return None
        return node.value

    def choice(self, name: str, choices: Iterable[str], default: str) -> str | None:
        """One of `choices`, `default` when absent, None (reported) when wrong."""
        text = self.text(name)
        if text is None:
            return default
        if text not in choices:
            self.problems.add(self.at(name), f"'{name}' must be one of {', '.join(choices)}")
            return None
        return text

    def texts(self, name: str) -> list[tuple[str, SeedNode]]:
        """A list of names; each wrong item is reported."""
        out: list[tuple[str, SeedNode]] = []
        for item in _items(self.get(name), self.problems, f"'{name}'"):
            text = _scalar_text(item)
            if text is None or not text.strip():
                self.problems.add(item, f"each item of '{name}' must be a non-empty text")
            else:
                out.append((text.strip(), item))
        return out


# -- the validated content --------------------------------------------------------------

Custom = dict[int, str]  # index of the field in _Plan.fields -> stored value
_Option = tuple[int | None, str, SeedNode]  # fixed id or None, name, where


@dataclass
class _User:
    kwargs: dict[str, Any]  # records.user arguments but the company and department ids
    company: str | None
    department: str | None
    custom: Custom


@dataclass
class _Field:
    kwargs: dict[str, Any]  # records.custom_field arguments but category_ids
    categories: list[str]
    record: Record = field(default_factory=dict)  # to validate values against


@dataclass
class _Asset:
    kwargs: dict[str, Any]
    lookups: dict[str, str]  # manufacturer/type/supplier -> name
    company: str | None
    users: list[str]
    custom: Custom


@dataclass
class _Ticket:
    kwargs: dict[str, Any]
    category: str
    submitter: str
    assignee: str | None
    custom: Custom


@dataclass
class _Plan:
    """Everything to write; names are keys (`_key`) that the writer turns into ids."""

    priorities: list[tuple[int, str]] = field(default_factory=list)
    departments: dict[str, str] = field(default_factory=dict)  # key -> name, in order
    sections: dict[str, str] = field(default_factory=dict)
    categories: dict[str, tuple[dict[str, Any], str | None]] = field(default_factory=dict)
    fields: list[_Field] = field(default_factory=list)
    companies: dict[str, tuple[dict[str, Any], Custom]] = field(default_factory=dict)
    users: dict[str, _User] = field(default_factory=dict)
    tech_permissions: list[tuple[str, str]] = field(default_factory=list)
    lookups: dict[str, dict[str, str]] = field(default_factory=dict)  # table -> key -> name
    assets: list[_Asset] = field(default_factory=list)
    rules: list[tuple[int, Record]] = field(default_factory=list)
    tickets: list[_Ticket] = field(default_factory=list)
    api_keys: list[dict[str, str]] = field(default_factory=list)
    employees: dict[str, dict[str, Any]] = field(default_factory=dict)  # key(email) -> fields
    desks: dict[str, dict[str, Any]] = field(default_factory=dict)
    ws_assets: list[dict[str, Any]] = field(default_factory=list)
    bookings: list[dict[str, Any]] = field(default_factory=list)
    credentials: Credentials | None = None


SECTIONS = (
    "users companies departments sections categories tech_permissions custom_fields assets "
    "automation_rules priorities tickets workspace credentials"
)
USER_FIELDS = (
    "username email password token role first_name last_name notes location phone company "
    "department is_manager disabled send_email greeting signature custom_fields"
)
FIELD_FIELDS = "name type usage mandatory for_techs_only options categories show_in_grid order"
ASSET_FIELDS = (
    "serial_number model_name manufacturer type supplier location comments quantity company "
    "assigned_users disabled custom_fields"
)
TICKET_FIELDS = "subject body category submitter assignee status priority tags custom_fields"
ROLES = ("user", "technician", "admin")
LOOKUPS = {  # asset field -> (record column, lookup table)
    "manufacturer": ("manufacturer_id", "manufacturers"),
    "type": ("type_id", "asset_types"),
    "supplier": ("supplier_id", "suppliers"),
}
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_WS_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")  # what workspace.py accepts


class _Validator:
    """Reads the seed into a `_Plan`, section by section in dependency order."""

    def __init__(self, problems: _Problems) -> None:
        self.p = problems
        self.plan = _Plan()
        self.field_names: dict[int, dict[str, int]] = {u: {} for u in USAGE_NAMES}
        self.emails: set[str] = set()
        self.tokens: set[str] = set()

    def run(self, root: SeedNode) -> _Plan:
        top = _Entry(root, self.p, "the seed", SECTIONS, noun="section")
        self.priorities(top.get("priorities"))
        self.named_list(top.get("departments"), "departments", self.plan.departments)
        self.named_list(top.get("sections"), "sections", self.plan.sections)
        self.categories(top.get("categories"))
        self.custom_fields(top.get("custom_fields"))
        self.companies(top.get("companies"))
        self.users(top.get("users"))
        self.tech_permissions(top.get("tech_permissions"))
        self.assets(top.get("assets"))
        self.rules(top.get("automation_rules"))
        self.tickets(top.get("tickets"))
        self.workspace(top.get("workspace"))
        self.credentials(top.get("credentials"), root)
        return self.plan

    # -- helpdesk reference data --------------------------------------------------------

    def priorities(self, node: SeedNode | None) -> None:
        taken = dict(records.STANDARD_PRIORITIES)
        for item in _items(node, self.p, "'priorities'"):
            entry = _Entry(item, self.p, "a priority", "id name")
            pid, name = entry.integer("id", required=True), entry.text("name", required=True)
            if pid is None or name is None:
                continue
            if pid in taken:
                self.p.add(entry.at("id"), f"priority id {pid} is taken by '{taken[pid]}'")
            elif _key(name) in {_key(n) for n in taken.values()}:
                self.p.add(entry.at("name"), f"a priority named '{name}' exists already")
            else:
                taken[pid] = name
                self.plan.priorities.append((pid, name))

    def named_list(self, node: SeedNode | None, what: str, into: dict[str, str]) -> None:
        """`departments` and `sections`: names, or mappings with a name."""
        for item in _items(node, self.p, f"'{what}'"):
            name = _scalar_text(item)
            if isinstance(item.value, dict):
                name = _Entry(item, self.p, f"an item of '{what}'", "name").text("name")
            if not name or not name.strip():
                self.p.add(item, f"each item of '{what}' must be a name or {{name: ...}}")
            elif _key(name) in into:
                self.p.add(item, f"duplicate name '{name.strip()}' in '{what}'")
            else:
                into[_key(name)] = name.strip()

    def categories(self, node: SeedNode | None) -> None:
        known = "name section for_techs_only from_address kb_only"
        for item in _items(node, self.p, "'categories'"):
            entry = _Entry(item, self.p, "a category", known)
            name, section = entry.text("name", required=True), entry.text("section")
            kwargs = {
                "name": name,
                "for_techs_only": entry.flag("for_techs_only", False),
                "from_address": entry.text("from_address") or None,
                "kb_only": entry.flag("kb_only", False),
            }
            if name is None:
                continue
            if _key(name) in self.plan.categories:
                self.p.add(item, f"duplicate category '{name}'")
                continue
            if section:  # sections come into being as categories name them
                self.plan.sections.setdefault(_key(section), section)
            self.plan.categories[_key(name)] = (kwargs, section or None)

    # -- custom fields ------------------------------------------------------------------

    def custom_fields(self, node: SeedNode | None) -> None:
        pending: list[tuple[_Field, list[_Option]]] = []
        for item in _items(node, self.p, "'custom_fields'"):
            entry = _Entry(item, self.p, "a custom field", FIELD_FIELDS)
            name = entry.text("name", required=True)
            kind = records.FIELD_TYPES[entry.choice("type", records.FIELD_TYPES, "text") or "text"]
            if entry.get("usage") is None:
                entry.missing("usage")
            usage_name = entry.choice("usage", records.USAGE_TYPES, "")
            if not usage_name:
                name = None  # no usage to register it under: reported already
            usage = records.USAGE_TYPES.get(usage_name or "", records.USAGE_TYPES["tickets"])
            kwargs: dict[str, Any] = {
                "name": name,
                "type": kind,
                "usage_type": usage,
                "mandatory": entry.flag("mandatory", False),
                "for_techs_only": entry.flag("for_techs_only", False),
                "order": entry.integer("order") or 0,
                "show_in_grid": entry.flag("show_in_grid", False),
            }
            options = self.options(entry, kind)
            categories = self.field_categories(entry, usage)
            if name is None:
                continue
            if _key(name) in self.field_names[usage]:
                self.p.add(item, f"duplicate {USAGE_NAMES[usage]} custom field '{name}'")
                continue
            self.field_names[usage][_key(name)] = len(self.plan.fields)
            self.plan.fields.append(_Field(kwargs, categories))
            pending.append((self.plan.fields[-1], options))
        self.number_options(pending)

    def options(self, entry: _Entry, kind: int) -> list[_Option]:
        node = entry.get("options")
        if node is not None and kind != DROPDOWN:
            self.p.add(node, "only dropdown fields have 'options'")
            return []
        out: list[_Option] = []
        seen: set[str] = set()
        for item in _items(node, self.p, "'options'"):
            option_id, name = None, _scalar_text(item)
            if isinstance(item.value, dict):
                sub = _Entry(item, self.p, "an option", "id name")
                option_id, name = sub.integer("id", minimum=1), sub.text("name", required=True)
                if name is None:
                    continue
            if not name or not name.strip():
                self.p.add(item, "each option must be a name or {id: ..., name: ...}")
            elif _key(name) in seen:
                self.p.add(item, f"duplicate option '{name.strip()}'")
            else:
                seen.add(_key(name))
                out.append((option_id, name.strip(), item))
        return out

    def number_options(self, pending: list[tuple[_Field, list[_Option]]]) -> None:
        """Option ids are global: fixed ones are kept, the others numbered from 1 around
        them in file order, so the same seed always gives the same ids."""
        fixed: set[int] = set()
        for _, options in pending:
            for option_id, _, node in options:
                if option_id is not None and option_id in fixed:
                    self.p.add(node, f"duplicate option id {option_id}")
                fixed.add(option_id or 0)
        next_id = 1
        for spec, options in pending:
            numbered: list[Record] = []
            for option_id, name, _ in options:
                if option_id is None:
                    while next_id in fixed:
                        next_id += 1
                    option_id, next_id = next_id, next_id + 1
                numbered.append({"id": option_id, "name": name})
            spec.kwargs["options"] = numbered
            spec.record = records.custom_field(**spec.kwargs)

    def field_categories(self, entry: _Entry, usage: int) -> list[str]:
        node = entry.get("categories")
        if node is not None and usage != records.USAGE_TYPES["tickets"]:
            self.p.add(node, "only ticket fields have 'categories'")
            return []
        out: list[str] = []
        for name, item in entry.texts("categories"):
            if _key(name) not in self.plan.categories:
                self.p.add(item, f"unknown category '{name}'")
            elif _key(name) not in out:
                out.append(_key(name))
        return out

    def values(self, node: SeedNode | None, usage: int, category: str | None = None) -> Custom:
        """`custom_fields: {field name: value}` of one user, company, asset or ticket."""
        if node is None:
            return {}
        if not isinstance(node.value, dict):
            self.p.add(node, "'custom_fields' must map field names to values")
            return {}
        out: Custom = {}
        for name, value in node.value.items():
            index = self.field_names[usage].get(_key(name))
            if index is None:
                self.p.add(node.keys[name], self.unknown_field(name, usage))
                continue
            spec = self.plan.fields[index]
            if category and spec.categories and category not in spec.categories:
                self.p.add(node.keys[name], f"field '{name}' is not used in this category")
                continue
            stored = self.value(spec.record, value)
            if stored is not None:
                out[index] = stored
        return out

    def unknown_field(self, name: str, usage: int) -> str:
        label = USAGE_NAMES[usage]
        for other, names in self.field_names.items():
            if _key(name) in names:
                return f"'{name}' is a {USAGE_NAMES[other]} field, not a {label} field"
        return f"unknown {label} custom field '{name}'"

    def value(self, spec: Record, node: SeedNode) -> str | None:
        """The stored form of one value, checked as the API checks it."""
        if isinstance(node.value, bool):
            raw: str | None = "true" if node.value else "false"
        else:
            raw = "" if node.value is None else _scalar_text(node)
        if raw is None:
            self.p.add(node, f"the value of '{spec['name']}' must be a single value")
            return None
        if spec["type"] == DROPDOWN and raw.strip():
            # The seed names options; the API (and the store) speak option ids.
            option = next((o for o in spec["options"] if _key(o["name"]) == _key(raw)), None)
            if option is None:
                names = ", ".join(o["name"] for o in spec["options"]) or "none"
                self.p.add(node, f"'{raw}' is not an option of '{spec['name']}' ({names})")
                return None
            raw = str(option["id"])
        try:
            return validate_value(spec, raw)
        except HttpError as exc:
            self.p.add(node, exc.message)
            return None

    # -- companies and users ------------------------------------------------------------

    def companies(self, node: SeedNode | None) -> None:
        usage = records.USAGE_TYPES["companies"]
        for item in _items(node, self.p, "'companies'"):
            entry = _Entry(item, self.p, "a company", "name email_domains notes custom_fields")
            name = entry.text("name", required=True)
            domains = entry.get("email_domains")
            if domains is not None and isinstance(domains.value, list):
                joined = ";".join(name for name, _ in entry.texts("email_domains"))
            else:
                joined = entry.text("email_domains") or ""
            kwargs = {
                "name": name,
                "email_domain": normalise_domains(joined),
                "notes": entry.text("notes", strip=False),
            }
            custom = self.values(entry.get("custom_fields"), usage)
            if name is None:
                continue
            if _key(name) in self.plan.companies:
                self.p.add(item, f"duplicate company '{name}'")
                continue
            self.plan.companies[_key(name)] = (kwargs, custom)

    def users(self, node: SeedNode | None) -> None:
        for item in _items(node, self.p, "'users'"):
            user = self.user(_Entry(item, self.p, "a user", USER_FIELDS))
            if user is None:
                continue
            username, email = user.kwargs["username"], user.kwargs["email"]
            if _key(username) in self.plan.users:
                self.p.add(item, f"duplicate username '{username}'")
            elif _key(email) in self.emails:
                self.p.add(item, f"duplicate email '{email}'")
            elif user.kwargs["token"] in self.tokens:
                self.p.add(item, "duplicate token: another user has the same one")
            else:
                self.plan.users[_key(username)] = user
                self.emails.add(_key(email))
                self.tokens.add(user.kwargs["token"])
                # As with CreateUser, a company or department named here comes into being.
                if user.company:
                    self.plan.companies.setdefault(_key(user.company), ({"name": user.company}, {}))
                if user.department:
                    self.plan.departments.setdefault(_key(user.department), user.department)

    def user(self, entry: _Entry) -> _User | None:
        email = entry.text("email", required=True)
        if email is not None and not _EMAIL.match(email):
            self.p.add(entry.at("email"), f"'{email}' is not an e-mail address")
            email = None
        username = entry.text("username") or email
        kwargs: dict[str, Any] = {
            "username": username,
            "email": email,
            "password": entry.text("password", strip=False) or None,
            "token": entry.text("token") or records.new_token(),
            "role": entry.choice("role", ROLES, "user") or "user",
            "is_manager": entry.flag("is_manager", False),
            "disabled": entry.flag("disabled", False),
            "send_email": entry.flag("send_email", True),
        }
        for name in ("first_name", "last_name", "location", "phone"):
            kwargs[name] = entry.text(name) or ""
        for name in ("notes", "greeting", "signature"):
            kwargs[name] = entry.text(name, strip=False) or ""
        company, department = entry.text("company"), entry.text("department")
        custom = self.values(entry.get("custom_fields"), records.USAGE_TYPES["users"])
        if not username or not email:
            return None
        return _User(kwargs, company or None, department or None, custom)

    def tech_permissions(self, node: SeedNode | None) -> None:
        if node is None:
            return
        if not isinstance(node.value, dict):
            self.p.add(node, "'tech_permissions' must map category names to lists of usernames")
            return
        pairs = self.plan.tech_permissions
        for category, users in node.value.items():
            known = _key(category) in self.plan.categories
            if not known:
                self.p.add(node.keys[category], f"unknown category '{category}'")
            for item in _items(users, self.p, f"the technicians of '{category}'"):
                username = _scalar_text(item) or ""
                user = self.plan.users.get(_key(username))
                if user is None:
                    self.p.add(item, f"unknown username '{username or item.raw}'")
                    continue
                if user.kwargs["role"] == "user":
                    user.kwargs["role"] = "technician"  # as AddCategoryTechPermission does
                if known and (_key(username), _key(category)) not in pairs:
                    pairs.append((_key(username), _key(category)))

    # -- assets, rules, tickets ---------------------------------------------------------

    def assets(self, node: SeedNode | None) -> None:
        serials: set[str] = set()
        usage = records.USAGE_TYPES["assets"]
        for item in _items(node, self.p, "'assets'"):
            entry = _Entry(item, self.p, "an asset", ASSET_FIELDS)
            serial = entry.text("serial_number") or None
            if serial and _key(serial) in serials:
                self.p.add(entry.at("serial_number"), f"duplicate serial number '{serial}'")
            serials.add(_key(serial or ""))
            quantity = entry.integer("quantity", minimum=0)
            kwargs = {
                "model_name": entry.text("model_name", required=True),
                "serial_number": serial,
                "location": entry.text("location") or None,
                "comments": entry.text("comments", strip=False) or None,
                "quantity": 1 if quantity is None else quantity,
                "disabled": entry.flag("disabled", False),
            }
            lookups = {name: entry.text(name, required=True) for name in LOOKUPS}
            company = entry.text("company") or None
            if company and _key(company) not in self.plan.companies:
                self.p.add(entry.at("company"), f"unknown company '{company}'")
            users: list[str] = []
            for username, user_node in entry.texts("assigned_users"):
                if _key(username) not in self.plan.users:
                    self.p.add(user_node, f"unknown username '{username}'")
                elif _key(username) not in users:
                    users.append(_key(username))
            custom = self.values(entry.get("custom_fields"), usage)
            named = {name: value for name, value in lookups.items() if value}
            if kwargs["model_name"] is None or len(named) < len(LOOKUPS):
                continue
            for name, value in named.items():
                self.plan.lookups.setdefault(LOOKUPS[name][1], {}).setdefault(_key(value), value)
            self.plan.assets.append(_Asset(kwargs, named, company, users, custom))

    def rules(self, node: SeedNode | None) -> None:
        seen: set[int] = set()
        for item in _items(node, self.p, "'automation_rules'"):
            entry = _Entry(item, self.p, "an automation rule", "id name enabled conditions actions")
            rid = entry.integer("id", required=True, minimum=1)
            name = entry.text("name")
            enabled = entry.flag("enabled", True)
            parts = {part: self.xml_fragment(entry, part) for part in ("conditions", "actions")}
            if rid is None:
                continue
            if rid in seen:
                self.p.add(entry.at("id"), f"duplicate rule id {rid}")
                continue
            seen.add(rid)
            rule = records.rule(name or f"Rule {rid}", enabled=enabled, **parts)
            self.plan.rules.append((rid, rule))

    def xml_fragment(self, entry: _Entry, name: str) -> str:
        """The inner XML of <conditions> or <actions>; empty means none."""
        text = (entry.text(name, strip=False) or "").strip()
        try:
            ElementTree.fromstring(f"<{name}>{text}</{name}>")
        except (ElementTree.ParseError, DefusedXmlException) as exc:
            # The rule endpoints embed the fragment in their XML answer.
            reason = str(exc).split(":")[0]  # its position is in the wrapped text
            self.p.add(entry.at(name), f"'{name}' is not a well-formed XML fragment: {reason}")
        return text

    def tickets(self, node: SeedNode | None) -> None:
        priorities = records.STANDARD_PRIORITIES + self.plan.priorities
        usage = records.USAGE_TYPES["tickets"]
        for item in _items(node, self.p, "'tickets'"):
            entry = _Entry(item, self.p, "a ticket", TICKET_FIELDS)
            kwargs: dict[str, Any] = {
                "subject": entry.text("subject", required=True),
                "body": entry.text("body", strip=False) or "",
                "status_id": self.code(entry, "status", records.STANDARD_STATUSES, 1),
                "priority": self.code(entry, "priority", priorities, 0),
                "tags": list(dict.fromkeys(name for name, _ in entry.texts("tags"))),
            }
            category = self.reference(entry, "category", self.plan.categories, required=True)
            submitter = self.reference(entry, "submitter", self.plan.users, required=True)
            assignee = self.reference(entry, "assignee", self.plan.users)
            if assignee and self.plan.users[assignee].kwargs["role"] == "user":
                self.p.add(entry.at("assignee"), "the assignee must be a technician or admin")
            custom = self.values(entry.get("custom_fields"), usage, category)
            if kwargs["subject"] is None or category is None or submitter is None:
                continue
            self.plan.tickets.append(_Ticket(kwargs, category, submitter, assignee, custom))

    def code(self, entry: _Entry, name: str, table: list[tuple[int, str]], default: int) -> int:
        """A status or priority, by id or by name."""
        node = entry.get(name)
        if node is None:
            return default
        for code, label in table:
            if isinstance(node.value, int) and not isinstance(node.value, bool):
                if node.value == code:
                    return code
            elif isinstance(node.value, str) and _key(node.value) == _key(label):
                return code
        names = ", ".join(f"{label} ({code})" for code, label in table)
        self.p.add(node, f"unknown {name} '{node.raw}'; known: {names}")
        return default

    def reference(
        self, entry: _Entry, name: str, known: dict[str, Any], *, required: bool = False
    ) -> str | None:
        """The key of the record that field `name` names, None when it names none."""
        text = entry.text(name, required=required)
        if not text:
            return None
        if _key(text) not in known:
            what = "employee" if name == "assigned_to" else name
            self.p.add(entry.at(name), f"unknown {what} '{text}'")
            return None
        return _key(text)

    # -- workspace ----------------------------------------------------------------------

    def workspace(self, node: SeedNode | None) -> None:
        if node is None:
            return
        top = _Entry(node, self.p, "'workspace'", "api_keys employees desks assets bookings")
        for item in _items(top.get("api_keys"), self.p, "'api_keys'"):
            entry = _Entry(item, self.p, "an API key", "key name")
            key = entry.text("key") or secrets.token_urlsafe(24)
            if any(k["key"] == key for k in self.plan.api_keys):
                self.p.add(entry.at("key"), "duplicate API key")
            self.plan.api_keys.append({"key": key, "name": entry.text("name") or ""})
        for item in _items(top.get("employees"), self.p, "'employees'"):
            self.employee(item)
        for item in _items(top.get("desks"), self.p, "'desks'"):
            self.desk(item)
        tags: set[str] = set()
        for item in _items(top.get("assets"), self.p, "'assets'"):
            entry = _Entry(item, self.p, "a workspace asset", "tag name type assigned_to")
            tag = entry.text("tag", required=True)
            if tag is not None and _key(tag) in tags:
                self.p.add(entry.at("tag"), f"duplicate asset tag '{tag}'")
            tags.add(_key(tag or ""))
            fields = {"tag": tag, "name": entry.text("name", required=True)}
            fields["type"] = entry.text("type") or None
            fields["assignedTo"] = self.reference(entry, "assigned_to", self.plan.employees)
            self.plan.ws_assets.append(fields)
        for item in _items(top.get("bookings"), self.p, "'bookings'"):
            self.booking(item)

    def employee(self, item: SeedNode) -> None:
        """The employee fields as workspace.py checks and stores them."""
        known = " ".join(EMPLOYEE_REQUIRED + tuple(EMPLOYEE_OPTIONAL))
        entry = _Entry(item, self.p, "an employee", known)
        fields: dict[str, Any] = {n: entry.text(n, required=True) for n in EMPLOYEE_REQUIRED}
        email = fields["email"]
        if email is not None and not _WS_EMAIL.match(email):
            self.p.add(entry.at("email"), f"'{email}' is not an e-mail address")
        fields.update(EMPLOYEE_OPTIONAL)
        for name, default in EMPLOYEE_OPTIONAL.items():
            if isinstance(default, bool):
                fields[name] = entry.flag(name, default)
            elif entry.get(name) is not None:
                fields[name] = entry.text(name, strip=False)
        start = fields["startDate"]
        if start is not None and _iso_date(start) is None:
            self.p.add(entry.at("startDate"), "'startDate' must be a date YYYY-MM-DD")
        if email is None:
            return
        if _key(email) in self.plan.employees:
            self.p.add(entry.at("email"), f"duplicate employee email '{email}'")
            return
        self.plan.employees[_key(email)] = fields

    def desk(self, item: SeedNode) -> None:
        entry = _Entry(item, self.p, "a desk", "name floor location bookable")
        name = entry.text("name", required=True)
        floor = entry.get("floor")
        if floor is not None and not _is_floor(floor.value):
            self.p.add(floor, "'floor' must be a number or a text")
            floor = None
        fields = {
            "name": name,
            "floor": None if floor is None else floor.value,
            "location": entry.text("location") or None,
            "bookable": entry.flag("bookable", True),
        }
        if name is None:
            return
        if _key(name) in self.plan.desks:
            self.p.add(entry.at("name"), f"duplicate desk '{name}'")
            return
        self.plan.desks[_key(name)] = fields

    def booking(self, item: SeedNode) -> None:
        entry = _Entry(item, self.p, "a booking", "desk employee date status")
        desk = self.reference(entry, "desk", self.plan.desks, required=True)
        if desk is not None and not self.plan.desks[desk]["bookable"]:
            self.p.add(entry.at("desk"), f"desk '{self.plan.desks[desk]['name']}' is not bookable")
        employee = self.reference(entry, "employee", self.plan.employees, required=True)
        day = entry.text("date", required=True)
        if day is not None and _iso_date(day) is None:
            self.p.add(entry.at("date"), "'date' must be a date YYYY-MM-DD")
        status = entry.text("status") or "confirmed"
        fields = {"deskId": desk, "employeeId": employee, "date": day, "status": status}
        self.plan.bookings.append(fields)

    # -- credentials --------------------------------------------------------------------

    def credentials(self, node: SeedNode | None, root: SeedNode) -> None:
        """What `serve` prints: an admin's login and a workspace key."""
        known = "helpdesk_user workspace_api_key"
        entry = _Entry(node or SeedNode({}, root.line, root.column), self.p, "'credentials'", known)
        user = self.credential_user(entry, root)
        if not self.plan.api_keys:
            self.plan.api_keys.append({"key": secrets.token_urlsafe(24), "name": "sandbox"})
        key = self.plan.api_keys[0]["key"]
        wanted = entry.text("workspace_api_key")
        if wanted is not None:
            matches = [k for k in self.plan.api_keys if wanted in (k["key"], k["name"])]
            if len(matches) == 1:
                key = matches[0]["key"]
            else:
                found = "more than one" if matches else "no"
                message = f"{found} workspace API key has the key or name '{wanted}'"
                self.p.add(entry.at("workspace_api_key"), message)
        if user is not None:
            kwargs = user.kwargs
            self.plan.credentials = Credentials(
                kwargs["username"], kwargs["password"], kwargs["token"], key
            )

    def credential_user(self, entry: _Entry, root: SeedNode) -> _User | None:
        def usable(user: _User) -> bool:
            kwargs = user.kwargs
            return kwargs["role"] == "admin" and bool(kwargs["password"]) and not kwargs["disabled"]

        wanted = entry.text("helpdesk_user")
        if wanted is None:
            user = next((u for u in self.plan.users.values() if usable(u)), None)
            if user is None:
                self.p.add(root, "the seed needs an enabled admin user with a password")
            return user
        user = self.plan.users.get(_key(wanted))
        if user is None:
            self.p.add(entry.at("helpdesk_user"), f"unknown username '{wanted}'")
        elif not usable(user):
            message = f"'{wanted}' must be an enabled admin user with a password"
            self.p.add(entry.at("helpdesk_user"), message)
        else:
            return user
        return None


def _is_floor(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _iso_date(text: str) -> str | None:
    try:
        return date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        return None


# -- writing ---------------------------------------------------------------------------


@dataclass
class _Ids:
    """Ids the store gave, for the references of later records."""

    named: dict[str, dict[str, int]] = field(default_factory=dict)  # table -> key -> id
    fields: list[int] = field(default_factory=list)  # by index in _Plan.fields

    def of(self, table: str, name: str | None) -> int | None:
        return None if name is None else self.named[table][_key(name)]

    def custom(self, values: Custom) -> dict[str, str]:
        return {str(self.fields[index]): value for index, value in values.items()}


def _write_standard(store: Store, custom_priorities: list[tuple[int, str]]) -> None:
    for pid, name in records.STANDARD_PRIORITIES + custom_priorities:
        store.insert("priorities", {"priority_id": pid, "name": name})
    for sid, name in records.STANDARD_STATUSES:
        store.insert("statuses", {"status_id": sid, "name": name})


def _write(store: Store, plan: _Plan, now: str) -> None:
    with store.batch():
        _write_standard(store, plan.priorities)
        ids = _Ids()
        _write_people(store, plan, ids)
        _write_assets(store, plan, ids)
        for rid, rule in plan.rules:
            store.insert("rules", rule, rid=rid)
        _write_tickets(store, plan, ids, now)
        _write_workspace(store, plan, now)


def _insert_all(store: Store, ids: _Ids, table: str, recs: dict[str, Record]) -> None:
    ids.named[table] = {key: store.insert(table, rec)["id"] for key, rec in recs.items()}


def _write_people(store: Store, plan: _Plan, ids: _Ids) -> None:
    """Departments, sections, categories, custom fields, companies, users, technicians."""
    for table, names in (("departments", plan.departments), ("sections", plan.sections)):
        _insert_all(store, ids, table, {k: records.named(n) for k, n in names.items()})
    categories = {
        key: records.category(section_id=ids.of("sections", section), **kwargs)
        for key, (kwargs, section) in plan.categories.items()
    }
    _insert_all(store, ids, "categories", categories)
    for spec in plan.fields:
        category_ids = [ids.named["categories"][key] for key in spec.categories]
        rec = records.custom_field(**spec.kwargs, category_ids=category_ids)
        ids.fields.append(store.insert("custom_fields", rec)["id"])
    companies = {}
    for key, (kwargs, custom) in plan.companies.items():
        companies[key] = {**records.company(**kwargs), "custom": ids.custom(custom)}
    _insert_all(store, ids, "companies", companies)
    users = {}
    for key, user in plan.users.items():
        rec = records.user(
            **user.kwargs,
            company_id=ids.of("companies", user.company),
            department_id=ids.of("departments", user.department),
        )
        users[key] = {**rec, "custom": ids.custom(user.custom)}
    _insert_all(store, ids, "users", users)
    for username, category in plan.tech_permissions:
        user_id, category_id = ids.named["users"][username], ids.named["categories"][category]
        store.insert("tech_permissions", {"user_id": user_id, "category_id": category_id})


def _write_assets(store: Store, plan: _Plan, ids: _Ids) -> None:
    for table, names in plan.lookups.items():
        _insert_all(store, ids, table, {k: records.named(n) for k, n in names.items()})
    for spec in plan.assets:
        refs: dict[str, Any] = {
            LOOKUPS[n][0]: ids.of(LOOKUPS[n][1], value) for n, value in spec.lookups.items()
        }
        rec = records.asset(**spec.kwargs, **refs, company_id=ids.of("companies", spec.company))
        rec["assigned_user_ids"] = [ids.named["users"][name] for name in spec.users]
        rec["custom"] = ids.custom(spec.custom)
        store.insert("assets", rec)


def _write_tickets(store: Store, plan: _Plan, ids: _Ids, now: str) -> None:
    for spec in plan.tickets:
        rec = records.ticket(
            **spec.kwargs,
            category_id=ids.named["categories"][spec.category],
            user_id=ids.named["users"][spec.submitter],
            assigned_to_user_id=ids.of("users", spec.assignee),
            now=now,
        )
        store.insert("tickets", {**rec, "custom": ids.custom(spec.custom)})


def _write_workspace(store: Store, plan: _Plan, now: str) -> None:
    """Employees as workspace.py keeps them; desks, assets and bookings as it renders them
    (`{"id": public_id, **fields}`), their references as the public ids."""
    for key in plan.api_keys:
        store.insert("ws_api_keys", dict(key))
    employees: dict[str, str] = {}
    for email, fields in plan.employees.items():
        pid = employees[email] = secrets.token_hex(6)
        rec = {"public_id": pid, "fields": fields, "created": now, "updated": now}
        store.insert("ws_employees", rec)
    desks: dict[str, str] = {}
    for name, fields in plan.desks.items():
        desks[name] = secrets.token_hex(6)
        store.insert("ws_desks", {"public_id": desks[name], "fields": fields})
    for fields in plan.ws_assets:
        owner = fields["assignedTo"]
        fields = {**fields, "assignedTo": employees[owner] if owner else None}
        store.insert("ws_assets", {"public_id": secrets.token_hex(6), "fields": fields})
    for fields in plan.bookings:
        fields = {
            **fields,
            "deskId": desks[fields["deskId"]],
            "employeeId": employees[fields["employeeId"]],
            "date": _iso_date(fields["date"]),
        }
        store.insert("ws_bookings", {"public_id": secrets.token_hex(6), "fields": fields})

"""Initial content of a sandbox: `reconciler sandbox serve --seed FILE` (docs/sandbox.md).

A seed is a YAML or JSON file describing both services. Loading runs in two passes:
`validate` writes the whole file into a scratch store and collects every problem with its
`file:line:column`; only a file without problems is copied into the sandbox's store, in
one batch, so a bad seed leaves the database untouched. Without a seed the sandbox gets
one administrator and one workspace key, both generated.

The modules: `reading` (the file to `SeedNode`s with positions, `Problems`, and typed
access to one mapping), `checker` (what the checks share, and custom fields) and
`sections` (the other parts of the seed, and `validate`: all of them in order). Here, two
keys that make a large shared tenant from a few lines:
- `extends: NAME`: the built-in seed NAME first; the sections of this file are added to it.
  A list in both (users, custom fields...) gets this file's entries after the base's;
  any other section in both is an error (the file would silently replace the base's).
- `generated:` customers, client companies and discovered assets made in code at seed
  time, the same on every run: `client_companies` companies `Client 001 Ltd`... (e-mail
  domain `client001.example`), `customers` regular users `customer00001`... spread over
  them in turn, and `discovered_assets` assets `DISC-00001`... (model `Discovered device`),
  each of a client company in turn, with no user assigned.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import SeedError
from reconciler.sandbox import records
from reconciler.sandbox.config import BUILTIN_SEEDS, builtin_seed_names
from reconciler.sandbox.seed.checker import Credentials
from reconciler.sandbox.seed.reading import Entry, Problems, SeedNode, read
from reconciler.sandbox.seed.sections import validate
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store

__all__ = ["Credentials", "initialise"]


def initialise(state: SandboxState, seed: Path | None) -> Credentials:
    """Fill the (empty) store from `seed`, or with a generated administrator when None.
    Raises SeedError listing every problem of the file; nothing is written then."""
    if seed is None:
        return _initialise_default(state)
    problems = Problems(str(seed))
    root, extends, generated = split(read(seed, problems))
    if extends is not None:
        root = merged(_extended(extends, problems), root, problems)
    crowd = check_generated(generated, problems)
    scratch = Store(None)
    try:
        credentials = validate(root, problems, scratch, state.timestamp())
        if problems or credentials is None:
            raise SeedError(problems.messages())
        with state.store.batch():
            for table, rows in scratch.tables.items():
                for rec in rows.values():
                    state.store.insert(table, rec, rid=rec["id"])
            write_generated(state.store, crowd)
    finally:
        scratch.close()
    return credentials


def _extended(node: SeedNode, problems: Problems) -> SeedNode:
    """The tree of the built-in seed `extends:` names (an empty one when it names none)."""
    names = builtin_seed_names()
    if not isinstance(node.value, str) or node.value not in names:
        problems.add(node, f"'extends' must name a built-in seed: one of {', '.join(names)}")
        return SeedNode({}, node.line, node.column)
    return read(BUILTIN_SEEDS / f"{node.value}.yaml", problems)


def _initialise_default(state: SandboxState) -> Credentials:
    store = state.store
    password = secrets.token_urlsafe(12)
    token = records.new_token()
    key = secrets.token_urlsafe(24)
    admin = records.user("admin", "admin@example.com", password=password, token=token, role="admin")
    with store.batch():
        store.insert("users", admin)
        store.insert("ws_api_keys", {"key": key, "name": "sandbox"})
    return Credentials("admin", password, token, key)


EXTENDS, GENERATED = "extends", "generated"
_COUNTS = "customers client_companies discovered_assets"


@dataclass(frozen=True)
class Crowd:
    customers: int = 0
    client_companies: int = 0
    discovered_assets: int = 0


def split(root: SeedNode) -> tuple[SeedNode, SeedNode | None, SeedNode | None]:
    """The seed without its `extends` and `generated` keys, and those two nodes."""
    if not isinstance(root.value, dict):
        return root, None, None
    own = {k: v for k, v in root.value.items() if k not in (EXTENDS, GENERATED)}
    keys = {k: v for k, v in root.keys.items() if k not in (EXTENDS, GENERATED)}
    rest = SeedNode(own, root.line, root.column, root.raw, keys)
    return rest, root.value.get(EXTENDS), root.value.get(GENERATED)


def merged(base: SeedNode, own: SeedNode, problems: Problems) -> SeedNode:
    """The base seed's sections, then this file's. A list in both is joined, the base's
    entries first (a repeated one is reported as in one file); any other section in both
    is a problem."""
    if not (isinstance(base.value, dict) and isinstance(own.value, dict)):
        return own
    value = {**base.value, **own.value}
    for name, key_node in own.keys.items():
        if name not in base.value:
            continue
        before, after = base.value[name], own.value[name]
        if isinstance(before.value, list) and isinstance(after.value, list):
            joined = [*before.value, *after.value]
            value[name] = SeedNode(joined, after.line, after.column, after.raw, after.keys)
        else:
            problems.add(key_node, f"section '{name}' is in the extended seed already")
    return SeedNode(value, own.line, own.column, own.raw, {**base.keys, **own.keys})


def check_generated(node: SeedNode | None, problems: Problems) -> Crowd:
    if node is None:
        return Crowd()
    entry = Entry(node, problems, f"'{GENERATED}'", _COUNTS)
    counts = {name: entry.integer(name, minimum=0) or 0 for name in _COUNTS.split()}
    if counts["customers"] and not counts["client_companies"]:
        problems.add(node, "customers need client_companies to belong to")
    return Crowd(**counts)


def write_generated(store: Store, crowd: Crowd) -> None:
    """The records of `crowd`, in one batch, numbered from 1 (the same on every run)."""
    with store.batch():
        companies = [
            store.insert(
                "companies",
                records.company(f"Client {n:03d} Ltd", email_domain=f"client{n:03d}.example"),
            )["id"]
            for n in range(1, crowd.client_companies + 1)
        ]
        for n in range(1, crowd.customers + 1):
            company = companies[(n - 1) % len(companies)]
            domain = f"client{(n - 1) % len(companies) + 1:03d}.example"
            name = f"customer{n:05d}"
            store.insert(
                "users",
                records.user(
                    name, f"{name}@{domain}", first_name="Customer", last_name=f"{n:05d}",
                    company_id=company,
                ),
            )  # fmt: skip
        if crowd.discovered_assets:
            _write_discovered(store, crowd, companies)


def _write_discovered(store: Store, crowd: Crowd, companies: list[int]) -> None:
    lookup = {
        table: store.insert(table, records.named("Discovered"))["id"]
        for table in ("manufacturers", "suppliers", "asset_types")
    }
    for n in range(1, crowd.discovered_assets + 1):
        store.insert(
            "assets",
            records.asset(
                model_name="Discovered device",
                manufacturer_id=lookup["manufacturers"],
                supplier_id=lookup["suppliers"],
                type_id=lookup["asset_types"],
                serial_number=f"DISC-{n:05d}",
                company_id=companies[(n - 1) % len(companies)] if companies else None,
            ),
        )

"""Initial content of a sandbox: `reconciler sandbox serve --seed FILE` (docs/sandbox.md).

A seed is a YAML or JSON file describing both services. Loading runs in two passes:
`validate` reads the whole file into a `Plan` and collects every problem with its
`file:line:column`; only a file without problems is written, by `write`, in one store
batch, so a bad seed leaves the database untouched. Without a seed the sandbox gets one
administrator and one workspace key, both generated.

The modules: `reading` (the file to `SeedNode`s with positions, and `Problems`), `entry`
(typed access to one mapping), `plan` (what to write), `checker` (what the checks share),
one module per part of the seed (`catalogue`, `fields`, `people`, `assets`, `rules`,
`workspace`, `credentials`), `validate` (all of them in order) and `writing`.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from reconciler.errors import SeedError
from reconciler.sandbox import records
from reconciler.sandbox.config import BUILTIN_SEEDS, builtin_seed_names
from reconciler.sandbox.seed.generated import check_generated, merged, split, write_generated
from reconciler.sandbox.seed.plan import Credentials
from reconciler.sandbox.seed.reading import Problems, SeedNode, read
from reconciler.sandbox.seed.validate import validate
from reconciler.sandbox.seed.writing import write
from reconciler.sandbox.state import SandboxState

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
    plan = validate(root, problems)
    if problems or plan.credentials is None:
        raise SeedError(problems.messages())
    write(state.store, plan, state.timestamp())
    write_generated(state.store, crowd)
    return plan.credentials


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

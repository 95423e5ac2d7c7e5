"""The built-in seeds (`acme`, `empty`, ...) and how a seed is named: by one of their names
or by a file. Below both `serve.py` and `embedded.py`, which name seeds alike."""

from __future__ import annotations

from pathlib import Path

from reconciler.errors import UsageError
from reconciler.sandbox.config import BUILTIN_SEEDS, builtin_seed_names


def seed_path(name_or_file: str) -> Path:
    """A built-in seed by name (`acme`, `empty`) or a seed file."""
    builtin = BUILTIN_SEEDS / f"{name_or_file}.yaml"
    if builtin.is_file():
        return builtin
    path = Path(name_or_file)
    if path.is_file():
        return path
    names = ", ".join(builtin_seed_names())
    raise UsageError(f"no seed {name_or_file!r}: give a file, or one of {names}")

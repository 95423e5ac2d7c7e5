"""`--var-file FILE`: YAML mappings of variable names to values that fill `${NAME}` in
manifests before the environment does, so one set of manifests serves staging and
production. Later files win over earlier ones. Every problem is reported at its place.

The var files a project file names (`var_files:` in reconciler.yaml) are read only inside
the repository (`repository`, the project file's directory): a `../../etc/...` or an
absolute path, or a symbolic link leading out of it, is refused unread."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from reconciler.manifest.files import FileRefused, inside, read_regular_file
from reconciler.manifest.loader import decode_utf8
from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.yamltree import parse_documents

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def load_var_files(paths: Sequence[Path], *, repository: Path | None = None) -> dict[str, str]:
    """The variables of every file, merged in order (each inside `repository`, when given);
    raises ManifestError."""
    problems = Problems()
    variables: dict[str, str] = {}
    for order, path in enumerate(paths):
        source = Source(str(path), order)
        if repository is not None and not inside(path, repository, resolve=True):
            outside = f"the variables file is outside the repository ({repository}): not read"
            problems.add(source, 1, 1, outside)
            continue
        try:
            data = read_regular_file(path)
        except FileRefused as exc:
            problems.add(source, 1, 1, f"cannot read the variables file: {exc}")
            continue
        text = decode_utf8(source, data, problems)
        if text is None:
            continue
        roots = parse_documents(text, problems.reporter(source), lambda value: (value, []))
        if len(roots) != 1 or not roots[0].is_mapping:
            where = roots[0] if roots else None
            problems.add(
                source,
                where.line if where else 1,
                where.column if where else 1,
                "a variables file holds one mapping of NAME: value",
            )
            continue
        root = roots[0]
        assert root.keys is not None
        for name, node in root.value.items():
            key = root.keys[name]
            if not _NAME.match(name):
                problems.at(source, key, f"'{name}' is not a variable name (letters, digits, _)")
            elif isinstance(node.value, dict | list) or node.value is None:
                problems.at(source, node, f"{name}: a variable's value is text, a number or a bool")
            elif isinstance(node.value, bool):
                variables[name] = "true" if node.value else "false"
            else:
                variables[name] = node.raw if node.raw is not None else str(node.value)
    problems.raise_if_any()
    return variables

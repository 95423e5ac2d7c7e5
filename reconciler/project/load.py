"""Finding and reading the project file, `reconciler.yaml`: every problem is reported as
`file:line:column: message`, all of them at once, as for manifests."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from reconciler.errors import UsageError
from reconciler.manifest.files import FileRefused, read_regular_file
from reconciler.manifest.loader import decode_utf8
from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.yamltree import Node, parse_documents
from reconciler.project.model import Environment, ProjectFile

PROJECT_FILE = "reconciler.yaml"


@dataclass(frozen=True)
class Project:
    """A project file read: where it is (paths in it are relative to `root`), its
    environments in the order written, and the YAML node of each (for messages)."""

    path: Path
    model: ProjectFile
    nodes: dict[str, Node]

    @property
    def root(self) -> Path:
        return self.path.parent

    @property
    def names(self) -> list[str]:
        return list(self.model.environments)

    def environment(self, name: str) -> Environment:
        return self.model.environments[name]

    def where(self, name: str) -> str:
        node = self.nodes.get(name)
        return f"{self.path}:{node.line}:{node.column}" if node else str(self.path)


def find_project_file(start: Path) -> Path | None:
    """`reconciler.yaml` in `start` or the nearest directory above it (as git finds
    `.git`), named relative to `start` when it is in `start` itself."""
    if (start / PROJECT_FILE).is_file():
        return Path(PROJECT_FILE) if start == Path.cwd() else start / PROJECT_FILE
    for directory in start.resolve().parents:
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def locate_project(given: Path | None) -> Project:
    """The project of `--project FILE`, or the one found from the current directory."""
    path = given if given is not None else find_project_file(Path.cwd())
    if path is None:
        raise UsageError(
            f"--env needs a project file: no {PROJECT_FILE} in the current directory or "
            "above it (or give one with --project FILE; docs/environments.md)"
        )
    return load_project(path)


def load_project(path: Path) -> Project:
    """The project file at `path`; raises ManifestError listing every problem."""
    problems = Problems()
    source = Source(str(path), 0)
    try:
        data = read_regular_file(path)
    except FileRefused as exc:
        problems.add(source, 1, 1, f"cannot read the project file: {exc}")
        raise problems.error() from None
    text = decode_utf8(source, data, problems)
    roots = parse_documents(text or "", problems.reporter(source), lambda value: (value, []))
    if text is not None and (len(roots) != 1 or not roots[0].is_mapping):
        where = roots[0] if roots else None
        line, column = (where.line, where.column) if where else (1, 1)
        problems.add(source, line, column, "a project file holds one mapping: environments:")
    problems.raise_if_any()
    root = roots[0]
    try:
        model = ProjectFile.model_validate(root.plain())
    except ValidationError as exc:
        for line, column, message in _explain(root, exc.errors()):
            problems.add(source, line, column, message)
        raise problems.error() from None
    environments = root.child("environments")
    keys = environments.keys if environments is not None and environments.keys else {}
    project = Project(path, model, dict(keys))
    refuse(project, wave_problems(project))
    return project


def wave_problems(project: Project) -> list[tuple[str, str]]:
    """Waves are all or nothing: with one environment in a wave and another in none,
    whether the other goes first or last would be a guess (docs/environments.md)."""
    waved = [name for name in project.names if project.environment(name).wave is not None]
    if not waved or len(waved) == len(project.names):
        return []
    first = waved[0]
    example = f"{first} is in wave {project.environment(first).wave} at {project.where(first)}"
    return [
        (name, f"no wave, but other environments have one ({example}): give every "
         "environment a wave, or none")
        for name in project.names
        if project.environment(name).wave is None
    ]  # fmt: skip


def refuse(project: Project, found: list[tuple[str, str]]) -> None:
    """Raises ManifestError with each (environment, message) of `found` at the line of
    the environment's name."""
    problems = Problems()
    source = Source(str(project.path), 0)
    for name, message in found:
        node = project.nodes.get(name)
        line, column = (node.line, node.column) if node else (1, 1)
        problems.add(source, line, column, f"environments.{name}: {message}")
    problems.raise_if_any()


def shared_helpdesk_problems(project: Project) -> list[tuple[str, str]]:
    """Two environments bound to one helpdesk (however its address is spelled: the
    apply lock's `service_address`) would apply two sets of manifests to it, each removing
    or undoing what the other manages. (Only `validate` refuses them: plan and apply
    over several environments may share a helpdesk, the apply lock taking turns.)"""
    declared = {
        name: url for name in project.names if (url := project.environment(name).helpdesk_url)
    }
    if len(declared) < 2:
        return []
    from reconciler.clients.urls import service_address  # httpx: only when there are two

    first: dict[str, str] = {}
    found = []
    for name, url in declared.items():
        address = service_address(url, "helpdesk")
        if address in first:
            other = first[address]
            found.append((name, f"helpdesk_url names the helpdesk of environment {other} "
                          f"({project.where(other)}): one environment per helpdesk"))  # fmt: skip
        else:
            first[address] = name
    return found


def _explain(root: Node, errors: Iterable[Any]) -> list[tuple[int, int, str]]:
    """Each pydantic error at the node it is about, with its dotted path."""
    found = []
    for error in errors:
        node, parent, path = root, root, list[Any]()
        for part in error["loc"]:
            child = node.child(part)
            if part == "[key]" and parent.keys and path:
                node = parent.keys.get(str(path[-1]), node)  # a bad key: at the key
                break
            if child is None:
                break
            parent = node
            if error["type"] == "extra_forbidden" and node.keys and part == error["loc"][-1]:
                child = node.keys[str(part)]  # an unknown field: at its key
            node = child
            path.append(part)
        found.append((node.line, node.column, _message(error, path)))
    return found


def _message(error: Any, path: list[Any]) -> str:
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    kind = error["type"]
    if kind == "missing":
        text = f"missing required field '{error['loc'][-1]}'"
    elif kind == "extra_forbidden":
        text = "unknown field"
    else:
        message = str(error["msg"])
        text = message[:1].lower() + message[1:]
    return f"{where}: {text}" if where else text

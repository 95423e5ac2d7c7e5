"""`reconciler validate` of a generated tenant manifest (issue 13: 300 companies, 5,000
users, 5,000 assets, 10,300 objects), against libyaml composing the same file (PyYAML's
`CSafeLoader`, which keeps the line and column of every node): wall time and peak resident
memory, each in its own process, measured side by side in one run. Target: at most 2x
the time and 1.5x the memory of the reference. The whole command is measured, start-up
and imports included; the reference's process imports only PyYAML.

    python benchmarks/validate_speed.py [--companies 300 --users 5000 --assets 5000]
                                        [--repeat 3] [--pure]

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


def measure(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run of `command`, which must succeed."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{command[:3]} failed ({process.returncode}): {errors[-2000:]}")
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def best(command: list[str], repeat: int) -> tuple[float, float]:
    runs = [measure(command) for _ in range(repeat)]
    return min(seconds for seconds, _ in runs), max(rss for _, rss in runs)


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
        reference = best([python, "-c", REFERENCE, str(path)], args.repeat)
        rows = [("libyaml compose (reference)", reference)]
        rows.append(
            (
                "reconciler validate",
                best([python, "-m", "reconciler", "validate", str(path)], args.repeat),
            )
        )
        if args.pure:
            rows.append(
                ("validate, pure Python", best([python, "-c", PURE, "validate", str(path)], 1))
            )
        for label, (seconds, rss) in rows:
            ratio = f"  x{seconds / reference[0]:.2f} time, x{rss / reference[1]:.2f} memory"
            print(f"  {label:<30} {seconds:6.2f} s {rss:7.1f} MB{ratio}")
        seconds, rss = rows[1][1]
        verdict = seconds <= 2 * reference[0] and rss <= 1.5 * reference[1]
        print("target (at most x2 time, x1.5 memory):", "met" if verdict else "NOT met")


if __name__ == "__main__":
    main()

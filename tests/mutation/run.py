"""Mutation testing of the core on a sample of mutants, each run against the tests that
exercise the function it mutates (mutmut's own test selection).

    python -m tests.mutation.run                      # 30 mutants per module, seed 1
    python -m tests.mutation.run --per-module 0       # every mutant (hours on 2 cores)
    python -m tests.mutation.run --module reconciler/planning/order.py --per-module 50

The modules are `[tool.mutmut] only_mutate` in pyproject.toml, the tests
`pytest_add_cli_args_test_selection`. mutmut generates the mutants and records which
tests reach which function (once; `mutants/` keeps it for the next run); this picks a
seeded sample of each module's mutants with mutmut's own generator, runs them with
`mutmut run NAMES`, and prints the score per module and every mutant not killed
(`mutmut show NAME` prints its diff). Exit 1 when fewer than `--fail-under` per cent of
the sample are killed (a module's sample is too small for a per-module bar).
"""

from __future__ import annotations

import argparse
import fnmatch
import random
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

from mutmut.mutation.file_mutation import mutate_file_contents
from mutmut.utils.format_utils import get_mutant_name

ROOT = Path(__file__).resolve().parents[2]
CAUGHT = {"killed", "timeout"}  # a timeout is a mutant the tests notice (an endless loop)


def configured_modules() -> list[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    patterns = config["only_mutate"]
    return sorted(
        path.relative_to(ROOT)
        for path in (ROOT / "reconciler").rglob("*.py")
        if any(fnmatch.fnmatch(str(path.relative_to(ROOT)), p) for p in patterns)
    )


def mutant_names(module: Path) -> list[str]:
    mutated = mutate_file_contents(str(module), (ROOT / module).read_text())
    return [get_mutant_name(module, name) for name in mutated.mutant_names]


def sample(modules: list[Path], per_module: int, seed: int) -> dict[str, Path]:
    chosen: dict[str, Path] = {}
    for module in modules:
        names = mutant_names(module)
        if per_module and len(names) > per_module:
            names = random.Random(f"{seed}:{module}").sample(names, per_module)
        chosen.update(dict.fromkeys(names, module))
    return chosen


STATS = ROOT / "mutants" / "mutmut-stats.json"


def forget_stale_stats() -> None:
    """mutmut keeps which tests reach which function, and on later runs collects it
    again only for new tests: a function added or moved since (a restructuring) would
    be reached by "no tests". So the record goes when any code or test is newer."""
    if not STATS.exists():
        return
    recorded = STATS.stat().st_mtime
    sources = [ROOT / "pyproject.toml", *(ROOT / "reconciler").rglob("*.py")]
    sources += (ROOT / "tests").rglob("*.py")
    if any(path.stat().st_mtime > recorded for path in sources):
        print("code or tests changed since mutmut recorded which tests reach what: again")
        STATS.unlink()


def results() -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status
    return found


def report(chosen: dict[str, Path], status: dict[str, str], fail_under: float) -> int:
    by_module: dict[Path, Counter[str]] = defaultdict(Counter)
    missed: list[tuple[str, str]] = []
    for name, module in sorted(chosen.items()):
        outcome = status.get(name, "not run")
        by_module[module][outcome] += 1
        if outcome not in CAUGHT:
            missed.append((name, outcome))
    print(f"\n{'module':45} {'sampled':>8} {'caught':>7} {'score':>7}")
    total = caught = 0
    for module, counts in sorted(by_module.items()):
        n, k = sum(counts.values()), sum(counts[s] for s in CAUGHT)
        total, caught = total + n, caught + k
        print(f"{module!s:45} {n:8d} {k:7d} {100 * k / n:6.1f}%")
    score = 100 * caught / max(total, 1)
    print(f"{'all':45} {total:8d} {caught:7d} {score:6.1f}%")
    if missed:
        print("\nnot killed (mutmut show NAME):")
        for name, outcome in missed:
            print(f"  {name}: {outcome}")
    if score < fail_under:
        print(f"\nunder {fail_under}% killed")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-module", type=int, default=30, help="0: every mutant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--module", action="append", help="only these (paths); repeatable")
    parser.add_argument("--max-children", type=int, default=2, help="parallel mutants")
    parser.add_argument("--fail-under", type=float, default=95.0, help="of the sample, in %%")
    parser.add_argument("--report-only", action="store_true", help="do not run, only report")
    parser.add_argument(
        "--no-diffs", dest="diffs", action="store_false", help="omit the surviving mutants' diffs"
    )
    args = parser.parse_args(argv)
    modules = configured_modules()
    if args.module:
        wanted = {Path(m) for m in args.module}
        modules = [m for m in modules if m in wanted]
        if not modules:
            parser.error("no such module under [tool.mutmut] only_mutate")
    chosen = sample(modules, args.per_module, args.seed)
    if not args.report_only:
        forget_stale_stats()
        command = [sys.executable, "-m", "mutmut", "run", "--max-children"]
        done = subprocess.run([*command, str(args.max_children), *chosen], cwd=ROOT, check=False)
        if done.returncode != 0:
            # The clean run or the stats failed: no mutant was judged.
            print(f"mutmut run failed (exit {done.returncode}); see its output above")
            return 2
    status = results()
    code = report(chosen, status, args.fail_under)
    if args.diffs:
        show([name for name in sorted(chosen) if status.get(name) not in CAUGHT])
    return code


def show(names: list[str]) -> None:
    """The diff of each mutant, so that the report alone says what to test."""
    for name in names:
        print(f"\n{name}:", flush=True)
        subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=ROOT, check=False)


if __name__ == "__main__":
    sys.exit(main())

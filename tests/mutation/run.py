"""Mutation testing of the package on a seeded sample of mutants, each run against only
the tests that run its line.

    python -m tests.mutation.run                        # 200 mutants, seed 1
    python -m tests.mutation.run --sample 200 --seed 101 --jobs 2
    python -m tests.mutation.run --module reconciler/planning/order.py --sample 0   # all
    python -m tests.mutation.run --seed 101 --report-only   # the last results, no run
    python -m tests.mutation.run --seed 101 --resume        # on with a sample cut short

The modules are every one of `reconciler/` outside `reconciler/sandbox/`. The sample is
drawn over all of them: at least one mutant of each, the rest in proportion to each
module's number of mutants (its size). First the tests run once under coverage.py with
one dynamic context per test (`tests/mutation/contexts.py`), child processes included
(the CLI a test starts records under that test), which says which tests run which line;
that record is kept in `mutants/contexts/` and reused until a file of the package or of
the tests changes. Then each mutant is written into a copy of the tree (one
per job) and pytest runs the tests that ran its line, stopping at the first failure.
A module's top level (run at import) is run against every test that runs that module.

It prints the score per module, every mutant not caught with its diff, and exits 1 when
fewer than `--fail-under` per cent of the sample are caught, or a module has more than
`--max-per-module` survivors. `--summary FILE` appends a Markdown summary naming the
weakest modules (for `$GITHUB_STEP_SUMMARY`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tests.mutation.mutants import Mutant, read_mutants
from tests.mutation.report import report, summary
from tests.mutation.sample import judging_order, sample
from tests.mutation.workers import CAUGHT, Selection, collect_contexts, run_all

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "mutants"

# Every test that runs the package, in-process or in a child process (the end-to-end
# tests, the bad-input table and the CI recipes run the CLI as a user does: the record
# follows those processes, and in a tree with a mutant they import the mutant; see
# tests/mutation/interpreter.py). Left out: what runs no line of the package or cannot
# judge a mutant.
TESTS = ["tests"]
COMPILE_FROM = 30  # mutants: from this many, each copy compiles its test files first
TEST_ARGS = [
    "--ignore=tests/mutation",  # this runner
    # The wheel built and installed, the README's install, its links: not the tree's
    # package (test_commands_doc.py stays: the help of every command and option).
    "--ignore=tests/packaging/test_install.py",
    "--ignore=tests/packaging/test_readme.py",
    "--ignore=tests/packaging/test_links.py",
    "--ignore=tests/architecture",  # reads the source files (sizes, imports)
    "--ignore=tests/sandbox",  # the sandbox, which is not mutated
    "--ignore=tests/ci/test_files.py",  # the recipes' YAML, JavaScript and schemas
    "--ignore=tests/ci/test_comments.py",  # the comment-posting JavaScript, under node
    # It times a burst against a 30 ms margin on a real clock: on a busy machine it
    # meets a 429 that no mutant caused.
    "--deselect=tests/clients/test_ratelimit.py::test_the_client_never_meets_a_429_on_a_real_clock",
]


def modules(root: Path = ROOT) -> list[Path]:
    """Every module of the package outside the sandbox."""
    package = root / "reconciler"
    return sorted(
        path.relative_to(root)
        for path in package.rglob("*.py")
        if "sandbox" not in path.relative_to(package).parts[:1]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=200, help="mutants (0: every one)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--module", action="append", help="only these (paths); repeatable")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once")
    parser.add_argument("--fail-under", type=float, default=95.0, help="of the sample, in %%")
    parser.add_argument("--max-per-module", type=int, default=2, help="survivors a module may have")
    parser.add_argument(
        "--reuse-contexts",
        action="store_true",
        help="use the recorded tests of each line even if code or tests changed since",
    )
    parser.add_argument(
        "--resume", action="store_true", help="run only the mutants the last run did not judge"
    )
    parser.add_argument("--report-only", action="store_true", help="do not run, only report")
    parser.add_argument("--summary", type=Path, help="append a Markdown summary to this file")
    parser.add_argument("--no-diffs", dest="diffs", action="store_false", help="omit diffs")
    args = parser.parse_args(argv)
    chosen_modules = modules()
    if args.module:
        wanted = {Path(m) for m in args.module}
        chosen_modules = [m for m in chosen_modules if m in wanted]
        if not chosen_modules:
            parser.error("no such module of the package outside reconciler/sandbox/")
    every = {m: read_mutants(ROOT, m) for m in chosen_modules}
    chosen = sample(every, args.sample, args.seed)
    results = OUT / f"results-{args.seed}.json"
    if args.report_only:
        status = json.loads(results.read_text()) if results.exists() else {}
    else:
        done = json.loads(results.read_text()) if args.resume and results.exists() else {}
        todo = [m for m in judging_order(chosen, args.seed) if m.name not in done]
        results.parent.mkdir(parents=True, exist_ok=True)
        status = {**done, **_run(todo, args.jobs, args.seed, args.reuse_contexts, results, done)}
        results.write_text(json.dumps(status, indent=1))
    code = report(chosen, status, args.fail_under, args.max_per_module, args.seed)
    if args.summary:
        with args.summary.open("a") as out:
            out.write(summary(chosen, status, args.seed))
    if args.diffs:
        for mutant in chosen:
            if status.get(mutant.name) not in CAUGHT:
                print(f"\n{mutant.name} ({mutant.what}):")
                print(mutant.diff((ROOT / mutant.module).read_bytes()), end="")
    return code


def _run(
    chosen: list[Mutant], jobs: int, seed: int, reuse: bool, results: Path, done: dict[str, str]
) -> dict[str, str]:
    started = time.monotonic()
    contexts = collect_contexts(ROOT, OUT / "contexts", TESTS, TEST_ARGS, reuse, jobs)
    recorded = time.monotonic() - started
    print(f"which tests run which line: {contexts.note} ({recorded:.0f} s)", flush=True)
    selection = Selection.load(ROOT, OUT / "contexts")
    # Compiling the test files a copy needs takes half a minute under load and saves a
    # second or less a mutant: worth it for a sample, not for a handful of mutants.
    compile_tests = len(chosen) >= COMPILE_FROM
    status = run_all(ROOT, OUT, chosen, selection, jobs, seed, results, done, compile_tests)
    judged = time.monotonic() - started - recorded
    print(timings(len(chosen), recorded, judged, jobs), flush=True)
    return status


def timings(mutants: int, recorded: float, judged: float, jobs: int) -> str:
    """The time split, for figures that can be quoted."""
    each = f", {judged * jobs / mutants:.0f} s of a job per mutant" if mutants else ""
    return (
        f"{mutants} mutants in {recorded + judged:.0f} s: recording {recorded:.0f} s, "
        f"judging {judged:.0f} s with {jobs} jobs{each}"
    )


if __name__ == "__main__":
    sys.exit(main())

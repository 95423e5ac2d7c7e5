"""Which tests run which line (recorded once, reused while nothing changed), and the
mutants run against them, each in a copy of the tree of its own."""

from __future__ import annotations

import base64
import compileall
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from queue import Queue

import coverage

from tests.mutation.contexts import IMPORT, WORKERS
from tests.mutation.imports import Imports, module_name
from tests.mutation.interpreter import imports_from, make_interpreter
from tests.mutation.mutants import Mutant

CAUGHT = {"killed", "timeout"}  # a timeout is a mutant the tests notice (an endless loop)
_LEFT_OUT = {".git", ".venv", "mutants", "build", "dist", ".mypy_cache", ".ruff_cache"}
_LEFT_OUT |= {".pytest_cache", ".hypothesis", ".reconciler"}


def fingerprint(root: Path) -> str:
    """Of everything the record depends on: the package, the tests, the configuration."""
    digest = hashlib.sha256()
    files = [root / "pyproject.toml", *(root / "reconciler").rglob("*.py")]
    files += (root / "tests").rglob("*.py")
    for path in sorted(files):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass
class Collected:
    note: str


def collect_contexts(
    root: Path, where: Path, tests: list[str], args: list[str], reuse: bool = False, jobs: int = 1
) -> Collected:
    """The record of which test runs which line, made now (the tests shared among `jobs`
    processes) unless one made from the same files is there."""
    stamp = where / "fingerprint"
    wanted = fingerprint(root)
    recorded = (where / "coverage.sqlite").exists() and (where / "failed.json").exists()
    if recorded and stamp.exists() and stamp.read_text() == wanted:
        return Collected("recorded before, reused")
    if recorded and reuse:
        return Collected("recorded before, reused although code or tests changed since")
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    if jobs > 1:
        _record_shared(root, where, tests, args, [f"gw{n}" for n in range(jobs)])
    else:
        python = _recorder(root, where / "python", where)
        command = [str(python), "-m", "pytest", *_PLUGIN, *args, *tests]
        env = {**_outside_xdist(), "RECONCILER_CONTEXTS": str(where)}
        subprocess.run(command, cwd=root, env=env, check=False, stdout=subprocess.DEVNULL)
        shutil.rmtree(where / "python", ignore_errors=True)
    if not (where / "coverage.sqlite").exists():
        raise SystemExit("the tests did not run under coverage: see pytest's output")
    stamp.write_text(wanted)
    return Collected("recorded now" if jobs <= 1 else f"recorded now by {jobs} processes")


_PLUGIN = ["-p", "tests.mutation.contexts", "-q", "-p", "no:cacheprovider"]


def _outside_xdist() -> dict[str, str]:
    """This environment without pytest-xdist's worker variables: the recording pytest
    started from a worker (the runner's own tests under `-n`) would take itself for
    that worker and record into its folder (`contexts.py` reads PYTEST_XDIST_WORKER)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}


def _recorder(root: Path, where: Path, out: Path) -> Path:
    """An interpreter whose every process (a test's children too) imports the package
    from `root` and records the lines it runs, under the test that started it, in `out`."""
    package = root / "reconciler"
    record = {"out": str(out), "source": [str(package)], "omit": [str(package / "sandbox" / "*")]}
    return make_interpreter(where, root, record)


def _record_shared(
    root: Path, where: Path, tests: list[str], args: list[str], ids: list[str]
) -> None:
    """The tests shared among pytest-xdist's workers, each under a recording interpreter of
    its own (`--tx popen//id=gw0//python=...`) that writes into `where/<id>`: the file
    naming the test that runs now, which the children of that worker's tests read, is
    that worker's. `--dist loadfile` keeps each test file in one worker, in its order, as
    a serial run has it (a module's fixtures set up once, under the same test). The
    records are combined into `where` as one serial run writes it."""
    tx: list[str] = []
    for worker in ids:
        python = _recorder(root, where / f"python-{worker}", where / worker)
        tx += ["--tx", f"popen//id={worker}//python={python}"]
    command = [sys.executable, "-m", "pytest", *_PLUGIN, "--dist", "loadfile", *tx, *args, *tests]
    env = {**_outside_xdist(), "RECONCILER_CONTEXTS": str(where), WORKERS: "1"}
    subprocess.run(command, cwd=root, env=env, check=False, stdout=subprocess.DEVNULL)
    for worker in ids:
        shutil.rmtree(where / f"python-{worker}", ignore_errors=True)
    combine_records(where, [where / worker for worker in ids])


def combine_records(where: Path, parts: list[Path]) -> None:
    """The records of `parts` (each a folder as one recording pytest writes it) as one in
    `where`: the lines' contexts, the durations, the failed tests, the tests that started
    children."""
    missing = [p.name for p in parts if not (p / "coverage.sqlite").exists()]
    if missing:
        raise SystemExit(f"no record from {', '.join(missing)}: see pytest's output")
    combined = coverage.CoverageData(basename=str(where / "coverage.sqlite"))
    durations: dict[str, float] = {}
    failed: set[str] = set()
    children: list[str] = []
    for part in parts:
        data = coverage.CoverageData(basename=str(part / "coverage.sqlite"))
        data.read()
        combined.update(data)
        durations.update(json.loads((part / "durations.json").read_text()))
        failed |= set(json.loads((part / "failed.json").read_text()))
        if (part / "children").exists():
            children.append((part / "children").read_text())
    combined.write()
    (where / "durations.json").write_text(json.dumps(durations, indent=0))
    (where / "failed.json").write_text(json.dumps(sorted(failed)))
    (where / "children").write_text("".join(children))
    for part in parts:
        shutil.rmtree(part, ignore_errors=True)


@dataclass
class Selection:
    """The tests that run each line of each module (relative paths)."""

    lines: dict[Path, dict[int, set[str]]]
    durations: dict[str, float] = field(default_factory=dict)
    # The tests that started a process that recorded (they judge a module's top level
    # only when one of their processes ran the module).
    spawning: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)  # under the record: they judge nothing
    # Which modules a test's process may import (None: any module, in any test).
    imports: Imports | None = None
    _ran: dict[str, set[str]] | None = None  # each test's modules it ran a line of

    @classmethod
    def load(cls, root: Path, where: Path) -> Selection:
        data = coverage.CoverageData(basename=str(where / "coverage.sqlite"))
        data.read()
        failed = set(json.loads((where / "failed.json").read_text()))
        lines: dict[Path, dict[int, set[str]]] = {}
        for measured in data.measured_files():
            path = Path(measured).resolve()
            if not path.is_relative_to(root):
                continue
            by_line = data.contexts_by_lineno(measured)
            lines[path.relative_to(root)] = {
                n: {c for c in found if c and c not in failed} for n, found in by_line.items()
            }
        durations = json.loads((where / "durations.json").read_text())
        children = where / "children"
        spawning = set(children.read_text().split("\n")) - {""} if children.exists() else set()
        return cls(lines, durations, spawning, failed, Imports.scan(root))

    def tests_for(self, mutant: Mutant) -> list[str]:
        by_line = self.lines.get(mutant.module, {})
        found: set[str] = set()
        for line in range(mutant.line, mutant.end_line + 1):
            found |= by_line.get(line, set())
        if not found and mutant.statement_line:  # folded into its statement at compile time
            found = set(by_line.get(mutant.statement_line, set()))
        fastest = lambda t: (self.durations.get(t, 0.0), t)  # noqa: E731
        if IMPORT not in found and not (mutant.at_import and found):
            return sorted(found, key=fastest)  # run by tests, or their children (__main__.py)
        # The module's top level (a class body, a default, an option's help), run at import:
        # first the tests that ran the line when their process imported the module later
        # than pytest's collection (the command modules the CLI imports when it runs one,
        # a kind's exporter), then every other test that runs the module in-process, then
        # every other in-process test whose process may import the module (the schema
        # test uses the models' definitions without running a line of their module; see
        # imports.py). Of the tests that start children, only the first kind: every child
        # imports nearly every module, and a surviving top-level mutant would run them all
        # (an hour); a mutant only a child would notice is counted as not caught.
        ran = set() if IMPORT in found else found  # imported at collection: by every test
        first = set().union(*by_line.values()) - {IMPORT} - self.spawning - ran
        rest = set(self.durations) - ran - first - self.spawning - self.failed
        if self.imports is not None:
            importers = self.imports.importers(module_name(mutant.module))
            rest = {t for t in rest if not importers.isdisjoint(self._roots(t))}
        return [*sorted(ran, key=fastest), *sorted(first, key=fastest), *sorted(rest, key=fastest)]

    def _roots(self, test: str) -> set[str]:
        """The modules a test's process imports or runs: its file, the conftest.py files
        above it, the modules it ran a line of."""
        if self._ran is None:
            self._ran = {}
            for module, by_line in self.lines.items():
                name = module_name(module)
                for context in set().union(*by_line.values()):
                    self._ran.setdefault(context, set()).add(name)
        file = Path(test.split("::")[0])
        conftests = [module_name(folder / "conftest.py") for folder in file.parents]
        return {module_name(file), *conftests, *self._ran.get(test, set())}


def _copy(root: Path, to: Path, python: Path, tests: list[str] | None = None) -> Path:
    """A copy of the tree in `to`, and the interpreter in `python` whose every process
    imports the package from it. With `tests` (pytest's arguments), their files are
    compiled too, as pytest rewrites them (its asserts), so that no mutant's pytest
    rewrites and compiles them again."""
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(root, to, ignore=lambda _d, names: [n for n in names if n in _LEFT_OUT])
    compileall.compile_dir(to / "reconciler", quiet=1)  # never written again from here
    if tests:  # the only pytest of the copy that writes bytecode
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly"]
        command += ["-p", "no:cacheprovider", *tests]
        subprocess.run(command, cwd=to, env=env, check=False, capture_output=True)
    made = make_interpreter(python, to)
    for cwd in (to, python):  # the tree (the fork server), and any other place (a child)
        found = imports_from(made, cwd)
        if not found.is_relative_to(to.resolve()):
            raise SystemExit(f"a copy of the tree imports the package from {found}")
    return made


def bound(recorded: float) -> float:
    """How long one test may take under a mutant (setup, call and teardown): five times
    what it took in the record, plus a minute for a loaded machine. A mutant that makes a
    test wait for ever (a gate never reopened, a socket never read) is then judged a
    timeout in a minute or two; the whole selection's timeout alone came after 120 s
    plus five times all its tests' time, for a line run by 400 tests most of an hour."""
    return 60 + 5 * recorded


class Server:
    """A fork server (tests/mutation/forkserver.py) in one tree: it runs pytest for one
    mutant after another."""

    def __init__(self, tree: Path, python: Path | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if k != "RECONCILER_CONTEXTS"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.tree = tree
        self.process = subprocess.Popen(
            [str(python or sys.executable), str(Path(__file__).with_name("forkserver.py"))],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def judge(
        self,
        mutant: Mutant,
        tests: list[str],
        timeout: float,
        bounds: dict[str, float] | None = None,
    ) -> str:
        """The mutant's outcome under `tests`: ended at `timeout`, or when one test runs
        past its own of `bounds` (seconds by node id), it is a timeout."""
        if not tests:
            return "no tests"
        args = ["-x", "-q", "--no-header", "-p", "no:cacheprovider", "-p", "no:randomly"]
        source = mutant.apply((self.tree / mutant.module).read_bytes())
        request = {
            "module": str(mutant.module),
            "source": base64.b64encode(source).decode(),
            "args": [*args, "-o", "addopts=--strict-markers", *tests],
            "timeout": timeout,
            "bounds": bounds or {},
        }
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        code = json.loads(self.process.stdout.readline())["code"]
        if code is None:
            return "timeout"
        # 2: a test module no longer imports; 4: neither does a conftest, or a test's id
        # (made from what the package returns) is no longer there: caught all the same.
        outcomes = {0: "survived", 1: "killed", 2: "killed", 4: "killed", 5: "no tests"}
        return outcomes.get(code, f"error {code}")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def run_all(
    root: Path,
    out: Path,
    chosen: list[Mutant],
    selection: Selection,
    jobs: int,
    seed: int,
    results: Path | None = None,
    done: dict[str, str] | None = None,
    compile_tests: bool = False,
) -> dict[str, str]:
    """Each mutant's outcome by name; written to `results` after each (a run cut short
    keeps what it judged, and `--resume` goes on from there). With `compile_tests`, each
    copy of the tree has the test files the mutants need compiled first."""
    started = time.monotonic()
    chosen_tests = {mutant.name: selection.tests_for(mutant) for mutant in chosen}
    files = sorted({t.split("::")[0] for found in chosen_tests.values() for t in found})
    servers: Queue[Server] = Queue()
    for n in range(jobs):
        tree = out / f"tree-{seed}-{n}"
        python = _copy(root, tree, out / f"python-{seed}-{n}", files if compile_tests else None)
        servers.put(Server(tree, python))
    print(f"{jobs} copies of the tree ready ({time.monotonic() - started:.0f} s)", flush=True)
    status: dict[str, str] = {}
    saved = dict(done or {})  # judged by an earlier run of the same sample
    lock = threading.Lock()

    def one(mutant: Mutant) -> None:
        tests = chosen_tests[mutant.name]
        timeout = 120 + 5 * sum(selection.durations.get(t, 1.0) for t in tests)
        bounds = {t: bound(selection.durations.get(t, 1.0)) for t in tests}
        server = servers.get()
        started = time.monotonic()
        try:
            outcome = server.judge(mutant, tests, timeout, bounds)
        finally:
            servers.put(server)
        took = time.monotonic() - started
        with lock:
            status[mutant.name] = saved[mutant.name] = outcome
            if results is not None:
                results.write_text(json.dumps(saved, indent=1))
            done = f"[{len(status)}/{len(chosen)}] {mutant.name} ({mutant.what})"
            print(f"{done}: {outcome}, {len(tests)} tests, {took:.1f} s", flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, chosen))
    for n in range(jobs):
        servers.get().close()
        shutil.rmtree(out / f"tree-{seed}-{n}", ignore_errors=True)
        shutil.rmtree(out / f"python-{seed}-{n}", ignore_errors=True)
    return status

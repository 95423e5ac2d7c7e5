"""The verdict on a sample: the score per module, the mutants not caught, and a Markdown
summary naming the weakest modules."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from tests.mutation.mutants import Mutant
from tests.mutation.workers import CAUGHT

UNTESTED = "no tests"  # no test runs the line (in-process or in a child)


def tally(chosen: list[Mutant], status: dict[str, str]) -> dict[Path, Counter[str]]:
    by_module: dict[Path, Counter[str]] = defaultdict(Counter)
    for mutant in chosen:
        by_module[mutant.module][status.get(mutant.name, "not run")] += 1
    return by_module


def _caught(counts: Counter[str]) -> int:
    return sum(counts[s] for s in CAUGHT)


def report(
    chosen: list[Mutant], status: dict[str, str], fail_under: float, max_per_module: int, seed: int
) -> int:
    by_module = tally(chosen, status)
    print(f"\nseed {seed}\n{'module':52} {'sampled':>7} {'caught':>6} {'score':>7} untested")
    for module, counts in sorted(by_module.items()):
        n, k = sum(counts.values()), _caught(counts)
        print(f"{module!s:52} {n:7d} {k:6d} {100 * k / n:6.1f}% {counts[UNTESTED]:8d}")
    total, caught = len(chosen), sum(_caught(c) for c in by_module.values())
    score = 100 * caught / max(total, 1)
    untested = sum(c[UNTESTED] for c in by_module.values())
    print(f"{'all':52} {total:7d} {caught:6d} {score:6.1f}% {untested:8d}")
    judged = total - untested
    if untested:
        share = 100 * caught / max(judged, 1)
        print(f"of the {judged} mutants some test runs: {caught} caught ({share:.1f}%)")
    missed = [(m, status.get(m.name, "not run")) for m in chosen]
    missed = [(m, s) for m, s in missed if s not in CAUGHT]
    if missed:
        print("\nnot caught:")
        for mutant, outcome in missed:
            print(f"  {mutant.name} ({mutant.what}): {outcome}")
    crowded = [m for m, c in by_module.items() if sum(c.values()) - _caught(c) > max_per_module]
    code = 0
    if score < fail_under:
        print(f"\nunder {fail_under}% caught")
        code = 1
    for module in sorted(crowded):
        print(f"more than {max_per_module} survivors in {module}")
        code = 1
    return code


def summary(chosen: list[Mutant], status: dict[str, str], seed: int, weakest: int = 5) -> str:
    by_module = tally(chosen, status)
    total, caught = len(chosen), sum(_caught(c) for c in by_module.values())
    lines = [
        f"## Mutation testing, seed {seed}",
        "",
        f"{caught} of {total} mutants caught ({100 * caught / max(total, 1):.1f} %).",
        "",
    ]
    ranked = sorted(
        (m for m, c in by_module.items() if _caught(c) < sum(c.values())),
        key=lambda m: (_caught(by_module[m]) / sum(by_module[m].values()), str(m)),
    )[:weakest]
    if not ranked:
        return "\n".join([*lines, "No module has a mutant that survived.", "", ""])
    lines += ["Weakest modules:", "", "| module | caught | survivors |", "| --- | ---: | --- |"]
    for module in ranked:
        counts = by_module[module]
        names = [
            f"`{m.line}` {m.what}"
            for m in chosen
            if m.module == module and status.get(m.name, "not run") not in CAUGHT
        ]
        cell = f"{_caught(counts)} of {sum(counts.values())}"
        lines.append(f"| `{module}` | {cell} | {', '.join(names)} |")
    return "\n".join([*lines, "", ""])

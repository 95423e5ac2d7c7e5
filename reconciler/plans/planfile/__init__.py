"""The saved plan file (`plan --out`, `apply --plan`), written, read and validated in this
package and nowhere else (like Terraform's `internal/plans/planfile`); `shape.py` holds the
reader of the plan's JSON itself.

A saved plan is a reviewed intent, not a script. The file is the plan's JSON (DESIGN §4,
`Plan.to_dict()`) plus `made_from`: a digest of the manifests after variables, the flags
that shaped the plan (`--prune`, `--target`, `--exclude`), the var files (each its path as
given and the sha256 of its content) and the live digest.

A saved plan names nothing that is read: var files come from `apply`'s own command line
and are compared by digest with the recorded ones (`var_file_mismatch`). `made_from`
carries a `version` (2 since var files have digests); a file of version 1 that names var
files is refused (they were recorded by path only), one that names none reads as before.
`apply --plan` plans again with those flags and executes the fresh plan only when its
changes and operations equal the saved ones (`differences`): nothing read from the file
is ever sent, so an edited file can only be refused.

Reading validates the whole shape and names every problem by its JSON path
(`plan.json: changes[3].action: ...`), never half-reading a file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler.errors import PlanFileError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.files import FileRefused, read_regular_file
from reconciler.masking import write_text
from reconciler.plans import Plan
from reconciler.plans.planfile.shape import PlanReader, type_name
from reconciler.plans.text import clean, shorten

MADE_FROM = "made_from"
_MADE_FROM_FIELDS = {"manifests_digest", "prune", "targets", "excludes", "var_files"}
MADE_FROM_VERSION = 2  # 2: var files recorded with their digests
MAX_DIFFERENCES = 20  # lines of difference shown when a saved plan is refused


def manifests_digest(desired: DesiredState) -> str:
    """sha256 of the merged manifests after variables: what the plan was made from."""
    blob = desired.manifest.model_dump_json(exclude_none=False)
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class VarFile:
    """A var file a plan was made with: the path as given (shown only, never read back)
    and the sha256 of its content."""

    path: str
    digest: str

    @classmethod
    def of(cls, path: Path) -> VarFile | None:
        """The var file at `path`, or None when it cannot be read (loading says why)."""
        try:
            content = read_regular_file(path)
        except FileRefused:
            return None
        return cls(str(path), "sha256:" + hashlib.sha256(content).hexdigest())

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "digest": self.digest}


def var_file_mismatch(recorded: tuple[VarFile, ...], given: tuple[Path, ...]) -> str | None:
    """Why the var files given to `apply --plan` are not those the plan was made with
    (None: the same content, in the same order; a file that cannot be read is left to
    loading to report)."""
    if len(given) != len(recorded):
        names = ", ".join(_shown(v) for v in recorded) or "no --var-file"
        return (
            f"the saved plan was made with {names}; {len(given)} --var-file given: give the "
            "same var files (a saved plan names them, never reads them), or plan again"
        )
    for path, then in zip(given, recorded, strict=True):
        now = VarFile.of(path)
        if now is not None and now.digest != then.digest:
            return (
                f"--var-file {path}: its content differs from that of the var file the saved "
                f"plan was made with ({_shown(then)}): give the same file, or plan again"
            )
    return None


def _shown(var_file: VarFile) -> str:
    return f"--var-file {clean(shorten(var_file.path, 300))} ({var_file.digest[:15]}...)"


@dataclass(frozen=True)
class PlanInputs:
    """What shaped a plan besides the live state; `apply --plan` takes these flags from
    the file. Selectors are kept as they were written on the command line; var files are
    compared by digest with those `apply` is given (`var_file_mismatch`)."""

    manifests_digest: str
    prune: bool = False
    targets: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    var_files: tuple[VarFile, ...] = ()
    # The project environment (`--env`) the plan was made for; None without one.
    environment: str | None = None
    # The commit the manifests were committed at, clean (docs/drift.md): what `apply --plan`
    # records as applied; None when unknown (outside git, uncommitted manifests).
    commit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "version": MADE_FROM_VERSION,
            "manifests_digest": self.manifests_digest,
            "prune": self.prune,
            "targets": list(self.targets),
            "excludes": list(self.excludes),
            "var_files": [v.to_dict() for v in self.var_files],
        }
        if self.environment is not None:  # absent without --env: files as before
            found["environment"] = self.environment
        if self.commit is not None:
            found["commit"] = self.commit
        return found

    def flags(self) -> str:
        """The flags as a command line would give them, for messages."""
        words = ["--prune"] if self.prune else []
        words += [f"--target {t}" for t in self.targets]
        words += [f"--exclude {e}" for e in self.excludes]
        words += [f"--var-file {_printable(v.path)}" for v in self.var_files]
        return " ".join(words) or "(none)"


@dataclass(frozen=True)
class SavedPlan:
    """A plan file read back: the plan (for display), what it was made from, and its
    changes exactly as written, which the fresh plan must equal to be executed."""

    plan: Plan
    inputs: PlanInputs
    changes: list[Any]


def format_plan_file(plan: Plan, inputs: PlanInputs, data: dict[str, Any] | None = None) -> str:
    """`data`: the plan's `to_dict()` when the caller has it (with each change's cause)."""
    data = dict(plan.to_dict() if data is None else data)
    data[MADE_FROM] = {**inputs.to_dict(), "live_digest": plan.live_digest}
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_plan_file(
    path: Path, plan: Plan, inputs: PlanInputs, data: dict[str, Any] | None = None
) -> None:
    """Written whole or not at all: a half-written plan file must never be left behind.
    A credential pasted into a value is masked, as in every output (the fresh plan will
    then differ from the file: such a plan is refused rather than leaked)."""
    write_text(path, format_plan_file(plan, inputs, data))


def read_plan_file(path: Path) -> SavedPlan:
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise PlanFileError([f"{path}: cannot be read: {exc.strerror}"]) from exc
    return saved_plan_from_json(content, source=str(path))


def saved_plan_from_json(text: str | bytes, *, source: str = "plan") -> SavedPlan:
    data = _load_json(text, source)
    reader = PlanReader(source, extra={MADE_FROM})
    plan = reader.plan(data)  # a file that is no object is refused by it already
    if not isinstance(data, dict) or MADE_FROM not in data:
        if not reader.problems:
            reader.problems.append(
                f"{source}: {MADE_FROM}: missing: this file was not saved by `plan --out` of "
                "this version; plan again with --out"
            )
        raise PlanFileError(reader.problems)
    inputs = _read_inputs(reader, data[MADE_FROM])
    if reader.problems:
        raise PlanFileError(reader.problems)
    if plan.live_digest != data[MADE_FROM]["live_digest"]:  # both read as text above
        raise PlanFileError([f"{source}: {MADE_FROM}.live_digest: differs from live_digest"])
    # The asserted operations are executed too, so they are part of what was reviewed. A
    # change's `cause` (drift, pending) says why it is there, and its `rename_hints` advise
    # the reviewer (an unlisted object renamed since is no reason to refuse): neither says
    # what it does, so neither is compared.
    changes = [_compared(c) for c in data["changes"]]
    return SavedPlan(plan, inputs, [*changes, *data.get("asserted", [])])


_NOT_COMPARED = ("cause", "rename_hints")


def _compared(change: Any) -> Any:
    """A change as `apply --plan` compares it: without what only describes it."""
    if not isinstance(change, dict):
        return change
    return {k: v for k, v in change.items() if k not in _NOT_COMPARED}


def plan_from_json(text: str | bytes, *, source: str = "plan") -> Plan:
    """The plan in a plan JSON (`plan --format json` or a saved file); `source` (the file
    name) starts every problem."""
    return plan_from_dict(_load_json(text, source), source=source)


def plan_from_dict(data: Any, *, source: str = "plan") -> Plan:
    """The `Plan` whose `to_dict()` is `data`; raises `PlanFileError` listing every
    problem (`source: changes[3].action: ...`) when `data` is not a plan of this format."""
    reader = PlanReader(source, extra={MADE_FROM})
    plan = reader.plan(data)
    if reader.problems:
        raise PlanFileError(reader.problems)
    return plan


def differences(saved: SavedPlan, fresh: Plan) -> list[str]:
    """How the freshly derived changes differ from the saved ones (empty: identical), as
    lines naming the address and the JSON path of each difference."""
    now = _as_json([_compared(c.to_dict()) for c in fresh.to_apply])
    then = saved.changes
    lines: list[str] = []
    then_by = {_address(c): c for c in then}
    now_by = {_address(c): c for c in now}
    for address in then_by.keys() - now_by.keys():
        lines.append(f"{address}: in the saved plan, not in a plan made now")
    for address in now_by.keys() - then_by.keys():
        lines.append(f"{address}: in a plan made now, not in the saved plan")
    for address in then_by.keys() & now_by.keys():
        for path in _paths_differing(then_by[address], now_by[address], ""):
            lines.append(f"{address}: {path}: differs from a plan made now")
    if not lines and then != now:
        lines.append("the changes are the same, in another order or repeated")
    lines.sort()
    if len(lines) > MAX_DIFFERENCES:
        lines[MAX_DIFFERENCES:] = [f"... and {len(lines) - MAX_DIFFERENCES} more"]
    return lines


# -- helpers --------------------------------------------------------------------------------


def _load_json(text: str | bytes, source: str) -> Any:
    try:
        return json.loads(text)
    except UnicodeDecodeError as exc:
        raise PlanFileError([f"{source}: not UTF-8 text: {exc.reason}"]) from exc
    except json.JSONDecodeError as exc:
        raise PlanFileError([f"{source}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}"]) from exc
    except RecursionError:  # arrays or objects nested deeper than the parser goes
        raise PlanFileError([f"{source}: nested too deeply to be a plan file"]) from None


def _read_inputs(reader: PlanReader, data: Any) -> PlanInputs:
    fields = reader.object(
        data,
        MADE_FROM,
        required=_MADE_FROM_FIELDS | {"live_digest"},
        optional={"version", "environment", "commit"},
    )

    def texts(name: str) -> tuple[str, ...]:
        return tuple(reader.items(fields.get(name, []), f"{MADE_FROM}.{name}", reader.string))

    digest = reader.text(fields, "manifests_digest", MADE_FROM)
    if "manifests_digest" in fields and not digest.startswith("sha256:"):
        reader.problem(f"{MADE_FROM}.manifests_digest", "expected a sha256: digest")
    reader.text(fields, "live_digest", MADE_FROM)
    return PlanInputs(
        manifests_digest=digest,
        prune=reader.flag(fields, "prune", MADE_FROM, default=False),
        targets=texts("targets"),
        excludes=texts("excludes"),
        var_files=_read_var_files(reader, fields),
        environment=reader.string(fields["environment"], f"{MADE_FROM}.environment")
        if "environment" in fields
        else None,
        commit=reader.string(fields["commit"], f"{MADE_FROM}.commit")
        if "commit" in fields
        else None,
    )


def _read_var_files(reader: PlanReader, fields: dict[str, Any]) -> tuple[VarFile, ...]:
    where = f"{MADE_FROM}.var_files"
    version = fields.get("version", 1)
    if version not in (1, MADE_FROM_VERSION) or isinstance(version, bool):
        shown = _printable(repr(version))
        reader.problem(f"{MADE_FROM}.version", f"{shown} is not a version this reads (1, 2)")
        return ()
    if version == 1:  # paths only: what they held then is unknown
        if reader.items(fields.get("var_files", []), where, reader.string):
            reader.problem(
                where,
                "var files recorded by path only (a plan saved by an earlier version): "
                "plan again with --out",
            )
        return ()

    def var_file(data: Any, at: str) -> VarFile:
        entry = reader.object(data, at, required={"path", "digest"})
        digest = reader.text(entry, "digest", at)
        if "digest" in entry and not digest.startswith("sha256:"):
            reader.problem(f"{at}.digest", "expected a sha256: digest")
        return VarFile(reader.text(entry, "path", at), digest)

    return tuple(reader.items(fields.get("var_files", []), where, var_file))


def _as_json(value: Any) -> Any:
    """`value` as it reads back from a file: tuples become lists, keys strings (a round
    trip, so neither escaping nor NaN, which no plan file holds, changes what it gives)."""
    return json.loads(json.dumps(value))


def _address(change: Any) -> str:
    text = change.get("address") if isinstance(change, dict) else None
    return _printable(text) if isinstance(text, str) else f"(a change that is {type_name(change)})"


def _printable(text: str) -> str:
    return clean(shorten(text, 120))


def _paths_differing(then: Any, now: Any, path: str) -> list[str]:
    if isinstance(then, dict) and isinstance(now, dict):
        found: list[str] = []
        for key in sorted(then.keys() | now.keys()):
            inner = f"{path}.{key}" if path else str(key)
            if key not in then or key not in now:
                found.append(_printable(inner))
            else:
                found += _paths_differing(then[key], now[key], inner)
        return found
    if isinstance(then, list) and isinstance(now, list) and len(then) == len(now):
        found = []
        for index, item in enumerate(then):  # as long as `now`, checked above
            found += _paths_differing(item, now[index], f"{path}[{index}]")
        return found
    if then == now and type(then) is type(now):
        return []
    # Never at the top: both are changes (dicts) with the same address, and a fresh
    # change has no key "" that could lead back to an empty path.
    return [_printable(path)]

"""The run summary of several environments (one row each: changes by action, errors, the
brake's verdict, duration) as text, Markdown and JSON (`--report-file`), and the exit
code across them: any error 1, else changes with `--detailed-exitcode` 2, else 0."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from reconciler.fleet.plans import EnvironmentRun
from reconciler.plans import Action

ACTIONS = [action.value for action in Action]


def row(run: EnvironmentRun) -> dict[str, Any]:
    plan = run.plan
    summary = plan.summary if plan is not None else {a: 0 for a in ACTIONS}
    errors = len(plan.errors) if plan is not None else 0
    if run.error is not None:
        status, errors = "error", errors + 1
    elif errors:
        status = "error"
    else:
        status = "changes" if plan is not None and plan.has_changes else "no changes"
    brake = plan.brake if plan is not None else None
    return {
        "environment": run.name,
        "status": status,
        "changes": {action: summary[action] for action in ACTIONS},
        "errors": errors,
        "error": run.error,
        "brake": None if brake is None else ("holds" if brake.holds else "ok"),
        "brake_reasons": [] if brake is None else list(brake.held),
        "seconds": round(run.seconds, 3),
    }


def exit_code(runs: Sequence[EnvironmentRun], detailed: bool, fail_on: str = "any") -> int:
    """1 for an environment's error; with `detailed`, 2 when an environment has changes
    `--fail-on` counts (docs/drift.md)."""
    from reconciler.applied.labels import fails

    rows = [row(run) for run in runs]
    if any(r["status"] == "error" for r in rows):
        return 1
    counted = [
        run
        for run, r in zip(runs, rows, strict=True)
        if r["status"] == "changes"
        and run.plan is not None
        and fails((c.address for c in run.plan.changes), run.causes, fail_on)
    ]
    return 2 if detailed and counted else 0


def report_json(runs: Sequence[EnvironmentRun], command: str, applied: Sequence[Any] = ()) -> str:
    """The run summary; after `apply`, each environment applied (`rollout.Applied`) also
    has its wave, its result (applied, failed, not attempted, nothing to apply) and error."""
    rows = [row(run) for run in runs]
    results = {item.name: item for item in applied}
    for r in rows:
        item = results.get(r["environment"])
        if item is not None:
            r["apply"] = {
                "wave": item.wave.number,
                "result": item.result.value,
                "error": item.error,
                "seconds": round(item.seconds, 3),
            }
    totals = {action: sum(r["changes"][action] for r in rows) for action in ACTIONS}
    document = {
        "format_version": 1,
        "command": command,
        "environments": rows,
        "totals": {
            "environments": len(rows),
            "with_errors": sum(1 for r in rows if r["status"] == "error"),
            "with_changes": sum(1 for r in rows if r["status"] == "changes"),
            "changes": totals,
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _cells(r: dict[str, Any]) -> list[str]:
    return [
        r["environment"],
        *(str(r["changes"][action]) for action in ACTIONS),
        str(r["errors"]),
        r["brake"] or "-",
        f"{r['seconds']:.1f}s",
    ]


HEADERS = ["environment", *ACTIONS, "errors", "brake", "duration"]


def table(header: list[str], rows: list[list[str]], left: set[int]) -> list[str]:
    """The rows under the header and a rule, in columns: those in `left` aligned left,
    the others right."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        aligned = [c.ljust(w) if i in left else c.rjust(w)
                   for i, (c, w) in enumerate(zip(cells, widths, strict=True))]  # fmt: skip
        return "  ".join(aligned).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def summary_text(runs: Sequence[EnvironmentRun]) -> str:
    rows = [_cells(row(run)) for run in runs]
    return "\n".join([*table(HEADERS, rows, {0}), _verdict(runs)]) + "\n"


def summary_markdown(runs: Sequence[EnvironmentRun]) -> str:
    rows = [_cells(row(run)) for run in runs]
    lines = [
        "### Summary",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "|".join([":---", *["---:"] * (len(HEADERS) - 1)]) + "|",
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join([*lines, "", _verdict(runs)]) + "\n"


def _verdict(runs: Sequence[EnvironmentRun]) -> str:
    rows = [row(run) for run in runs]
    failed = [r["environment"] for r in rows if r["status"] == "error"]
    changed = [r["environment"] for r in rows if r["status"] == "changes"]
    parts = [f"{len(rows)} environment(s)"]
    parts.append(f"{len(changed)} with changes" + (f" ({', '.join(changed)})" if changed else ""))
    parts.append(f"{len(failed)} with errors" + (f" ({', '.join(failed)})" if failed else ""))
    return ", ".join(parts) + "."

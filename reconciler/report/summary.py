"""The job summary (GitHub's `$GITHUB_STEP_SUMMARY`, Markdown): per environment the counts
per kind and action, the safety brake's verdict and the errors, and where the full plan
is. GitHub takes at most 1 MiB per step's summary: what would pass it is left out, with a
line saying so.

GitHub renders the summary's Markdown with its HTML, so every text taken from the plan (an
error's message, a name, a reason) is written as text: `<`, `>` and `&` as entities (a
`<!--` in an error must not hide the rest of the summary), and a code span fenced by more
backticks than it holds."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from reconciler.masking import mask
from reconciler.report.digest import (
    ACTIONS,
    Planned,
    counts_by_kind,
    describe_counts,
    plan_counts,
    status,
)

SUMMARY_LIMIT = 1024 * 1024  # bytes GitHub accepts in one step's summary
MAX_ERRORS_LISTED = 50
_CUT = (
    "\n\n_The rest of this summary is left out (GitHub's limit for a job summary); "
    "the full plan has it._\n"
)
_HEADLINE = {
    "error": ":x: errors: nothing may be applied",
    "drift": ":warning: changes",
    "clean": ":white_check_mark: no changes: live matches the manifests",
}


def _cell(text: str) -> str:
    """Text in a line or a table cell of the summary: no HTML, no cell boundary."""
    return escape(mask(text), quote=False).replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """Text as a code span: fenced by one backtick more than its longest run of them
    (CommonMark), so that no backtick in it ends the span early."""
    shown = mask(text).replace("|", "\\|").replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", shown)), default=0) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def _environment(planned: Planned, several: bool) -> list[str]:
    heading = f"### {_cell(planned.label)}: " if several else "### "
    found = status(planned)
    # "no changes" says it already: the counts would say it again.
    said = "" if found == "clean" else f" ({describe_counts(plan_counts(planned))})"
    lines = [heading + _HEADLINE[found] + said, ""]
    table = {k: c for k, c in counts_by_kind(planned).items() if sum(c.values())}
    if table:
        lines += ["| kind | " + " | ".join(ACTIONS) + " |", "|---" * (len(ACTIONS) + 1) + "|"]
        for kind, counts in table.items():
            row = " | ".join(str(counts[a]) if counts[a] else "" for a in ACTIONS)
            lines.append(f"| {_code(kind)} | {row} |")
        lines.append("")
    if planned.brake_holds:
        reasons = "; ".join(_cell(r) for r in planned.brake_reasons)
        lines += [f"**Safety brake holds**: apply refuses this plan without `--force`: {reasons}"]
        lines.append("")
    elif planned.judged:
        lines += ["Safety brake: passes.", ""]
    errors = planned.errors
    if errors:
        lines.append(f"**{len(errors)} error{'s' if len(errors) != 1 else ''}:**")
        lines += [f"- {_diagnostic(e)}" for e in errors[:MAX_ERRORS_LISTED]]
        if len(errors) > MAX_ERRORS_LISTED:
            lines.append(f"- ... and {len(errors) - MAX_ERRORS_LISTED} more (in the full plan)")
        lines.append("")
    if planned.warnings:
        lines += [f"{len(planned.warnings)} warning(s): see the full plan.", ""]
    return lines


def _diagnostic(item: Mapping[str, Any]) -> str:
    where = f"{_code(item['location'])} " if item.get("location") else ""
    subject = f"{_code(item['address'])}: " if item.get("address") else ""
    return f"{where}{subject}{_cell(str(item['message']))}"


def job_summary(
    plans: Sequence[Planned], where: Sequence[str] = (), title: str = "reconciler plan"
) -> str:
    """The summary's Markdown; `where` says where the full plan is (files, links)."""
    several = len(plans) > 1
    lines = [f"## {_cell(title)}", ""]
    for planned in plans:
        lines += _environment(planned, several)
    if where:
        lines.append("The full plan: " + ", ".join(mask(w) for w in where) + ".")
    return "\n".join(lines).rstrip("\n") + "\n"


def fit(text: str, room: int) -> str:
    """`text`, or as much of it as fits in `room` bytes (UTF-8) with a line saying so."""
    data = text.encode("utf-8")
    if len(data) <= room:
        return text
    cut = _CUT.encode("utf-8")
    keep = max(0, room - len(cut))
    head = data[:keep].decode("utf-8", errors="ignore")
    head = head[: head.rfind("\n") + 1] if "\n" in head else ""
    return head + _CUT if len(cut) <= room else ""


def append_summary(path: str, text: str, limit: int = SUMMARY_LIMIT) -> None:
    """Appends `text` to the step's summary file, within what is left of `limit`."""
    used = os.path.getsize(path) if os.path.exists(path) else 0
    with open(path, "a", encoding="utf-8") as summary:
        summary.write(fit(text, max(0, limit - used)))


def where_from(env: Mapping[str, str], saved: Path | None, html: Path | None) -> list[str]:
    """Where the full plan is: the files written, and this run's page when under GitHub
    Actions (its artifacts are listed there)."""
    where = [f"`{path}`" for path in (saved, html) if path is not None]
    server, repo, run = (
        env.get(n) for n in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    if server and repo and run:
        where.append(f"the artifacts of [this run]({server}/{repo}/actions/runs/{run})")
    return where

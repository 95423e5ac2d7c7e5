"""The plan as one self-contained HTML page (`plan --html`): errors and warnings first,
then per environment the status, the safety brake's verdict and the counts per kind and
action, every change with its fields before and after and its manifest line (a link with
a source URL), and the coverage per kind with the unmanaged objects. Filters by kind,
action and environment and a text search; readable at phone width, printable. The page
requests nothing: its style and script are inline (at the end of this module) and its
Content-Security-Policy allows nothing else.

Every text is escaped for HTML and its invisible controls are shown as escapes (`\\x1b`,
`\\u202e`): C0 and C1 controls but line feed and tab, DEL, the line and paragraph
separators and the bidirectional marks, embeddings, overrides and isolates, which would
reorder what the page shows ("Trojan Source")."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from reconciler.masking import mask
from reconciler.render.markdown_blocks import checked_source_url, source_link
from reconciler.report.digest import (
    ACTIONS,
    Planned,
    counts_by_kind,
    describe_counts,
    describe_run,
    plan_counts,
    status,
)

_STATUS = {"error": "errors", "drift": "changes", "clean": "no changes"}


_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _shown_escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def esc(value: object) -> str:
    return escape(_INVISIBLE.sub(_shown_escaped, mask(str(value))), quote=True)


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _where(location: str | None, source_url: str | None) -> str:
    if not location:
        return ""
    line = re.sub(r"(:\d+):\d+$", r"\1", location)  # file:line:column -> file:line
    link = source_link(source_url, line) if source_url else None
    shown = f"<code>{esc(location)}</code>"
    return f'<a href="{esc(link)}">{shown}</a>' if link else shown


def _problems(plans: Sequence[Planned], source_url: str | None) -> str:
    items = []
    for planned in plans:
        env = f"<span class=muted>[{esc(planned.label)}]</span> " if len(plans) > 1 else ""
        for severity, found in (("error", planned.errors), ("warning", planned.warnings)):
            for item in found:
                where = _where(item.get("location"), source_url)
                address, remedy = item.get("address"), item.get("remedy")
                subject = f'<span class="address">{esc(address)}</span>: ' if address else ""
                why = f" <span class=muted>({esc(remedy)})</span>" if remedy else ""
                items.append(
                    f'<li class="{severity}"><strong>{severity}</strong> {env}{where} '
                    f"{subject}{esc(item['message'])}{why}</li>"
                )
    listed = f'<ul class="problems">{"".join(items)}</ul>'
    return _section("problems", "Errors and warnings", listed) if items else ""


def _brake(planned: Planned) -> str:
    if planned.brake_holds:
        reasons = "; ".join(esc(r) for r in planned.brake_reasons)
        return (
            '<p class="brake holds"><strong>Safety brake holds:</strong> apply refuses this '
            f"plan without <code>--force</code>: {reasons}</p>"
        )
    if planned.judged:
        return '<p class="brake"><strong>Safety brake:</strong> passes; apply goes ahead.</p>'
    return '<p class="brake muted">Safety brake: not judged (a plan read back from a file).</p>'


def _summary(planned: Planned, several: bool) -> str:
    state = status(planned)
    title = f"<h3>{esc(planned.label)}</h3>" if several else ""
    head = "".join(f'<th class="num">{a}</th>' for a in ACTIONS)
    rows = []
    for kind, counts in counts_by_kind(planned).items():
        cells = "".join(f'<td class="num">{counts[a] or ""}</td>' for a in ACTIONS)
        rows.append(
            f'<tr data-filter data-kind="{esc(kind)}" data-env="{esc(planned.label)}">'
            f"<td><code>{esc(kind)}</code></td>{cells}"
            f"<td class=num>{sum(counts.values())}</td></tr>"
        )
    return (
        f'<div class="environment" data-env-summary="{esc(planned.label)}">{title}'
        f'<p><span class="status {state}">{_STATUS[state]}</span> '
        f"{esc(describe_counts(plan_counts(planned)))}</p>{_brake(planned)}"
        f'<div class="table-wrap"><table><thead><tr><th>kind</th>{head}<th class=num>total</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></div>"
    )


def _fields(change: Mapping[str, Any]) -> str:
    fields = list(change.get("fields") or ())
    if not fields:
        return "<p class=muted>No field changes listed.</p>"
    rows = "".join(
        f"<tr><td><code>{esc(f['path'])}</code></td>"
        f'<td class="before"><code>{esc(_shown(f.get("before")))}</code></td>'
        f'<td class="after"><code>{esc(_shown(f.get("after")))}</code></td></tr>'
        for f in fields
    )
    return (
        '<div class="table-wrap"><table><thead><tr><th>field</th><th>before</th><th>after</th>'
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _change(change: Mapping[str, Any], env: str, source_url: str | None) -> str:
    kind, action = str(change["kind"]), str(change["action"])
    source = change.get("source")
    link = source_link(source_url, source) if source and source_url else None
    where = f'<a href="{esc(link)}">{esc(source)}</a>' if link else f"<code>{esc(source)}</code>"
    if not source:
        where = "not in the manifests (a live object no entry names)"
    text = " ".join(
        [str(change["address"]), kind, action, str(source or ""), env]
        + [str(f["path"]) for f in change.get("fields") or ()]
    )
    reason = f"<p>{esc(change['reason'])}</p>" if change.get("reason") else ""
    # Advice on a create that looks like an unlisted object renamed; apply never uses it.
    reason += "".join(
        f'<p class="hint">{esc(hint["reason"])}. If it is, add <code>{esc(hint["previously"])}'
        "</code> to this entry to rename it in place (its id kept); apply as planned creates "
        "a new one</p>"
        for hint in change.get("rename_hints") or ()
    )
    # The label of a labelled plan (docs/drift.md), shown and filtered on.
    cause = change.get("cause")
    label = f' <span class="cause">({esc(cause)})</span>' if cause else ""
    filtered = f' data-cause="{esc(cause)}"' if cause else ""
    return (
        f'<details class="change" data-filter data-kind="{esc(kind)}" data-action="{esc(action)}" '
        f'data-env="{esc(env)}"{filtered} data-text="{esc(text)}">'
        f'<summary><span class="action {esc(action)}">'
        f'{esc(action)}</span> <span class="address">{esc(change["address"])}</span>{label}'
        "</summary>"
        f'<div class="body"><p>Manifest: {where}</p>{reason}{_fields(change)}'
        f"<p class=muted>{len(change.get('operations') or ())} API operation(s) on apply.</p>"
        "</div></details>"
    )


def _coverage(planned: Planned, several: bool) -> str:
    coverage = planned.plan.get("coverage") or {}
    unmanaged = planned.plan.get("unmanaged") or {}
    not_read = planned.plan.get("not_read_in_full") or {}
    if not coverage and not not_read:
        return ""
    env = esc(planned.label)
    rows = []
    for kind, figures in coverage.items():
        keys = unmanaged.get(kind) or []
        listed = "".join(f"<li><code>{esc(k)}</code></li>" for k in keys)
        others = f"<details><summary>{len(keys)} unmanaged</summary><ul>{listed}</ul></details>"
        others = others if keys else "none"
        rows.append(
            f'<tr data-filter data-kind="{esc(kind)}" data-env="{env}" '
            f'data-text="{esc(" ".join([kind, *keys]))}">'
            f"<td><code>{esc(kind)}</code></td><td class=num>{figures['live']}</td>"
            f"<td class=num>{figures['managed']}</td><td class=num>{figures['percent']}%</td>"
            f"<td>{others}</td></tr>"
        )
    for kind, why in not_read.items():
        rows.append(
            f'<tr data-filter data-kind="{esc(kind)}" data-env="{env}">'
            f"<td><code>{esc(kind)}</code></td>"
            f"<td colspan=4 class=muted>not read in full: {esc(why)}</td></tr>"
        )
    title = f"<h3>{env}</h3>" if several else ""
    return (
        f'{title}<div class="table-wrap"><table class="coverage"><thead><tr><th>kind</th>'
        "<th class=num>live</th>"
        f"<th class=num>managed</th><th class=num>coverage</th><th>unmanaged</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _section(ident: str, heading: str, content: str) -> str:
    return f'<section id="{ident}"><h2>{heading}</h2>{content}</section>'


def _select(ident: str, label: str, options: Sequence[str]) -> str:
    choices = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in options)
    return (
        f'<label>{label}<select id="{ident}"><option value="">all</option>{choices}'
        "</select></label>"
    )


def _filters(plans: Sequence[Planned]) -> str:
    kinds = list(dict.fromkeys(k for p in plans for k in counts_by_kind(p)))
    actions = [a for a in ACTIONS if any(c["action"] == a for p in plans for c in p.changes)]
    envs = _select("filter-env", "environment", [p.label for p in plans]) if len(plans) > 1 else ""
    # Only a labelled plan has the filter (docs/drift.md).
    labels = [str(c["cause"]) for p in plans for c in p.changes if c.get("cause")]
    causes = _select("filter-cause", "cause", list(dict.fromkeys(labels))) if labels else ""
    return (
        f'<nav class="filters">{_select("filter-kind", "kind", kinds)}'
        f"{_select('filter-action', 'action', actions)}{envs}{causes}"
        '<label>search<input id="filter-text" type="search" '
        'placeholder="address, field, file"></label>'
        '<span id="shown-count" class="muted" aria-live="polite"></span></nav>'
    )


def _headline(plans: Sequence[Planned]) -> str:
    """`20 changes in 7 kinds, 0 errors, 1 warning (2 environments)`."""
    changes = [c for p in plans for c in p.changes]
    kinds = len({c["kind"] for c in changes})
    errors = sum(len(p.errors) for p in plans)
    warnings = sum(len(p.warnings) for p in plans)
    where = f" ({len(plans)} environments)" if len(plans) > 1 else ""
    return (
        f"{describe_run(plans).capitalize()}: {len(changes)} change(s) in {kinds} kind(s), "
        f"{errors} error(s), {warnings} warning(s){where}."
    )


def html_report(
    plans: Sequence[Planned], *, source_url: str | None = None, title: str = "reconciler plan"
) -> str:
    """The whole page, masked: no credential reaches it."""
    if source_url:
        checked_source_url(source_url)
    several = len(plans) > 1
    changes = "".join(_change(c, p.label, source_url) for p in plans for c in p.changes)
    coverage = "".join(_coverage(p, several) for p in plans)
    body = (
        f"<header><h1>{esc(title)}</h1><p class=muted>{esc(_headline(plans))}</p></header>"
        f"{_filters(plans)}{_problems(plans, source_url)}"
        + _section("summary", "Summary", "".join(_summary(p, several) for p in plans))
        + _section("changes", "Changes", changes or "<p class=muted>No changes.</p>")
        + (_section("coverage", "Coverage", coverage) if coverage else "")
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>"
        f"<body>{body}<script>{SCRIPT}</script></body></html>\n"
    )
    return mask(page)


# -- the style sheet and script, inlined: the page loads nothing from anywhere ---------

CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)

CSS = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #fff; --soft: #f6f8fa;
  --create: #1a7f37; --update: #9a6700; --delete: #cf222e; --error: #cf222e; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem;
  border-bottom: 1px solid var(--line); padding-bottom: .25rem; } h3 { font-size: 1rem; }
code, pre, .address { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .85rem; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.hint { color: var(--warn); }
.status { display: inline-block; padding: .1rem .6rem; border-radius: 1rem; font-weight: 600; }
.status.error { background: #ffebe9; color: var(--error); }
.status.drift { background: #fff8c5; color: var(--warn); }
.status.clean { background: #dafbe1; color: var(--create); }
.problems li { margin: .25rem 0; } .problems .error { color: var(--error); }
.problems .warning { color: var(--warn); }
.brake { padding: .5rem .75rem; border-left: 4px solid var(--create); background: var(--soft); }
.brake.holds { border-color: var(--delete); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { background: var(--soft); } td.num, th.num { text-align: right; }
.filters { position: sticky; top: 0; z-index: 1; background: var(--bg); display: flex;
  flex-wrap: wrap; gap: .5rem; padding: .5rem 0; border-bottom: 1px solid var(--line); }
.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
.filters select, .filters input { font: inherit; padding: .25rem; min-width: 9rem; }
details.change { border: 1px solid var(--line); border-radius: .4rem; margin: .4rem 0; }
details.change > summary { cursor: pointer; padding: .4rem .6rem; list-style-position: inside; }
details.change[open] > summary { border-bottom: 1px solid var(--line); }
.change .body { padding: .4rem .6rem; }
.action { display: inline-block; min-width: 4.5rem; font-weight: 600; }
.action.create { color: var(--create); } .action.update, .action.enable, .action.disable
  { color: var(--update); } .action.delete { color: var(--delete); }
.before { background: #ffebe9; } .after { background: #dafbe1; }
.hidden { display: none !important; }
@media (min-width: 641px) { .change td:first-child { white-space: nowrap; } }
@media (max-width: 640px) {
  body { padding: .5rem; font-size: 14px; }
  .filters label, .filters select, .filters input { width: 100%; }
  td, th { padding: .25rem; }
}
@media print {
  .filters { display: none; } details.change { break-inside: avoid; }
  details.change > .body { display: block !important; }
  a { color: inherit; text-decoration: none; }
}
"""

# Filters: every element with data-kind/data-action/data-env/data-cause/data-text is shown
# only when it matches the selected kind, action, environment, cause and the search text
# (any of the words, without regard to case). Printing opens every change.
SCRIPT = """
(function () {
  var ids = ["filter-kind", "filter-action", "filter-env", "filter-cause", "filter-text"];
  function value(id) { var el = document.getElementById(id); return el ? el.value : ""; }
  function apply() {
    var kind = value("filter-kind"), action = value("filter-action"),
        env = value("filter-env"), cause = value("filter-cause"),
        words = value("filter-text").toLowerCase().split(/\\s+/)
          .filter(function (w) { return w; });
    var items = document.querySelectorAll("[data-filter]"), shown = 0, all = 0;
    items.forEach(function (el) {
      var d = el.dataset, text = (d.text || "").toLowerCase();
      var ok = (!kind || d.kind === undefined || d.kind === kind) &&
        (!action || d.action === undefined || d.action === action) &&
        (!env || d.env === env) &&
        (!cause || d.cause === undefined || d.cause === cause) &&
        words.every(function (w) { return text.indexOf(w) >= 0; });
      el.classList.toggle("hidden", !ok);
      if (el.classList.contains("change")) { all += 1; if (ok) { shown += 1; } }
    });
    var count = document.getElementById("shown-count");
    if (count) { count.textContent = shown + " of " + all + " changes shown"; }
  }
  ids.forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener("input", apply); el.addEventListener("change", apply); }
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
  apply();
})();
"""

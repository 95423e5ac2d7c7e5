"""The HTML report's style sheet and script, inlined in the page (html.py): the page loads
nothing from anywhere, and its Content-Security-Policy forbids it to."""

from __future__ import annotations

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

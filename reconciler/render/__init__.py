"""Rendering a `Plan`: pure functions from the plan's data to text, Markdown or JSON, and
nothing else. Rendering is kept apart from the diff (as Terraform keeps `plans` apart from
`jsonformat`), and a new format is a new module here and nothing else.

    format_text(plan, *, color=False, show_operations=False)   Terraform-like, for a terminal
    format_diagnostics(plan, *, color=False)                   its errors/warnings (stderr)
    format_markdown(plan, *, title=...)                        the whole plan as Markdown
    markdown_parts(plan, *, limit=60_000, title=...)           pull-request comments
    format_json(plan)                                          DESIGN §4, `Plan.to_dict()`

Each takes `causes`, the changes' labels by address (`reconciler.applied`: drift, pending,
drift+pending), shown after each address and counted under the summary (JSON: `"cause"`
on each change); without it (None) the output is exactly as without labels.
"""

from __future__ import annotations

from reconciler.render.json_format import format_json
from reconciler.render.markdown import format_markdown, markdown_parts
from reconciler.render.text import format_diagnostics, format_text

__all__ = [
    "format_diagnostics",
    "format_json",
    "format_markdown",
    "format_text",
    "markdown_parts",
]

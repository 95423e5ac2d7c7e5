"""Rendering a `Plan`: pure functions from the plan's data to text (`format_text`, and
`format_diagnostics` for stderr), Markdown (`format_markdown`, and `markdown_parts` for
pull-request comments) or JSON (`format_json`, DESIGN §4), and nothing else. Rendering is
kept apart from the diff (as Terraform keeps `plans` apart from `jsonformat`), and a new
format is a new module here and nothing else.

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

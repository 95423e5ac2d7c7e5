"""`reconciler plan --comment-dir DIR --source-url URL` in-process against the embedded
sandbox: the comment part links each change to its manifest line under the URL given
(the option reaches the Markdown through the CLI, not only `--format markdown`)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from reconciler.cli import main
from tests.cli.test_mutants_plan_output import companies

BASE = "https://github.com/acme/helpdesk/blob/0123abc"


def test_the_comment_part_links_each_change_to_its_manifest_line(clean_workdir: Path) -> None:
    (clean_workdir / "c.yaml").write_text(companies(2), encoding="utf-8")
    args = ["plan", "c.yaml", "--sandbox", "--comment-dir", "parts", "--source-url", BASE]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    [part] = sorted((clean_workdir / "parts").iterdir())
    text = part.read_text(encoding="utf-8")
    assert f"]({BASE}/c.yaml#L2)" in text  # the first company's entry
    assert f"]({BASE}/c.yaml#L5)" in text
    assert result.stderr.endswith("Wrote the plan in 1 comment part(s) to parts.\n")

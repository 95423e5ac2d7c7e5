"""What `plan --env '*'` writes on stdout (fleet/commands.py), in-process against one sandbox
process: the Markdown document whole (each environment's part, then the summary, ending
in one newline), and the JSON document keeping names as written (not `\\u` escapes)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.sandbox.process import SandboxProcess
from tests.cli.conftest import fleet_project

MANIFEST = "companies:\n  - name: Zürich Café AG\n"


@pytest.fixture
def project(clean_workdir: Path, sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fleet_project(
        clean_workdir, sandbox, monkeypatch, MANIFEST, up=("prod",), down=("down",)
    )


MARKDOWN = """\
## reconciler plan: environment prod

| kind | create | update | delete | enable | disable |
|:--|--:|--:|--:|--:|--:|
| companies | 1 | 0 | 0 | 0 | 0 |
| **total** | **1** | **0** | **0** | **0** | **0** |

**Plan: 1 to create, 0 to update, 0 to delete, 0 to enable, 0 to disable.**

**Coverage** (live objects the manifests manage; the others are unmanaged, not changes):

| kind | live | managed | coverage | unmanaged |
|:--|--:|--:|--:|--:|
| companies | 3 | 0 | 0% | 3 |

<details><summary>companies: 1 to create</summary>

```diff
+ companies["Zürich Café AG"]
  # from good/c.yaml:2
+     name: "Zürich Café AG"
```

</details>

### Unmanaged objects (3)

Live objects no manifest entry names: not changes, `apply` leaves them alone.

- `companies["Acme Corp"]`
- `companies["Acme Field Services"]`
- `companies["Acme Robotics"]`

## reconciler plan: environment down

**Error:** this environment could not be planned.

```text
cannot connect to the helpdesk at 127.0.0.1:PORT: connection refused (ConnectError: \
[Errno 111] Connect call failed ('127.0.0.1', PORT)); nothing accepts connections there: \
check the URL's host and port, and that the service is running
```

### Summary

| environment | create | update | delete | enable | disable | errors | brake | duration |
|:---|---:|---:|---:|---:|---:|---:|---:|---:|
| prod | 1 | 0 | 0 | 0 | 0 | 0 | ok | N.Ns |
| down | 0 | 0 | 0 | 0 | 0 | 1 | - | N.Ns |

2 environment(s), 1 with changes (prod), 1 with errors (down).
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"})


def steady(text: str) -> str:
    text = re.sub(r"\b\d+\.\ds\b", "N.Ns", text)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return re.sub(r"'127\.0\.0\.1', \d+", "'127.0.0.1', PORT", text)


def test_the_markdown_of_a_fleet_plan_whole(project: Path) -> None:
    result = run("plan", "--env", "*", "--format", "markdown")
    assert result.exit_code == 1
    assert steady(result.stdout) == MARKDOWN


def test_the_json_of_a_fleet_plan_keeps_names_as_written(project: Path) -> None:
    result = run("plan", "--env", "*", "--format", "json")
    assert result.exit_code == 1
    out = result.stdout
    assert out.endswith("}\n") and not out.endswith("\n\n")
    assert out.count("Zürich Café AG") == 5 and "\\u" not in out
    document = json.loads(out)
    prod, down = document["environments"]
    assert prod["plan"]["changes"][0]["key"] == "Zürich Café AG"
    assert (prod["error"], down["plan"]) == (None, None)
    assert [e["summary"]["status"] for e in (prod, down)] == ["changes", "error"]

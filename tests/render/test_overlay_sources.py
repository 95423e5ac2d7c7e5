"""A change built from an entry an overlay refined names both lines (issue 23: "source
links point at both lines"): the entry's (`source`, as before) and each overlay's, in the
text and Markdown plans (`# from A, refined at B`, and with `--source-url` a link to each)
and the JSON (`sources`); a saved plan reads them back; validate's messages about such an
entry name both lines too."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
import json
import os
from pathlib import Path

import pytest

from reconciler.errors import PlanFileError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.validate import validate_references
from reconciler.plans import Action, Change, FieldChange, Plan
from reconciler.plans.addresses import with_sources
from reconciler.plans.planfile import plan_from_dict
from reconciler.render import format_json, format_markdown, format_text, markdown_parts

BASE = "https://github.com/msp/fleet/blob/0123abc"
BASELINE = """\
users:
  - username: oncall
    email: oncall@msp.example.com
    location: Leeds
  - username: intern
    email: intern@msp.example.com
"""
OVERLAY = """\
users:
  - username: oncall
    overlay: true
    location: Reading
"""


@pytest.fixture
def desired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DesiredState:
    monkeypatch.chdir(tmp_path)  # relative paths, as a plan run from the repository's root
    Path("baseline").mkdir()
    Path("tenants").mkdir()
    Path("baseline/people.yaml").write_text(BASELINE, encoding="utf-8")
    Path("tenants/acme.yaml").write_text(OVERLAY, encoding="utf-8")
    return load_manifests([Path("baseline/people.yaml"), Path("tenants/acme.yaml")], {})


def _plan(desired: DesiredState) -> Plan:
    changes = [
        Change("users", "oncall", Action.update, (FieldChange("location", "Leeds2", "Reading"),)),
        Change("users", "intern", Action.create, (FieldChange("email", None, "i@x"),)),
    ]
    return Plan(tuple(with_sources(changes, desired)))


def test_the_change_carries_both_lines_and_an_unrefined_one_only_its_own(
    desired: DesiredState,
) -> None:
    oncall, intern = _plan(desired).changes
    assert (oncall.source, oncall.refined_at) == (
        "baseline/people.yaml:2",
        ("tenants/acme.yaml:2",),
    )
    assert oncall.sources == ("baseline/people.yaml:2", "tenants/acme.yaml:2")
    assert (intern.source, intern.refined_at, intern.sources) == (
        "baseline/people.yaml:5", (), ("baseline/people.yaml:5",)
    )  # fmt: skip


# (format, what it shows for the refined change, what it shows for the other, how many
# times it says "refined at": with links, in the heading and in the diff block)
RENDERINGS = [
    ("text", "# from baseline/people.yaml:2, refined at tenants/acme.yaml:2", "# from baseline/people.yaml:5\n", 1),
    ("markdown", "# from baseline/people.yaml:2, refined at tenants/acme.yaml:2", "# from baseline/people.yaml:5\n", 1),
    ("linked", f'[`users["oncall"]`]({BASE}/baseline/people.yaml#L2) (refined at [`tenants/acme.yaml:2`]({BASE}/tenants/acme.yaml#L2))', f'[`users["intern"]`]({BASE}/baseline/people.yaml#L5)\n', 2),
]  # fmt: skip


@pytest.mark.parametrize(
    ("form", "refined", "plain", "times"), RENDERINGS, ids=[r[0] for r in RENDERINGS]
)
def test_text_and_markdown_name_both_lines(
    desired: DesiredState, form: str, refined: str, plain: str, times: int
) -> None:
    plan = _plan(desired)
    shown = {
        "text": lambda: format_text(plan),
        "markdown": lambda: format_markdown(plan),
        "linked": lambda: "".join(markdown_parts(plan, source_url=BASE)),
    }[form]()
    assert refined in shown and plain in shown
    assert shown.count("refined at") == times


def test_the_json_adds_sources_and_keeps_source(desired: DesiredState) -> None:
    oncall, intern = json.loads(format_json(_plan(desired)))["changes"]
    assert oncall["source"] == "baseline/people.yaml:2"
    assert oncall["sources"] == ["baseline/people.yaml:2", "tenants/acme.yaml:2"]
    assert intern["source"] == "baseline/people.yaml:5" and "sources" not in intern


def test_a_saved_plan_reads_the_sources_back(desired: DesiredState) -> None:
    plan = _plan(desired)
    data = json.loads(format_json(plan))
    assert plan_from_dict(data).changes == plan.changes
    data["changes"][0]["sources"][0] = "elsewhere.yaml:1"  # edited after review
    with pytest.raises(PlanFileError) as refused:
        plan_from_dict(data)
    assert refused.value.problems == [
        "plan: changes[0].sources: does not start with the change's source"
    ]


def test_validate_names_both_lines_of_an_overlaid_entry(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(BASELINE, encoding="utf-8")
    # The overlay gives the on-call engineer the intern's address: a conflict between the
    # two entries, one of them refined.
    (tmp_path / "b.yaml").write_text(
        "users:\n  - username: oncall\n    overlay: true\n    email: intern@msp.example.com\n",
        encoding="utf-8",
    )
    desired = load_manifests([tmp_path / "a.yaml", tmp_path / "b.yaml"], {})
    (found,) = validate_references(desired)
    shown = found.replace(str(tmp_path) + os.sep, "")
    assert shown.startswith(
        "a.yaml:6:12: e-mail 'intern@msp.example.com' is also the e-mail of user 'oncall' (at b.yaml:4:12; written at a.yaml:2:5, refined at b.yaml:2:5)"
    ), shown

"""Companies, departments, categories and automation rules as `reconciler export` writes
them (export/entries.py, result.py, yamlout.py), converted from a live snapshot
without a service: every file, and the one-manifest document, byte for byte (golden
files in `golden/kinds/`; `EXPORT_GOLDEN_WRITE=1` writes them anew, to be read)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reconciler.export.entries import LiveSnapshot
from reconciler.export.result import ExportResult, convert
from reconciler.export.selection import Selection
from reconciler.kinds.automation_rules.reader import LiveRules, RuleInfo
from reconciler.kinds.categories.reader import LiveCategories, LiveCategory
from reconciler.kinds.companies.reader import LiveCompanies, LiveCompany
from reconciler.kinds.departments.reader import LiveDepartments

GOLDEN = Path(__file__).parent / "golden" / "kinds"
KINDS = ("companies", "departments", "categories", "automation_rules")
SNAPSHOT = LiveSnapshot(
    KINDS,
    {
        "companies": LiveCompanies(
            {},
            items=(
                LiveCompany(1, "Acme", ("acme.com", "ACME.com", "", "acme.co.uk"), "Key\nacct  "),
                LiveCompany(2, "Globex", (), None, ()),
                LiveCompany(3, "globex ", (), "  "),
                LiveCompany(4, "", (), None),
            ),
        ),
        "departments": LiveDepartments({"it": (1, "IT"), "sales": (2, "Sales")}),
        "categories": LiveCategories.from_items(
            [
                LiveCategory(1, "Hardware", 10, "IT Support"),
                LiveCategory(2, "Network", None, None),
                LiveCategory(3, "hardware", 11, "Workplace"),
                LiveCategory(4, "Doors", 11, "Workplace"),
            ]
        ),
        "automation_rules": LiveRules(
            {
                101: RuleInfo(101, "Escalate", True),
                102: RuleInfo(102, None, None),
                103: None,
                104: RuleInfo(104, "Close", False),
                105: RuleInfo(105, "Q", None),
            }
        ),
    },
)
NOTES = [
    "companies/Globex: 2 live objects share this name (case and spacing aside): only the "
    "last listed, the one `plan` compares with, is written",
    "categories/Hardware: is also in section 'Workplace'; manifests key categories by name, "
    "so only the one in section 'IT Support' is written",
    "automation_rules: the service does not say whether rule(s) 102, 105 are enabled: they "
    "are written as comments; uncomment each and set `enabled` to manage it",
    "--target companies/Initech matched no live object",
]
WRITE = os.environ.get("EXPORT_GOLDEN_WRITE") == "1"


def _result(include_empty: bool) -> ExportResult:
    selection = Selection.build(
        kinds=list(KINDS),
        targets=["companies", "companies/Initech", "departments", "categories", "automation_rules"],
        rule_ids=[101, 102, 104, 105],
        excludes=["automation_rules/104"],
    )
    return convert(
        SNAPSHOT,
        selection,
        include_empty=include_empty,
        sources={"helpdesk": "https://h.example/helpdesk", "workspace": "https://w.example"},
        now=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )


def _check(texts: dict[str, str]) -> None:
    if WRITE:
        for name, text in texts.items():
            (GOLDEN / name).write_text(text, encoding="utf-8")
        pytest.skip("wrote the golden files: read them, then run again without the variable")
    for name, text in texts.items():
        assert text == (GOLDEN / name).read_text(encoding="utf-8"), name


@pytest.mark.parametrize("include_empty", [False, True])
def test_every_file_as_written(include_empty: bool) -> None:
    result = _result(include_empty)
    files = result.files()
    assert list(files) == [
        "settings.yaml",
        "companies.yaml",
        "departments.yaml",
        "categories.yaml",
        "automation_rules.yaml",
    ]
    assert result.file_names() == list(files)
    suffix = "-empty" if include_empty else ""
    assert result.warnings == NOTES
    assert result.count == 8
    texts = {name.replace(".yaml", f"{suffix}.txt"): text for name, text in files.items()}
    _check({**texts, f"document{suffix}.txt": result.document()})


def test_what_was_left_out_and_why() -> None:
    result = _result(False)
    assert result.unknown_rules == [{"id": 102}, {"id": 105, "name": "Q"}]
    assert dict(result.clone.section_ids) == {"IT Support": 10, "Workplace": 11}
    assert result.custom_field_options == {}

"""The YAML the export writes reads back as the values written: any text (quoting,
`${`, blocks, control characters), dates, flags, numbers, nested employee fields."""

from __future__ import annotations

import io
from datetime import date
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from reconciler.export.yamlout import dump, entries_node, escape, scalar
from reconciler.manifest.loader import load_manifest_text

# Text as live services hold it, biased towards what YAML treats specially.
SPECIAL = "${}\n\r\t\x85\u2028 #:'\"-?|>&*!%@`[],0123456789.+eE~yesnoONtrue"
texts = st.text(alphabet=st.one_of(st.sampled_from(SPECIAL), st.characters()), max_size=30)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    texts,
    st.floats(allow_nan=False, allow_infinity=False),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


def _load(text: str) -> Any:
    return load_manifest_text(text, "export.yaml", env={}).manifest


@settings(max_examples=300, deadline=None)
@given(texts)
def test_any_text_reads_back_as_written(value: str) -> None:
    text = dump({"companies": entries_node([{"name": "Acme", "notes": value}])}, ["header"])
    assert _load(text).companies[0].notes == value


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[A-Za-z]([A-Za-z0-9 ]{0,8}[A-Za-z0-9])?", fullmatch=True), json_values
    )
)
# Found by hypothesis: ruamel wrote `[?0]`, which reads back as a mapping.
@example({"A": ["?0"]})
@example({"B": ["a, b", "[x]", "-1x", "&anchor"]})
def test_open_employee_fields_read_back_as_written(fields: dict[str, Any]) -> None:
    entry = {"email": "a@example.com", **fields}
    text = dump({"workspace": {"employees": entries_node([entry])}}, [])
    (employee,) = _load(text).workspace.employees
    assert employee.fields == entry


@pytest.mark.parametrize(
    "value",
    [
        "0012",
        "+4930123456",
        "2027-01-31",
        "true",
        "on",
        "yes",
        "null",
        "~",
        "1:30",
        "1e3",
        "${HOME}",
        "$${x}",
        "- item",
        "key: value",
        "#hash",
        "  lead",
        "trail  ",
        "a\r\nb",
    ],
)
def test_strings_that_look_like_something_else_stay_strings(value: str) -> None:
    text = dump({"users": [{"username": "u", "notes": value}]}, [])
    assert _load(text).users[0].notes == value
    # Other YAML 1.1 tools read them as strings too.
    assert YAML(typ="safe", pure=True).load(text.replace("$${", "${"))["users"][0]["notes"] == value


def test_scalar_styles() -> None:
    assert type(scalar("a\nb\n")).__name__ == "LiteralScalarString"
    assert type(scalar("a\r\nb")).__name__ == "DoubleQuotedScalarString"  # a block loses \r
    assert type(scalar("on")).__name__ == "SingleQuotedScalarString"
    assert escape("${A} $${B}") == "$${A} $$${B}"
    text = dump(
        {
            "assets": entries_node(
                [
                    {
                        "serial_number": "0012",
                        "quantity": 2,
                        "enabled": True,
                        "assigned_users": ["bob", "alice"],
                        "custom_fields": {"Warranty": date(2027, 1, 31), "Tier": {"option_id": 7}},
                    }
                ]
            )
        },
        [],
    )
    assert "serial_number: '0012'" in text
    assert "assigned_users: [bob, alice]" in text
    assert "Warranty: 2027-01-31" in text and "Tier: {option_id: 7}" in text


def test_an_export_writes_null_and_leaves_every_other_yaml_writer_as_it_was() -> None:
    """ruamel's `add_representer` changes the class it is called on: the export's `null`
    must not become the whole process's (a library user's YAML, a later test's)."""
    assert dump({"a": None}, []) == "a: null\n"
    out = io.StringIO()
    YAML().dump({"a": None}, out)
    assert out.getvalue() == "a:\n"

"""Whatever the input, loading either returns a DesiredState or raises ManifestError whose
problems are one-line `file:line:column: message`s; never another exception."""

from __future__ import annotations

import io
import re
from datetime import date
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from reconciler.errors import ManifestError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.schema_errors import _model_at

PROBLEM = re.compile(r"^fuzz\.yaml:[1-9]\d*:[1-9]\d*: \S[^\n]*$")
KINDS = [*Manifest.model_fields, "employees", "workspace.employees"]
FIELDS = sorted(
    {
        name
        for kind in Manifest.model_fields
        for path in ([kind, 0], [kind], [kind, "employees", 0])
        if (model := _model_at(path)) is not None
        for name in model.model_fields
    }
    | {"email", "option_id", "firstName", "prune", "ignore_fields", "safety"}
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.dates(min_value=date(1, 1, 1)),
    st.sampled_from(["${HOME}", "${UNSET_X}", "$${X}", "${", "${1}", "2025-02-30", "0012"]),
)
KEYS = st.one_of(st.sampled_from(FIELDS), st.text(max_size=10), st.integers())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)
ENTRIES = st.dictionaries(KEYS, VALUES, max_size=6)
MANIFESTS = st.dictionaries(
    st.one_of(st.sampled_from(KINDS), st.text(max_size=10), st.integers()),
    st.one_of(st.lists(ENTRIES, max_size=4), ENTRIES, VALUES),
    max_size=5,
)
YAMLISH = st.text(alphabet="ab:-[]{}&*!|>'\"#\n\t ,?%@`~$01.<=\\\x00\x85\ufeff", max_size=80)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(FUZZ, max_examples=60)


def dump(data: Any) -> str:
    out = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, out)
    return out.getvalue()


def loads_or_reports(text: str | bytes) -> None:
    try:
        result = load_manifest_text(text, "fuzz.yaml", env={"HOME": "/home/x"})
    except ManifestError as exc:
        assert exc.problems, "a ManifestError without problems"
        for problem in exc.problems:
            assert PROBLEM.match(problem), problem
    else:
        assert isinstance(result, DesiredState)


@FUZZ
@given(MANIFESTS)
def test_any_mapping_loads_or_raises_manifest_error(data: dict[Any, Any]) -> None:
    loads_or_reports(dump(data))


@FEWER
@given(st.lists(MANIFESTS, min_size=1, max_size=3))
def test_any_documents_load_or_raise_manifest_error(documents: list[dict[Any, Any]]) -> None:
    loads_or_reports("---\n".join(dump(document) for document in documents))


@FUZZ
@given(YAMLISH)
def test_any_yamlish_text_loads_or_raises_manifest_error(text: str) -> None:
    loads_or_reports(text)


@FUZZ
@given(st.binary(max_size=60))
def test_any_bytes_load_or_raise_manifest_error(data: bytes) -> None:
    loads_or_reports(data)

"""Hypothesis strategies for plans: any text (unicode, controls, Markdown and HTML
characters), JSON values with refs nested anywhere, every action and diagnostic shape."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from reconciler.plans import (
    Action,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Plan,
    Ref,
    address,
)

# Text as users and live APIs produce it, and as attackers would: the alphabet is biased
# towards the characters that matter to the renderers.
SPECIAL = "`<>&@#*_[]|~\\\"'\n\r\t\x1b\x00\u202e\u2028 .:-+!"
texts = st.text(
    alphabet=st.one_of(st.sampled_from(SPECIAL), st.characters(codec="utf-8")), max_size=24
)
non_empty_texts = texts.filter(bool)
kinds = st.sampled_from(["companies", "users", "assets", "workspace.employees"]) | non_empty_texts
refs = st.builds(
    Ref,
    st.builds(address, kinds, texts),
    st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True),
)


def _not_a_ref_marker(value: dict[str, Any]) -> bool:
    return set(value) != {"known_after_apply"}


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values = st.recursive(
    scalars | refs,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(texts, children, max_size=4).filter(_not_a_ref_marker)
    ),
    max_leaves=8,
)

field_changes = st.builds(FieldChange, texts, json_values, json_values)
operations = st.builds(
    Operation,
    service=st.sampled_from(["helpdesk", "workspace"]),
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
    path=texts,
    params=st.dictionaries(texts, json_values, max_size=4),
    creates=st.none() | non_empty_texts,
    description=texts,
    idempotent=st.booleans(),
)
changes = st.builds(
    Change,
    kind=kinds,
    key=texts,
    action=st.sampled_from(list(Action)),
    fields=st.lists(field_changes, max_size=4).map(tuple),
    operations=st.lists(operations, max_size=3).map(tuple),
    depends_on=st.lists(texts, max_size=2).map(tuple),
    reason=texts,
    removal=st.booleans(),
)


def diagnostics(severity: str) -> st.SearchStrategy[Diagnostic]:
    optional = st.none() | non_empty_texts
    return st.builds(Diagnostic, st.just(severity), texts, optional, optional, optional)


plans = st.builds(
    Plan,
    changes=st.lists(changes, max_size=6).map(tuple),
    warnings=st.lists(diagnostics("warning"), max_size=3).map(tuple),
    errors=st.lists(diagnostics("error"), max_size=3).map(tuple),
    live_digest=texts,
)

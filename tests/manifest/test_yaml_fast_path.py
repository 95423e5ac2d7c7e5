"""Which texts libyaml composes (`yamlcompose`, the fast path of every load) and which it
hands to ruamel.yaml, reason by reason: what both parsers read alike stays on the fast path
(anchors, aliases, the standard tags, the non-specific tag `!`), and each thing only
ruamel.yaml may judge is declined. Either way the result is ruamel.yaml's, which
`assert_same` checks for every row; the values a user gets on the fast path are ruamel's
YAML 1.2 ones."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.manifest import yamlcompose
from reconciler.manifest.yamltree import parse_documents
from tests.manifest.test_yaml_loaders import VARIABLES, assert_same

TAKEN = [
    "a: 1\nb: [x, {c: d}]\n",
    "a: &a-B_9 x\nb: *a-B_9\n",  # every character class of a name both read alike
    "a: [&x 1, *x]\nb: {k: *x}\n",  # a name ended by `,` `]` `}` or a space
    "&k a: &v b\n*k : *v\n",
    "v: ! 12\nw: ! '12'\n",  # the non-specific tag on scalars
    "s: ! [1]\nm: ! {a: 1}\n",  # and on collections
    "x: !!str 12\ny: !!int '3'\nz: !!float 1\n",
    "a: !<tag:yaml.org,2002:str> y\n",
    "a: b...\nc: '|' #\n",
    "a: >+\n  x\n#c\n",
    "a: >2\n   x\n",
    "---\na: 1\n---\nb: 2\n",
]

DECLINED = [
    "a: &x: 1\n",  # libyaml ends the name before `:`, ruamel does not
    "a: &x 1\nb: *x:\n",
    "a: &x? 1\n",
    "a: &x% 1\n",
    "a: &x@ 1\n",
    "a: &x` 1\n",
    "a: !local x\n",  # a local tag
    "a: !!python/name:x y\n",
    "a: !!Str y\n",  # not a standard tag
    "a: !!int2 3\n",
    "a: !!str &x y\n",  # a tag and an anchor on one node
    "a: &x !!str y\n",
    "%YAML 1.2\n---\na: 1\n",  # directives
    "%TAG !e! tag:e.com,2000:\n---\na: !e!x 1\n",
    "%TAG !e! tag:e.com,2000:\n---\na: 1\n",  # even a handle never used
    "a: *nope\n",  # an undefined alias
    "a:\tb\n",  # the characters the two disagree on
    "a: 1\x85",
    "a: \u2028\n",
    "a: \u2029\n",
    "\ufeffa: 1\n",
    "a: |#\n",  # a block scalar's header before a comment
    "a: |\n\n# x\n",
    "a: 1\n...\n",  # the document end marker
    "a: [1, 2\n",  # a syntax error: ruamel's message is the one shown
]


def takes_libyaml_path(text: str, max_depth: int = 64) -> bool:
    """Whether libyaml composes the whole text (a syntax error it finds is declined too)."""
    try:
        for root in yamlcompose.compose_documents(text, max_depth):
            yamlcompose._complete(root)
    except yamlcompose.DECLINED:
        return False
    return True


@pytest.mark.parametrize("text", TAKEN, ids=range(len(TAKEN)))
def test_what_both_read_alike_takes_the_libyaml_path(text: str) -> None:
    assert takes_libyaml_path(text)
    assert_same(text)


@pytest.mark.parametrize("text", DECLINED, ids=range(len(DECLINED)))
def test_what_only_ruamel_may_judge_is_declined(text: str) -> None:
    assert not takes_libyaml_path(text)
    assert_same(text)


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ("[[[]]]", True),
        ("[[[[]]]]", False),
        ("[[1]]", True),
        ("[[[1]]]", False),  # a scalar counts as a level
        ("{a: {b: {}}}", True),
        ("{a: {b: {c: 1}}}", False),
    ],
)
def test_nesting_beyond_the_limit_is_declined(text: str, taken: bool) -> None:
    assert takes_libyaml_path(text, 3) is taken


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: ! 12", 12),
        ("a: ! '12'", 12),  # ruamel.yaml resolves `!` as plain, quoted or not
        ("a: !!str 12", "12"),
        ("a: '12'", "12"),
        ("a:", None),
        ("a: ''", ""),
        ("a: ! [1, x]", [1, "x"]),
        ("a: ! {b: 2}", {"b": 2}),
    ],
)
def test_values_on_the_libyaml_path(text: str, expected: Any) -> None:
    assert takes_libyaml_path(text)
    (root,) = parse_documents(text, lambda *problem: None, VARIABLES.substitute)
    assert plain(root.value["a"]) == expected


def plain(node: Any) -> Any:
    if isinstance(node.value, dict):
        return {name: plain(child) for name, child in node.value.items()}
    if isinstance(node.value, list):
        return [plain(child) for child in node.value]
    return node.value

"""The two YAML paths agree: libyaml's composer (`yamlcompose`) and ruamel.yaml's pure-Python
parser give identical `Node` trees (values, positions, sizes) and identical problems, on
every manifest in the repository, on tricky hand-written texts and on generated ones. And
without libyaml, loading still works and gives the same results."""

from __future__ import annotations

import io
import os
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from reconciler.errors import ManifestError
from reconciler.manifest import load_manifest_text, yamlcompose
from reconciler.manifest.variables import Variables
from reconciler.manifest.yamltree import Node, parse_documents
from tests.manifest.test_fuzz import MANIFESTS, YAMLISH

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY_YAML = sorted(
    path
    for folder in ("examples", "tests", "reconciler", "schemas")
    for pattern in ("*.yaml", "*.yml")
    for path in (ROOT / folder).rglob(pattern)
)
VARIABLES = Variables({"HOME": "/home/x", "PORT": "8080"})
# YAML_EXAMPLES=5000 shakes the loaders harder than CI does (minutes, not seconds).
SETTINGS = settings(
    max_examples=int(os.environ.get("YAML_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

TRICKY = [
    "a: yes\nb: no\nc: on\nd: 0o17\ne: 017\nf: .inf\ng: -.INF\nh: .nan\ni: 0x1F\nj: 1_000\n",
    "d: 2027-01-31\nt: 2027-01-31T10:20:30Z\nu: 2027-01-31 10:20:30.5 +02:00\nbad: 2025-02-30\n",
    "n: ~\nm: null\nk: Null\ne:\nq: ''\nbool: [true, True, TRUE, false, tRue]\n",
    "x: !!str 12\ny: !!int '3'\nz: !!bool maybe\nw: !!float 1e3\nv: ! 12\nu: !local x\n",
    "s: !!set {a, b}\no: !!omap [a: 1]\nb: !!binary aGVsbG8=\n",
    "base: &b {x: 1, y: [1, 2]}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\nlist: [*b, *b]\n",
    "a: &a [1, *a]\n",
    "a: &x 1\nb: *y\n",
    "? [a, b]\n: c\n? {x: 1}\n: d\n",
    "a: 1\na: 2\nb: {c: 1, c: 2}\n",
    "key: |\n  line one\n  line two\nfolded: >-\n  folded\n  text\nkeep: |+\n  kept\n\n",
    '"quoted key": "a \\"b\\" \\u00e9 \\x41 \\/"\nplain: multi\n  line\n  plain\n',
    "- a\n-\n- - b\n  - c\n- {}\n- []\n-   \n",
    "---\na: 1\n...\n---\n---\nb: 2\n--- c\n",
    "%YAML 1.1\n---\na: yes\nb: 017\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "a:\n\tb: 1\n",
    "a: 1\r\nb:\r\n  - c\r\n  - 'd'\r\n",
    "a: caf\u00e9 \U0001f600\nb: '\U0001f600': x\n",
    "a: 1\x85b: 2\n",
    "a: [1, 2\nb: 3\n",
    "a: b: c\n",
    "a: ${HOME}\nb: ${UNSET_ONE}\nc: $${HOME}\nd: '${PORT}'\n",
    "<<: {a: 1}\n<<: [{b: 2}, {a: 3}]\nc: 4\n",
    "a: &anchor\n  b: &inner 1\n  c: *inner\nd: *anchor\ne: *inner\n",
    "[" * 70 + "]" * 70 + "\n",
    "a: &a [*a]\n",
    "&a a: &b b\n*a : *b\n",
    "users:\n  - username: x\n    custom_fields: {A: 1, B: 2.5, C: 2027-01-01, D: false}\n",
    "\ufeffa: 1\n",
    "a: 1 # comment\n# only a comment\nb: 'x' # another\n",
    "",
    "# nothing but a comment\n",
    "null\n",
    "'a': 1\n\"b\": 2\n? c\n: 3\n",
    "a: -\nb: - x\n",
    "a: \x07\n",
    "a: 'unclosed\n",
    "a: @b\n",
    "a: `b\n",
    "a: |\n  text\n   more\n  \tb\n",
    "a:    \n  - 1\n",
    "- &a\n- *a\n",
    "&0:",
    "a: &x: 1\nb: *x:\n",
    "a: &x@ [1]\nb: *x@\n",
    "a: &x 1\nb: [*x, *x]\nc: {k: *x}\n",
]


def trees_and_problems(text: str, libyaml: bool) -> tuple[list[Any], list[tuple[int, int, str]]]:
    problems: list[tuple[int, int, str]] = []
    roots = parse_documents(
        text,
        lambda line, column, message: problems.append((line, column, message)),
        VARIABLES.substitute,
        libyaml=libyaml,
    )
    return [shape(root) for root in roots], problems


def shape(node: Node) -> Any:
    """Everything a `Node` holds, as comparable data."""
    if isinstance(node.value, dict):
        assert node.keys is not None
        value: Any = {
            name: (shape(node.keys[name]), shape(child)) for name, child in node.value.items()
        }
    elif isinstance(node.value, list):
        value = [shape(child) for child in node.value]
    else:
        value = (type(node.value).__name__, repr(node.value))
    return (value, node.line, node.column, node.raw, node.size, node.depth)


def assert_same(text: str) -> None:
    assert trees_and_problems(text, libyaml=True) == trees_and_problems(text, libyaml=False)
    assert loaded(text, libyaml=True) == loaded(text, libyaml=False)


def loaded(text: str, libyaml: bool) -> Any:
    original = yamlcompose.CParser
    if not libyaml:
        yamlcompose.CParser = None
    try:
        result = load_manifest_text(text, "m.yaml", env={"HOME": "/home/x"})
    except ManifestError as exc:
        return exc.problems
    finally:
        yamlcompose.CParser = original
    return result.manifest.model_dump()


def takes_libyaml_path(text: str) -> bool:
    try:
        for root in yamlcompose.compose_documents(text, 64):
            yamlcompose._complete(root)
    except yamlcompose.Declined:
        return False
    return True


def test_libyaml_is_there() -> None:
    # The differential tests below are vacuous without it: the wheel ships libyaml.
    assert yamlcompose.libyaml_available()


@pytest.mark.parametrize("path", REPOSITORY_YAML, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_repository_yaml_file_loads_the_same(path: Path) -> None:
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    assert_same(text)


def test_well_formed_manifests_take_the_libyaml_path() -> None:
    examples = sorted((ROOT / "examples" / "acme").glob("*.yaml"))
    assert examples
    for path in examples:
        assert takes_libyaml_path(path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_tricky_texts_load_the_same(text: str) -> None:
    assert_same(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: yes", "yes"),
        ("a: 0o17", 15),
        ("a: .inf", float("inf")),
        ("a: 2027-01-31", date(2027, 1, 31)),
        ("a: 2027-01-31 10:20:30", datetime(2027, 1, 31, 10, 20, 30)),
        ("a: 017", 17),
        ("a: ~", None),
        ("a: '12'", "12"),
    ],
)
def test_plain_scalars_follow_yaml_1_2_on_the_libyaml_path(text: str, expected: Any) -> None:
    assert takes_libyaml_path(text)
    (root,) = parse_documents(text, lambda *problem: None, VARIABLES.substitute)
    assert root.value["a"].value == expected


def test_syntax_errors_keep_ruamel_messages() -> None:
    problems: list[tuple[int, int, str]] = []
    parse_documents("a: [1, 2\nb: 3\n", lambda *p: problems.append(p), VARIABLES.substitute)
    assert problems == trees_and_problems("a: [1, 2\nb: 3\n", libyaml=False)[1]
    assert problems and problems[0][2].startswith("invalid YAML: ")


def dump(data: Any, flow: bool | None, style: str | None) -> str:
    out = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = flow
    yaml.default_style = style  # type: ignore[assignment]
    yaml.dump(data, out)
    return out.getvalue()


@SETTINGS
@given(MANIFESTS, st.sampled_from([None, False, True]), st.sampled_from([None, '"', "'"]))
def test_generated_manifests_load_the_same(data: Any, flow: bool | None, style: str | None) -> None:
    assert_same(dump(data, flow, style))


@SETTINGS
@given(YAMLISH)
@example("&0:")  # libyaml read the anchor `0` before a colon; YAML 1.2 names it `0:`
@example("- &00:\n")
@example(">\n#")  # a comment line right after a block scalar's header
@example("<<: ")  # the parsers place an empty merge value at different columns: the key's
def test_generated_yamlish_text_loads_the_same(text: str) -> None:
    assert_same(text)


TOKENS = st.sampled_from(
    ["a", "b", ":", " ", "  ", "\n", "- ", "&x ", "*x", "<<", "[", "]", "{", "}", ",", "'",
     '"', "|", ">", "#", "?", "!!str ", "!", "yes", "0o7", "1", "2027-01-01", "~", "\t",
     "---\n", "...\n", "${HOME}", "\r\n"]
)  # fmt: skip


@SETTINGS
@given(st.lists(TOKENS, max_size=40).map("".join))
@example("|\r\n#")
@example("---\n...\n...\n")  # libyaml took it, ruamel refused a second document end
def test_generated_token_soup_loads_the_same(text: str) -> None:
    assert_same(text)

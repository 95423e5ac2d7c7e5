"""The two YAML paths agree: libyaml's composer (`yamlcompose`) and ruamel.yaml's pure-Python
parser give identical `Node` trees (values, positions, sizes) and identical problems, on
every manifest in the repository, on tricky hand-written texts and on generated ones. And
without libyaml, loading still works and gives the same results."""

# ruff: noqa: E501  (a row of a table is one line, whatever its length)

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
from reconciler.manifest import yamlcompose
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.variables import Variables
from reconciler.manifest.yamltree import MAX_DEPTH, Node, parse_documents
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


# What both YAML paths (libyaml's composer and ruamel.yaml's pure parser, which loads a text
# libyaml declines) give for merge keys, a date that is no date, and nesting at the limit, checked
# directly and fast (the comparison tests of the two paths are generated and slow to fail).

PATHS = pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure"])


def load(text: str, libyaml: bool) -> tuple[list[Any], list[tuple[int, int, str]]]:
    found: list[tuple[int, int, str]] = []
    documents = parse_documents(
        text, lambda line, column, message: found.append((line, column, message)),
        lambda value: (value, []), libyaml=libyaml,
    )  # fmt: skip
    return [document.plain() for document in documents], found


@PATHS
def test_merge_keys_merge_and_explicit_keys_win(libyaml: bool) -> None:
    text = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nn:\n  <<: [{a: 1}, *b]\n"
    assert load(text, libyaml) == (
        [{"base": {"x": 1, "y": 2}, "m": {"y": 3, "x": 1}, "n": {"a": 1, "x": 1, "y": 2}}],
        [],
    )


@PATHS
def test_a_date_that_is_no_date_is_text_for_the_field_to_judge(libyaml: bool) -> None:
    assert load("d: 2025-02-30\ne: 2027-01-31\n", libyaml) == (
        [{"d": "2025-02-30", "e": date(2027, 1, 31)}],
        [],
    )


def nested(levels: int) -> str:
    """A mapping holding lists `levels` deep: `levels` + 1 levels in all."""
    return "a: " + "[" * levels + "]" * levels + "\n"


@PATHS
def test_nesting_up_to_the_limit_loads_and_one_more_level_is_refused(libyaml: bool) -> None:
    assert load(nested(MAX_DEPTH - 1), libyaml) == ([{"a": nested_lists(MAX_DEPTH - 1)}], [])
    column = len("a: ") + MAX_DEPTH  # the bracket that opens the level too many
    assert load(nested(MAX_DEPTH), libyaml) == (
        [],
        [(1, column, "invalid YAML: nested deeper than 64 levels")],
    )


def nested_lists(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


NO_CONSTRUCTOR = "cannot read this value: could not determine a constructor for the tag"
# (id, text, the documents as plain data, the problems): the same on both paths.
TEXTS: list[tuple[str, str, list[Any], list[tuple[int, int, str]]]] = [
    ("a tab indenting a key", "a:\n\tb: 1\n", [], [(2, 1, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a tab after spaces", "a:\n  b: 1\n \tc: 2\n", [], [(3, 2, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a tab after a key", "a:\tb: c\n", [], [(1, 3, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a line indented by a tab where another token was expected", "a: [\n\t]]\n", [], [(2, 3, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a tab after the indentation", "a: b: c\t\n", [], [(1, 5, "invalid YAML: mapping values are not allowed here")]),
    ("an unclosed list", "a: [1, 2\nb: 3\n", [], [(2, 2, "invalid YAML: expected ',' or ']', but got ':' (while parsing a flow sequence at line 1, column 4)")]),
    ("an unclosed quote", "a: 'abc\n", [], [(2, 1, "invalid YAML: found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)")]),
    ("a NUL", "a: b\nc: d\x00e\n", [], [(2, 5, "a character YAML does not allow: #x0000")]),
    ("a bell", "a: b\x07\n", [], [(1, 5, "a character YAML does not allow: #x0007")]),
    ("a control character after an empty first line", "\na: b\x01\n", [], [(2, 5, "a character YAML does not allow: #x0001")]),
    ("a tag that builds an object", "a: !!python/name:os.system x\n", [{"a": None}], [(1, 4, f"{NO_CONSTRUCTOR} 'tag:yaml.org,2002:python/name:os.system'")]),
    ("a tag on a list", "a: !!set [1]\n", [{"a": [1]}], [(1, 4, "unsupported YAML tag '!!set'")]),
    ("no whole number", "a: !!int x\n", [{"a": None}], [(1, 4, "cannot read this value as !!int")]),
    ("no boolean", "a: !!bool maybe\n", [{"a": None}], [(1, 4, "cannot read this value as !!bool")]),
    ("a recursive alias", "a: &x [*x]\n", [{"a": [None]}], [(1, 8, "a recursive alias cannot be loaded")]),
    ("a list as a key", "? [1]\n: 2\n", [{}], [(1, 3, "a mapping key must be a plain value, not a collection")]),
    ("an alias as a key", "k: &k name\n*k : 3\n", [{"k": "name", "name": 3}], []),
    ("a merge of a number", "a:\n  <<: 1\n", [{"a": {}}], [(2, 7, "'<<' must name a mapping or a list of them")]),
    ("a key twice", "a: 1\nb: 2\na: 3\n", [{"a": 1, "b": 2}], [(3, 1, "duplicate key 'a' (first at line 1, column 1)")]),
    ("documents, empty ones and a broken one", "a: 1\n---\n---\nb: 2\n--- x: [\n", [{"a": 1}, {"b": 2}], [(5, 6, "invalid YAML: mapping values are not allowed here")]),
    ("a YAML version other than 1.x", "%YAML 2.0\n---\na: 1\n", [], [(1, 1, "invalid YAML: found incompatible YAML document (version 1.* is required)")]),
    ("the YAML directive twice", "%YAML 1.1\n%YAML 1.2\n---\na: 1\n", [], [(2, 1, "invalid YAML: found duplicate YAML directive")]),
    ("a tag handle declared twice", "%TAG ! !x\n%TAG ! !y\n---\na: 1\n", [], [(2, 1, "invalid YAML: duplicate tag handle '!'")]),
    ("a bad directive after two documents keeps them", "a: 1\n---\nb: 2\n...\n%YAML 9.0\n---\nc: 3\n", [{"a": 1}, {"b": 2}], [(5, 1, "invalid YAML: found incompatible YAML document (version 1.* is required)")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "documents", "problems"), [t[1:] for t in TEXTS], ids=[t[0] for t in TEXTS]
)
@PATHS
def test_what_each_text_loads_as_and_the_problems_at_their_place(
    text: str, documents: list[Any], problems: list[tuple[int, int, str]], libyaml: bool
) -> None:
    assert load(text, libyaml) == (documents, problems)


@PATHS
def test_an_empty_value_is_where_its_key_is(libyaml: bool) -> None:
    [document] = parse_documents(
        "a:\nb: 1\nc: ''\n", lambda *_: None, lambda value: (value, []), libyaml=libyaml
    )
    a, b, c = (document.child(name) for name in "abc")
    assert a is not None and (a.value, a.line, a.column) == (None, 1, 1)
    assert b is not None and (b.value, b.line, b.column) == (1, 2, 4)
    assert c is not None and (c.value, c.line, c.column) == ("", 3, 4)
    assert document.child(0) is None and document.child("d") is None


@PATHS
def test_aliases_may_expand_to_the_limit_and_not_one_node_more(libyaml: bool) -> None:
    # `a` is 100 nodes (a list of 99), used 1000 times: 100,000 nodes through aliases.
    text = "s: &s 1\na: &a [" + ", ".join(["1"] * 99) + "]\nb: [" + ", ".join(["*a"] * 1000)
    text += "]\n"
    documents, problems = load(text, libyaml)
    assert problems == [] and len(documents[0]["b"]) == 1000
    assert load(text + "c: *s\n", libyaml) == (
        [],
        [
            (
                4,
                4,
                "aliases expand to more than 100,000 nodes (an alias bomb?); the document is not loaded",
            )
        ],
    )


def test_libyaml_false_or_libyaml_missing_parses_with_ruamel_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`libyaml=False` (and a machine without libyaml) never reaches the C composer."""
    import reconciler.manifest.yamltree as yamltree

    def refused(text: str, max_depth: int) -> Any:
        raise AssertionError("the libyaml path was taken")

    monkeypatch.setattr(yamltree, "compose_documents", refused)
    assert load("a: [1, {b: c}]\n", libyaml=False) == ([{"a": [1, {"b": "c"}]}], [])
    monkeypatch.setattr(yamltree, "libyaml_available", lambda: False)
    assert load("a: 1\n", libyaml=True) == ([{"a": 1}], [])


# The nesting limit reached through aliases, at its boundary: a value whose aliases nest exactly
# 64 levels deep loads, one level more is refused at the alias that goes too deep. An empty list
# or mapping is one level (it nests nothing), the case where counting its depth from 1 instead of
# 0 would refuse a document one level early.


def chain(leaf: str, aliases: int) -> str:
    """An employee whose open field `a0` is `leaf` and each `aN` a list of `a(N-1)`: `aN`
    holds N+1 levels when `leaf` is empty, and starts at level 5 of the document (the
    top mapping, `workspace`, `employees`, the employee, then the field's value)."""
    lines = "".join(f"      a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, aliases + 1))
    return f"workspace:\n  employees:\n    - email: a@b.c\n      a0: &a0 {leaf}\n" + lines


def wrapped(value: Any, lists: int) -> Any:
    for _ in range(lists):
        value = [value]
    return value


@pytest.mark.parametrize(("leaf", "empty"), [("[]", []), ("{}", {})], ids=["list", "mapping"])
def test_aliases_of_an_empty_value_nest_to_the_limit_and_no_further(leaf: str, empty: Any) -> None:
    at_limit = MAX_DEPTH - 5  # a59: levels 5 to 64
    desired = load_manifest_text(chain(leaf, at_limit), "chain.yaml")
    workspace = desired.manifest.workspace
    assert workspace is not None
    [employee] = workspace.employees
    assert employee.model_dump()[f"a{at_limit}"] == wrapped(empty, at_limit)

    with pytest.raises(ManifestError) as caught:
        load_manifest_text(chain(leaf, at_limit + 1), "chain.yaml")
    # The alias `*a59` in the last line's list, where a60 would reach 65 levels.
    assert caught.value.problems == [
        f"chain.yaml:{4 + at_limit + 1}:18: aliases nest deeper than {MAX_DEPTH} levels"
    ]


def test_a_syntax_error_ruamel_gives_no_place_for_is_reported_at_the_first_character() -> None:
    # ruamel's MarkedYAMLError may carry neither a problem nor a context mark: the message
    # still names a place a reader can go to, the file's first line and column.
    from ruamel.yaml.error import MarkedYAMLError

    from reconciler.manifest.yamltree import _syntax_problem

    assert _syntax_problem(MarkedYAMLError(), "a: b\n") == (1, 1, "invalid YAML: syntax error")
    assert _syntax_problem(MarkedYAMLError(problem="bad"), "") == (1, 1, "invalid YAML: bad")

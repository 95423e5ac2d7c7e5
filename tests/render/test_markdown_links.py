"""Changes linked to their manifest line in a pull-request comment (`--source-url`,
render/markdown_blocks.py): the link each source gives (or none, where it would lead
nowhere), the per-kind counts, and a long change cut between lines into blocks under the
same link, each within a part's share."""

from __future__ import annotations

import itertools
import re

import pytest

from reconciler.plans import Action, Change, FieldChange
from reconciler.render.markdown_blocks import (
    Section,
    diff_block,
    kind_sections,
    kind_summary,
    source_link,
)


@pytest.mark.parametrize(
    ("base", "source", "link"),
    [
        (
            "https://github.com/o/r/blob/SHA/",
            "m/users.yaml:12",
            "https://github.com/o/r/blob/SHA/m/users.yaml#L12",
        ),
        (
            "https://github.com/o/r/blob/SHA",
            "users.yaml:3",
            "https://github.com/o/r/blob/SHA/users.yaml#L3",
        ),
        ("https://x/(a)", "./a b.yaml:3", "https://x/(a%29/a%20b.yaml#L3"),
        ("B", "a#b%.yaml:1", "B/a%23b%25.yaml#L1"),
        ("B", "dir\\x.yaml:2", "B/dir%5Cx.yaml#L2"),
        ("B", "x.yaml:1:5", "B/x.yaml%3A1#L5"),
        ("B", "/abs/x.yaml:1", None),
        ("B", "../x.yaml:1", None),
        ("B", "a/../../x.yaml:1", None),
        ("B", "..\\x.yaml:1", None),
        ("B", "C:\\x.yaml:2", None),
        ("B", "C:x.yaml:2", None),
    ],
)
def test_the_link_of_a_source(base: str, source: str, link: str | None) -> None:
    assert source_link(base, source) == link


def test_the_counts_of_a_kind_name_only_the_actions_it_has() -> None:
    members = [
        Change("users", "a", Action.create),
        Change("users", "b", Action.delete),
        Change("users", "c", Action.create),
        Change("users", "d", Action.disable),
    ]
    assert kind_summary(members) == "2 to create, 1 to delete, 1 to disable"
    assert kind_summary([Change("u", str(i), Action.update) for i in range(1_200)]) == (
        "1,200 to update"
    )


def test_one_folded_section_per_kind_in_the_order_they_come() -> None:
    changes = [
        Change("users", "a", Action.create, source="u.yaml:3", renamed_from="b"),
        Change("companies", "Acme", Action.delete),
        Change("users", "c```x", Action.update, fields=(FieldChange("n", "```", "x"),)),
    ]
    users, companies = kind_sections(changes, "https://h/blob/S", None)
    assert users == Section(
        opening="<details><summary>users: 1 to create, 1 to update</summary>\n\n",
        reopening="<details><summary>users (continued)</summary>\n\n",
        closing="</details>\n\n",
        items=(
            '[`users["a"]`](https://h/blob/S/u.yaml#L3) (was `users["b"]`)\n\n```diff\n'
            '+ users["a"] (was users["b"])\n  # from u.yaml:3\n```\n\n',
            '````users["c```x"]````\n\n````diff\n! users["c```x"]\n-     n: "```"\n'
            '+     n: "x"\n````\n\n',
        ),
    )
    assert companies.opening == "<details><summary>companies: 1 to delete</summary>\n\n"
    assert companies.items == ('`companies["Acme"]`\n\n```diff\n- companies["Acme"]\n```\n\n',)
    (absolute,) = kind_sections(
        [Change("users", "a", Action.create, source="/etc/u.yaml:3")], "https://h", None
    )
    assert absolute.items[0].startswith('`users["a"]`\n\n```diff\n')


def _pieces(section: Section) -> list[str]:
    found = []
    for item in section.items:
        match = re.fullmatch(r"(.*?)\n\n```diff\n(.*)```\n\n", item, re.DOTALL)
        assert match is not None, item
        found.append((match.group(1), match.group(2)))
    heads = [head for head, _ in found]
    assert heads[0] == '[`users["a"]`](https://h/u.yaml#L3)'
    assert heads[1:] == [heads[0] + " (continued)"] * (len(heads) - 1)
    return [piece for _, piece in found]


@pytest.mark.parametrize(("limit", "share"), [(600, 200), (300, 200), (900, 300)])
def test_a_long_change_is_cut_between_lines_within_a_third_of_a_part(
    limit: int, share: int
) -> None:
    change = Change(
        "users",
        "a",
        Action.update,
        fields=tuple(FieldChange(f"f{i}", "x" * 50, "y" * 50) for i in range(10)),
        source="u.yaml:3",
    )
    (section,) = kind_sections([change], "https://h", limit)
    pieces = _pieces(section)
    assert "".join(pieces) == diff_block(change)
    assert all(len(piece) <= share for piece in pieces)
    assert all(piece.endswith("\n") for piece in pieces)
    # each piece as full as whole lines allow: the next line would not have fitted
    for piece, after in itertools.pairwise(pieces):
        assert len(piece) + len(after.splitlines(keepends=True)[0]) > share


def test_a_line_longer_than_the_share_is_cut_itself() -> None:
    change = Change(
        "users",
        "a",
        Action.update,
        fields=(FieldChange("notes", "x", "y" * 450),),
        source="u.yaml:3",
    )
    (section,) = kind_sections([change], "https://h", 600)
    pieces = _pieces(section)
    assert all(len(piece) <= 200 for piece in pieces)
    assert [len(piece) for piece in pieces[1:-1]] == [200] * (len(pieces) - 2)
    assert "".join(p.removesuffix("\n") if len(p) == 200 else p for p in pieces) == diff_block(
        change
    )
    (whole,) = kind_sections([change], "https://h", None)
    assert len(whole.items) == 1

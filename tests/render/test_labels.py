"""Field labels: `path:` cleaned and padded to the change's width in terminal cells. The
label of a path is computed once per run (render/values.py `_label_cells`); the same path
must give the same label at every width, in any order of calls."""

from __future__ import annotations

import pytest

from reconciler.plans import FieldChange
from reconciler.render.values import label, label_width

# (path, width, expected label): plain, wide characters (two cells each), a control
# character shown as its escape, a path longer than the width (not padded).
CASES = [
    ("name", 6, "name: "),
    ("name", 5, "name:"),
    ("name", 9, "name:    "),
    ("名前", 8, "名前:   "),
    ("名前", 5, "名前:"),
    ("a\tb", 7, "a\\tb:  "),
    ("a\x1bb", 8, "a\\x1bb: "),
    ("very_long_field_name", 4, "very_long_field_name:"),
]


@pytest.mark.parametrize(("path", "width", "expected"), CASES)
def test_label(path: str, width: int, expected: str) -> None:
    assert label(path, width) == expected
    assert label(path, width) == expected  # again, from what was kept


def test_same_path_at_other_widths_in_any_order() -> None:
    shown = [label(path, width) for path, width, _ in reversed(CASES)]
    assert shown == [expected for _, _, expected in reversed(CASES)]


@pytest.mark.parametrize(
    ("paths", "width"),
    [
        (("name", "email"), 6),  # `email:` is six cells
        (("名前", "id"), 5),  # two wide characters and the colon
        (("a\x1bb",), 7),  # the escape counts, not the raw character
        (("x" * 30, "id"), 31),  # the longest that still aligns
        (("x" * 31, "id"), 3),  # longer ones stick out and do not widen the others
        ((), 0),
    ],
)
def test_label_width(paths: tuple[str, ...], width: int) -> None:
    fields = tuple(FieldChange(path, None, 1) for path in paths)
    assert label_width(fields) == width
    assert label_width(fields) == width

"""The sections the Markdown parts are packed from (`markdown.py`), and the form of the
changes when each links to its manifest line (`--source-url`): a link cannot sit inside
a code block, so each change gets its own small diff block under its linked address."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import quote, urlsplit

from reconciler.applied.labels import Cause
from reconciler.errors import UsageError
from reconciler.plans import Action, Change
from reconciler.render.markdown_blocks import (
    code_span,
    diff_block,
    html_text,
    longest_backtick_run,
)


@dataclass(frozen=True)
class Section:
    """Items under an opening, closed by `closing`; when the items go on in a later part
    the section is opened there again with `reopening`. `lines` sections (code blocks)
    may split an item between two of its lines."""

    opening: str
    closing: str = ""
    items: tuple[str, ...] = ()
    reopening: str = ""
    separator: str = ""
    lines: bool = False


def group_by_kind(changes: Sequence[Change]) -> dict[str, list[Change]]:
    """Kinds in the order they first appear, changes in plan order within a kind."""
    by_kind: dict[str, list[Change]] = {}
    for change in changes:
        by_kind.setdefault(change.kind, []).append(change)
    return by_kind


def kind_summary(members: Sequence[Change]) -> str:
    counts = dict.fromkeys(Action, 0)
    for change in members:
        counts[change.action] += 1
    return ", ".join(f"{n:,} to {action.value}" for action, n in counts.items() if n)


def _linked(base: str, source: str) -> str:
    """An overlay's `file:line`, linked to its line where `source_link` can."""
    link = source_link(base, source)
    return f"[{code_span(source)}]({link})" if link else code_span(source)


def checked_source_url(base: str) -> str:
    """`base` (`--source-url`) if it is an http:// or https:// URL with a host, else a
    `UsageError`: it becomes the start of links in comments and pages, where a
    `javascript:` or `data:` one would run or show whatever it holds when clicked."""
    try:
        parts = urlsplit(base)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--source-url {base!r}: not an http:// or https:// URL (e.g. "
            "https://github.com/ORG/REPO/blob/COMMIT)"
        )
    return base


def source_link(base: str, source: str) -> str | None:
    """`BASE/path/to/file.yaml#L12` for the source `path/to/file.yaml:12`; None for a
    file named by an absolute path or one above the working directory (`../x.yaml`):
    BASE stands for the working directory (the repository's root in CI), so such a link
    would lead nowhere; the change's block still names the source. BASE is checked once,
    where it is given (`checked_source_url`)."""
    file, _, line = source.rpartition(":")
    relative = PurePosixPath(file.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts or PureWindowsPath(file).drive:
        return None
    path = quote(file.removeprefix("./"))  # keeps "/" (quote's default)
    return f"{base.rstrip('/').replace(')', '%29')}/{path}#L{line}"


def linked_kind_sections(
    changes: Sequence[Change],
    base: str,
    limit: int | None,
    causes: Mapping[str, Cause] | None = None,
) -> list[Section]:
    """One folded section per kind; in it, per change, its address linked to its
    manifest line, then its diff block (with the change's cause, when `causes` has
    one). A block too long for a part is cut between lines into several blocks under the
    same link."""
    chunk = None if limit is None else max(200, limit // 3)
    sections = []
    for kind, members in group_by_kind(changes).items():
        items: list[str] = []
        for change in members:
            name = code_span(change.address)
            link = source_link(base, change.source) if change.source else None
            head = f"[{name}]({link})" if link else name
            if change.refined_at:
                head += " (refined at " + ", ".join(_linked(base, at) for at in change.refined_at)
                head += ")"
            if change.former_address is not None:
                head += f" (was {code_span(change.former_address)})"
            block = diff_block(change, None if causes is None else causes.get(change.address))
            fence = "`" * max(3, longest_backtick_run(block) + 1)
            for index, piece in enumerate(_chunks(block, chunk)):
                label = head if index == 0 else f"{head} (continued)"
                items.append(f"{label}\n\n{fence}diff\n{piece}{fence}\n\n")
        title = html_text(kind)
        sections.append(
            Section(
                opening=f"<details><summary>{title}: {kind_summary(members)}</summary>\n\n",
                reopening=f"<details><summary>{title} (continued)</summary>\n\n",
                closing="</details>\n\n",
                items=tuple(items),
            )
        )
    return sections


def _chunks(block: str, size: int | None) -> list[str]:
    if size is None or len(block) <= size:
        return [block]
    pieces, piece = [], ""
    for line in block.splitlines(keepends=True):
        while len(line) > size:
            if piece:
                pieces.append(piece)
                piece = ""
            pieces.append(line[: size - 1] + "\n")
            line = line[size - 1 :]
        if len(piece) + len(line) > size:
            pieces.append(piece)
            piece = ""
        piece += line
    return [*pieces, piece] if piece else pieces

"""Links inside the repository are relative and lead somewhere in a fresh clone (and so in
a fork): every relative link of README.md, docs/*.md and the examples' READMEs names a
file or directory inside the clone, and a heading of it where it names one. The project's
address is written once, in pyproject.toml's [project.urls], and nowhere else."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
URLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
REPOSITORY = URLS["Repository"]
DOCUMENTS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "examples").rglob("README.md")]
)
# Inline links [text](target "title") and reference definitions [name]: target.
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)
CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.MULTILINE | re.DOTALL)


# Pages other helpers are writing at the same time as the README that lists them (issue
# 20): until they are merged, a link to one of these, and only these, may lead nowhere.
def links(document: Path) -> list[str]:
    text = CODE.sub("", document.read_text(encoding="utf-8"))
    return [inline or reference for inline, reference in LINK.findall(text)]


def github_anchors(document: Path) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings (a repeated one gets -1, -2...)."""
    text = re.sub(r"^```.*?^```", "", document.read_text(encoding="utf-8"), flags=re.M | re.S)
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+?)#*\s*$", text, re.MULTILINE):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
        slug = re.sub(r"[^\w\- ]", "", plain.strip().lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in anchors:
            n += 1
            candidate = f"{slug}-{n}"
        anchors.add(candidate)
    return anchors


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_clone(document: Path) -> None:
    broken = []
    for link in links(document):
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto: ...
            continue
        path, _, anchor = link.partition("#")
        target = (document.parent / path).resolve() if path else document
        try:
            inside = target.relative_to(ROOT).as_posix()
        except ValueError:
            broken.append(f"{link}: outside the clone")
            continue
        if not target.exists():
            broken.append(f"{link}: no such file")
            continue
        if anchor and target.suffix == ".md" and anchor not in github_anchors(target):
            broken.append(f"{link}: no heading #{anchor} in {inside}")
    assert broken == []


def test_the_readme_links_to_the_docs() -> None:
    # The README's table of links: everything beyond the two commands and the tour.
    assert sum(link.startswith("docs/") for link in links(ROOT / "README.md")) >= 15


def tracked_files() -> list[Path]:
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return [ROOT / name for name in listing.split("\0") if name]


def test_the_project_address_is_written_only_in_the_package_metadata() -> None:
    host_and_path = REPOSITORY.split("://", 1)[1]
    found = []
    for path in tracked_files():
        if path.name == "pyproject.toml" or not path.is_file():
            continue
        # The CI recipes install the tool from its repository (no release is published):
        # a pip requirement must be written out, and tests/ci/test_files.py holds it to
        # `[project.urls] Repository`.
        if path.relative_to(ROOT).parts[:2] == ("examples", "ci"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if host_and_path in text:
            found.append(str(path.relative_to(ROOT)))
    assert found == []


def test_the_project_urls_are_the_repository() -> None:
    for name, url in URLS.items():
        assert url.startswith(REPOSITORY), name


@pytest.mark.parametrize(
    "example", sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir()), ids=lambda p: p.name
)
def test_every_example_has_a_readme(example: Path) -> None:
    """What the example holds and how to run it, where a reader of the folder looks first."""
    assert (example / "README.md").is_file(), f"{example.relative_to(ROOT)} has no README.md"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_sends_the_reader_to_api_specs_outside_the_clone(document: Path) -> None:
    """The services' API references are not in the repository: a page that needs the
    calls and their parameters links docs/sandbox.md ("What it serves"), which lists them."""
    named = re.findall(r"\bspec/[\w.-]+\.md", document.read_text(encoding="utf-8"))
    assert [name for name in named if not (ROOT / name).exists()] == []

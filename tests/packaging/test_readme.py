"""The README is the package's description on the index, where a relative link leads
nowhere: every link is absolute, and those into the repository name files and headings
that exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
URLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
REPOSITORY = URLS["Repository"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def github_anchor(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def test_every_link_is_absolute() -> None:
    links = LINK.findall(README)
    assert links
    assert [link for link in links if not link.startswith("https://")] == []


def test_links_into_the_repository_name_what_exists() -> None:
    anchors = {github_anchor(h) for h in re.findall(r"^#+ (.+)$", README, re.MULTILINE)}
    checked = 0
    for link in LINK.findall(README):
        if not link.startswith(REPOSITORY):
            continue
        rest = link[len(REPOSITORY) :]
        if rest.startswith("#"):
            assert rest[1:] in anchors, link
        elif rest:
            match = re.fullmatch(r"/(?:blob|tree)/main/([^#]+)(?:#.*)?", rest)
            assert match, link
            assert (ROOT / match[1]).exists(), link
        checked += 1
    assert checked >= 10


def test_the_project_urls_are_the_repository() -> None:
    for name, url in URLS.items():
        assert url.startswith(REPOSITORY), name

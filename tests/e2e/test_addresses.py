"""`--target`/`--exclude` take every address the plan prints, `KIND` and `KIND/KEY`; one
that names nothing (no manifest entry, no live object) is an error naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.plans.addresses import Selector, split_address
from tests.e2e.test_plan_cli import run, workdir  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('users["dmitri"]', ("users", "dmitri")),
        ("users/dmitri", ("users", "dmitri")),
        ("users", ("users", None)),
        ('companies["Say \\"hi\\" \\\\ Co"]', ("companies", 'Say "hi" \\ Co')),
        ('workspace.employees["a@b.c"]', ("workspace.employees", "a@b.c")),
        ("assets/SN/with/slashes", ("assets", "SN/with/slashes")),
    ],
)
def test_addresses_as_printed_and_as_kind_slash_key(
    text: str, expected: tuple[str, str | None]
) -> None:
    assert split_address(text) == expected
    selector = Selector.parse(text)
    assert (selector.kind, selector.key) == expected


def test_a_printed_address_targets_that_change(workdir: Path) -> None:  # noqa: F811
    done = run(workdir, "plan", "acme", "--sandbox", "--format", "json",
               "--target", 'users["dmitri"]')  # fmt: skip
    assert done.returncode == 0, done.stderr
    addresses = [c["address"] for c in json.loads(done.stdout)["changes"]]
    assert 'users["dmitri"]' in addresses
    assert all(a == 'users["dmitri"]' or not a.startswith("users[") for a in addresses)

    left_out = run(workdir, "plan", "acme", "--sandbox", "--format", "json",
                   "--exclude", 'users["dmitri"]')  # fmt: skip
    assert 'users["dmitri"]' not in left_out.stdout


def test_a_target_that_names_nothing_is_an_error(workdir: Path) -> None:  # noqa: F811
    done = run(workdir, "plan", "acme", "--sandbox", "--target", 'users["dmitry"]')
    assert done.returncode == 1
    assert '--target users["dmitry"] matches no manifest entry and no live object' in (
        done.stdout + done.stderr
    )
    # A live object in no manifest is something: no error (here the seed's admin).
    quiet = run(workdir, "plan", "acme", "--sandbox", "--exclude", "users/admin")
    assert "matches no manifest entry" not in quiet.stdout + quiet.stderr

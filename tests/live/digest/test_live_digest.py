"""The stale-plan guard: a saved plan records `live_digest`, and apply refuses it when the
live state's digest has changed since. So whatever the plan reads must be in the digest.

For each kind, a manifest that makes the plan read (and carry, in complete records) as
much as it can, and a live snapshot. Every value in the snapshot is changed in turn, and
every list item dropped: whenever that changes the plan, it must change the digest too.
Each kind (`kinds/*.yaml`: adding one is adding a file) lists the snapshot values that
must be among those (so that the test cannot pass by planning nothing), and the volatile
ones that must not change the digest."""

from __future__ import annotations

import asyncio
import copy
import datetime
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.errors import ApiError, MalformedAnswer
from reconciler.kinds.register import RESOURCES
from reconciler.live import LiveState, read_live
from reconciler.manifest.loader import load_manifests
from reconciler.planning.plan import plan, prune_kinds
from reconciler.plans import Plan
from tests.planning.fakes import MissingFromSnapshot, SnapshotClient

Path_ = tuple[Any, ...]

KINDS = {p.stem: p for p in sorted((Path(__file__).parent / "kinds").glob("*.yaml"))}


def load(name: str) -> dict[str, Any]:
    """`manifest` (the text), `live` (the snapshot), `must_change` (paths into it),
    optionally `volatile` (paths) and `replacements` (`at`, `old`, `new`: text edits of a
    string value, for XML answers)."""
    return dict(YAML(typ="safe").load(KINDS[name].read_text()))


class RenumberedSnapshot(SnapshotClient):
    """A snapshot whose object ids may have been changed: a per-object read of an id the
    snapshot does not hold (`User?userId=6` after 5 became 6) gets the one answer it
    holds for that call."""

    def _get(self, key: str) -> Any:
        if key not in self.snapshot and "=" in key:
            call = key.split("=")[0]
            same = [k for k in self.snapshot if k.split("=")[0] == call]
            if len(same) == 1:
                self.snapshot[key] = self.snapshot[same[0]]
        return super()._get(key)


def planned(manifest: Path, live: dict[str, Any]) -> Plan:
    desired = load_manifests([manifest], env={})
    helpdesk = RenumberedSnapshot(live.get("helpdesk") or {})
    workspace = RenumberedSnapshot(live.get("workspace") or {})
    pruned = prune_kinds(desired)
    state = asyncio.run(
        read_live(desired, RESOURCES, helpdesk=helpdesk, workspace=workspace, prune=pruned)
    )
    return plan(desired, state, resources=RESOURCES)


def without_digest(result: Plan) -> dict[str, Any]:
    out = result.to_dict()
    out.pop("live_digest")
    return out


def changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x" if value else "x"
    if value is None:
        return "x"
    raise TypeError(value)


def alterations(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, str, Any]]:
    """(path, what, new value) for every leaf changed and every list item dropped."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from alterations(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield path, f"drop item {index}", value[:index] + value[index + 1 :]
            yield from alterations(item, (*path, index))
    else:
        yield path, "change", changed(value)


def replaced(snapshot: dict[str, Any], path: Path_, new: Any) -> dict[str, Any]:
    out = copy.deepcopy(snapshot)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return out


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_whatever_changes_the_plan_changes_the_digest(kind: str, tmp_path: Path) -> None:
    setup = load(kind)
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(setup["manifest"])
    base = planned(manifest, setup["live"])
    assert base.changes, "the setup must plan changes, or the test proves nothing"
    variants = list(alterations(setup["live"]))
    for edit in setup.get("replacements", []):
        where, old = tuple(edit["at"]), edit["old"]
        text = setup["live"][where[0]][where[1]]
        assert old in text
        variants.append((where, f"replace {old!r}", text.replace(old, edit["new"])))
    plan_changed: set[Path_] = set()
    missed = []
    for path, what, new in variants:
        try:
            result = planned(manifest, replaced(setup["live"], path, new))
        except (MalformedAnswer, ApiError):  # a value the reader refuses: not a live state
            continue
        except MissingFromSnapshot:  # an id changed to one whose own read the case lacks
            continue
        if without_digest(result) != without_digest(base):
            plan_changed.add(path)
            if result.live_digest == base.live_digest:
                missed.append(f"{what} at {path}")
        if path in [tuple(v) for v in setup.get("volatile", [])]:
            assert result.live_digest == base.live_digest, f"{path} is volatile"
    assert missed == [], "the plan changed but the digest did not"
    for path in setup["must_change"]:
        assert tuple(path) in plan_changed, f"changing {path} should change the plan"
    assert len(plan_changed) >= len(setup["must_change"])


def test_the_digest_is_the_same_for_the_same_live_state(tmp_path: Path) -> None:
    setup = load("users")
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(setup["manifest"])
    first = planned(manifest, setup["live"]).live_digest
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 64
    assert planned(manifest, copy.deepcopy(setup["live"])).live_digest == first


# The live state's digest (live/__init__.py `LiveState.digest`), which a saved plan records and
# apply compares: its exact form, so that a plan saved by one release is not refused as stale by
# the next while the live state is unchanged. The kinds and keys in sorted order, compact JSON,
# ASCII escapes, dates as text, sha256 of that.


class Read:
    def __init__(self, data: Any) -> None:
        self.data = data

    def digest_data(self) -> Any:
        return self.data


def test_the_digest_of_a_live_state_in_full() -> None:
    state = LiveState(
        {  # type: ignore[dict-item]
            "users": Read({"b": [1, "é"], "a": datetime.date(2026, 1, 5)}),
            "companies": Read([{"Name": "Acme", "ID": 3}]),
        },
        skipped=("employees",),  # neither what was skipped
        full=frozenset({"users"}),  # nor what was read in full is in it
    )
    blob = '{"companies":[{"ID":3,"Name":"Acme"}],"users":{"a":"2026-01-05","b":[1,"\\u00e9"]}}'
    assert state.digest() == "sha256:" + hashlib.sha256(blob.encode()).hexdigest()
    assert state.digest() == (
        "sha256:cda1c4789c58a51f88059ee726133deea9a2a309780cef8cb286c966ca3f59b6"
    )
    assert LiveState({}).digest() == (
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"  # of {}
    )

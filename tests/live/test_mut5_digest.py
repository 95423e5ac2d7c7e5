"""The live state's digest (live/__init__.py `LiveState.digest`), which a saved plan
records and apply compares: its exact form, so that a plan saved by one release is not
refused as stale by the next while the live state is unchanged. The kinds and keys in
sorted order, compact JSON, ASCII escapes, dates as text, sha256 of that."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

from reconciler.live import LiveState


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

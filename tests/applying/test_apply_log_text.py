"""The apply log's text as a reader greps it (applying/log.py): one compact JSON object a
line (`grep '"outcome":"failed"'` finds the failures), keys in the order written, a value
JSON has no type for written as its text, the time in UTC."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reconciler.applying.log import ApplyLog


def test_each_record_is_one_compact_line(tmp_path: Path) -> None:
    path = tmp_path / "apply.jsonl"
    with ApplyLog(path) as log:
        log.record({"address": 'users["ann"]', "outcome": "failed", "message": "400 bad", "n": 1.5})
        log.record({"address": 'assets["S1"]', "outcome": "ok", "created_id": Path("a/b")})
        log.event("end", result="stopped", done=0)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == [
        '{"address":"users[\\"ann\\"]","outcome":"failed","message":"400 bad","n":1.5}',
        '{"address":"assets[\\"S1\\"]","outcome":"ok","created_id":"a/b"}',
    ]
    assert re.fullmatch(
        r'\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ","event":"end","result":"stopped","done":0\}',
        lines[2],
    )
    assert len(lines) == 3


def test_a_record_outside_the_with_block_is_refused_by_name(tmp_path: Path) -> None:
    log = ApplyLog(tmp_path / "apply.jsonl")
    with log:
        log.event("start")
    with pytest.raises(RuntimeError) as refused:
        log.record({"event": "too late"})
    assert str(refused.value) == "the apply log is not open"
    assert (tmp_path / "apply.jsonl").read_text(encoding="utf-8").count("\n") == 1

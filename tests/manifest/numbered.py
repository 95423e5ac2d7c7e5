"""Manifest files written as `0.yaml`, `1.yaml` ... in the working directory and loaded in
that order, so that messages name them as short relative paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *texts: str) -> DesiredState:
    monkeypatch.chdir(tmp_path)
    for index, text in enumerate(texts):
        Path(f"{index}.yaml").write_text(text, encoding="utf-8")
    return load_manifests([Path(f"{index}.yaml") for index in range(len(texts))], {})

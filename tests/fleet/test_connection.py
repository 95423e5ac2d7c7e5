"""Each environment of a run over several gets its own connection: its URLs and
credentials, its own rate limits, and the command's --timeout (fleet/plans.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.clients.connection import RateSettings, Timeouts
from reconciler.fleet.plans import PlanRequest, prepare
from reconciler.project import load_project, resolve

PROJECT = """\
environments:
  acme:
    paths: [m.yaml]
    helpdesk_url: http://127.0.0.1:9/acme/helpdesk
    credentials: {HELPDESK_TOKEN: ACME_TOKEN}
    rate_limit: 30
  globex:
    paths: [m.yaml]
    helpdesk_url: http://127.0.0.1:9/globex/helpdesk
    credentials: {HELPDESK_TOKEN: GLOBEX_TOKEN}
"""


# (environment, the command's timeout, the timeout, the rate limit its connection gets)
CASES = [
    ("acme", Timeouts(7), 7, 30),
    ("globex", Timeouts(7), 7, 90),
    ("globex", Timeouts(), Timeouts().seconds, 90),
]


@pytest.mark.parametrize(("name", "timeouts", "seconds", "rate"), CASES)
def test_each_connection_has_its_own_limits_and_the_commands_timeout(
    tmp_path: Path, name: str, timeouts: Timeouts, seconds: float, rate: int
) -> None:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "m.yaml").write_text("departments: [{name: IT}]\n", encoding="utf-8")
    target = resolve(load_project(tmp_path / "reconciler.yaml"), name)
    environ = {"ACME_TOKEN": "a-secret", "GLOBEX_TOKEN": "g-secret"}
    request = PlanRequest(rates=RateSettings(90, 60), timeouts=timeouts)
    prepared = prepare(target, environ, request)
    assert prepared.error is None, prepared.error
    connection = prepared.connection
    assert connection is not None and connection.helpdesk is not None
    assert connection.helpdesk.url == f"http://127.0.0.1:9/{name}/helpdesk"
    assert connection.timeouts.seconds == seconds
    assert connection.rates.general == rate
    assert connection.environment == name

"""`plan --junit`: a credential that reached a plan (a value pasted into a manifest, an
error quoting it, an environment's name) never reaches the JUnit file, wherever it is
shown: the suite's name, the cases' class names, a failure's text, an error's message."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.masking import REDACTED, install, register
from reconciler.plans import Action, Change, Diagnostic, FieldChange, Plan
from reconciler.report.digest import Planned
from reconciler.report.junit import junit_xml

SECRET = "s3cr3t-v4lue"


@pytest.fixture(autouse=True)
def masked() -> Iterator[None]:
    install({})
    register(SECRET)
    yield
    install({})


def test_a_credential_is_masked_everywhere_in_the_file() -> None:
    change = Change("companies", "Acme", Action.update, fields=(FieldChange("notes", SECRET, "x"),))
    failed = Plan(
        changes=(),
        errors=(Diagnostic("error", f"refused {SECRET}", location=f"{SECRET}.yaml:1"),),
    )
    text = junit_xml(
        [
            Planned(Plan((change,)).to_dict(), f"env-{SECRET}"),
            Planned(failed.to_dict(), f"b-{SECRET}"),
        ]
    )
    assert SECRET not in text
    assert f'name="reconciler plan: env-{REDACTED}"' in text
    assert f'classname="reconciler.env-{REDACTED}"' in text
    assert f"notes: '{REDACTED}' -&gt; 'x'" in text
    assert f'message="{REDACTED}.yaml:1: refused {REDACTED}"' in text

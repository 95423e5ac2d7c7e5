"""`live_value` (manifest/renames.py), what a reader looks at for an entry: the live object
of its key, else the one live object its former keys name, found by itself when the
reader does not hand it the entries' former keys (the readers of companies and users do,
once for every entry: issue 25)."""

from __future__ import annotations

from reconciler.manifest import load_manifest_text
from reconciler.manifest.kinds import spec
from reconciler.manifest.renames import formers_of, live_value

MANIFEST = """\
companies:
  - name: Acme Group
    previously: [Acme, ACME Ltd]
  - name: Initech
    previously: [Initrode]
  - name: Globex
"""


def test_an_entry_stands_for_the_live_object_of_its_one_live_former_key() -> None:
    desired = load_manifest_text(MANIFEST)
    row = spec("companies")
    live = {"acme": "live Acme", "initech": "live Initech", "initrode": "live Initrode"}
    formers = formers_of(desired, row)
    for given in (None, formers):
        assert live_value(desired, row, "Acme Group", live, given) == "live Acme"
        assert live_value(desired, row, " acme group ", live, given) == "live Acme"
        # its own key is live: that one, not the former key's
        assert live_value(desired, row, "Initech", live, given) == "live Initech"
        # no former key, and its key not live
        assert live_value(desired, row, "Globex", live, given) is None
    # two of its former keys are live: which one it is cannot be told
    both = {"acme": "live Acme", "acme ltd": "live ACME Ltd"}
    assert live_value(desired, row, "Acme Group", both) is None
    assert live_value(desired, row, "", live) is None

"""The applied mark, and drift told from pending (docs/drift.md).

Takes the manifests' git repository (through the `git` command), the paths the manifests
were loaded from, and plans' `to_dict()` forms. Gives: `mark` records the commit of a
whole, successful apply as `refs/reconciler/applied/<environment>` and finds it again;
`labels` (pure) labels each change of a plan drift, pending or drift+pending, and says
whether `--fail-on` fails; `compare` does all of it for one plan, from a copy of the
manifests at the applied commit (never a checkout), failures as reasons.

The package imports none of its modules: `render` imports `labels` alone (an enum and
pure functions), and must not load git helpers and the manifest loader with it.
"""

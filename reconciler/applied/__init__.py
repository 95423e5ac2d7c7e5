"""The applied mark, and drift told from pending (docs/drift.md).

Takes the manifests' git repository (through the `git` command), the paths the manifests
were loaded from, and plans' `to_dict()` forms; gives:

    mark.record(cwd, paths, environment, commit=None) -> Recorded | NotRecorded
        after a whole, successful apply: the applied commit as
        `refs/reconciler/applied/<environment>` (`default` without environments)
    mark.partial_apply(targets=, excludes=, failed=, interrupted=) -> NotRecorded | None
    mark.clean_head(cwd, paths) -> Commit | NotRecorded    what `plan --out` saves
    mark.applied_commit(cwd, environment) -> Commit | Unknown
    snapshot.manifests_at(cwd, commit, paths, dest_dir) -> Snapshot    never a checkout
    labels.label(real, applied) -> {address: Cause}    pure: drift, pending, drift+pending
    labels.fails(addresses, causes, fail_on) -> bool   `--fail-on drift|pending|any`
    compare.labels_for(real, cwd=, paths=, environment=, plan_applied=)
        -> Labelled | Unlabelled    all of the above for one plan; failures are reasons

`labels` does no I/O; `mark`, `snapshot` and `compare` run git and write only under the
repository's `refs/reconciler/applied/` and the caller's temporary directory.

The package imports none of its modules: `render` imports `labels` alone (an enum and
pure functions), and must not load git helpers and the manifest loader with it.
"""

"""The fleet: a command run for the environments of the project file (`--env`), one or
several at once (DESIGN §8, docs/environments.md).

    dispatch.py   which environments a command runs for: none, one (bound to it), several
    commands.py   validate and plan over several; the plans printed whole, one summary
    plans.py      each environment's manifests and connection; plans made concurrently,
                  each saying its waits for a `429` to pass
    apply.py      one confirmation, then the rollout (rollout.py) in waves
    export.py     each environment exported to its own directory
    summary.py    the run summary (text, Markdown, --report-file's JSON), the exit code
    reports.py    the per-environment comments and findings

Takes: the flags (`run.flags`) and the project (`project.Project`). Gives: what the
command prints and writes, and its exit code. One environment is run by `reconciler.run`,
after the wrong-tenant guard; so are the parts a fleet's run shares with it.
"""

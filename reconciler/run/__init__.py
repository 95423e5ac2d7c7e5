"""Running: a command run for one environment (or none: the flags and variables alone),
the steps it takes around the pure stages, with the I/O they need.

    flags.py     what each command was asked (frozen: `PlanFlags`, `ApplyFlags`, ...)
    inputs.py    the manifests read and narrowed (--changed-since); `validate`
    scope.py     `--changed-since REF`: the manifests at a git revision (read with `git
                 ls-tree` and `git cat-file`) compared with the working tree's, and the
                 desired state cut down to the entries in scope
    connect.py   the connection: the services, or the embedded sandbox (--sandbox)
    workflow.py  check that each managed kind's service is configured, open the clients,
                 authenticate once, read the live state (`live/`) and plan it
                 (`planning/`) with the brake's verdict: `read_and_plan`, read-only
    outputs.py   output paths checked before any call; comment parts written
    plan.py, apply.py, export.py   each command: `run_plan(flags, target)`, ...

Takes: the flags and the environment (`project.Target`). Gives: the command's output on
stdout and stderr, its files, and its exit code (`sys.exit`). Several environments at once
are the fleet's (reconciler/fleet/), which uses this package's parts.
"""

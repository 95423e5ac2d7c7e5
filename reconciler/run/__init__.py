"""A command run for one environment (or none: the flags and variables alone): what each
command does between the command line and the library.

    flags.py     what each command was asked (frozen: `PlanFlags`, `ApplyFlags`, ...)
    inputs.py    the manifests read and narrowed (--changed-since); `validate`
    connect.py   the connection: the services, or the embedded sandbox (--sandbox)
    outputs.py   output paths checked before any call; comment parts written
    plan.py, apply.py, export.py   each command: `run_plan(flags, target)`, ...

Takes: the flags and the environment (`project.Target`). Gives: the command's output on
stdout and stderr, its files, and its exit code (`sys.exit`). Several environments at once
are the fleet's (reconciler/fleet/), which uses this package's parts.
"""

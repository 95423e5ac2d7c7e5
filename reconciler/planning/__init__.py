"""Planning: from the desired state (`manifest/`) and the live state (`live/`) to a `Plan`
(`changes/`), with no I/O of its own.

- `plan.py`: the pure planner, `plan(desired, live) -> Plan`, and `Selector` (--target/--exclude);
- `order.py`: the safe order of the changes (graphlib, dependencies first);
- `scope.py`: which kinds and keys a run covers (--target, --exclude, --changed-since);
- `safety.py`: the brake's verdict on a plan (octoDNS-style thresholds);
- `addresses.py`: `kind["key"]` addresses and the manifest lines they come from;
- `workflow.py`: the steps around the pure planner a command runs (open the clients,
  authenticate once, read the live state, plan): `read_and_plan`.

Takes: `DesiredState`, `LiveState`. Gives: `Plan`. Applying it is `applying/`.
"""

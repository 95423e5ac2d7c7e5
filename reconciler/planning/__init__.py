"""Planning: from the desired state (`manifest/`) and the live state (`live/`) to a `Plan`
(`plans/`), pure: no client, no file, no network, no subprocess (tests/architecture
enforces it). Opening the clients, reading and the git of `--changed-since` are `run/`.

- `plan.py`: the pure planner, `plan(desired, live) -> Plan`;
- `order.py`: the safe order of the changes (graphlib, dependencies first);
- `safety.py`: the brake's verdict on a plan (octoDNS-style thresholds);
- `renames.py`: `previously:` keys matched to live objects, renames instead of a delete
  and a create; and the creates that look like a rename nobody declared;
- `unique_values.py`: the API's unique fields checked against the whole live state,
  and values handed from one object to another ordered;

Takes: `DesiredState`, `LiveState`. Gives: `Plan`. Applying it is `applying/`.
"""

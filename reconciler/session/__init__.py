"""A session with the services: what every command that reads does around the pure
planner, with the I/O it needs.

- `workflow.py`: check that each managed kind's service is configured, open the clients,
  authenticate once (an administrator's account, refused on its one request), read the
  live state (`live/`) and plan it (`planning/`), with the safety brake's verdict on the
  plan: `read_and_plan`, read-only. `export/` opens its clients here too, and `applying/`
  reads and plans here before it writes.

Takes: a `DesiredState` and a `Connection`. Gives: a judged `Plan` with the `LiveState` it
was made from, or open `Clients` for a caller that reads or writes itself.
"""

"""Running: the steps a command takes around the pure stages, with the I/O they need.

- `workflow.py`: check that each managed kind's service is configured, open the clients,
  authenticate once (an administrator's account, refused on its one request), read the
  live state (`live/`) and plan it (`planning/`), with the safety brake's verdict on the
  plan: `read_and_plan`, read-only. `export/` opens its clients here too, and `applying/`
  reads and plans here before it writes;
- `scope.py`: `--changed-since REF`, the manifests at a git revision (read with `git
  ls-tree` and `git cat-file`) compared with the working tree's, and the desired state
  cut down to the entries in scope.

Takes: a `DesiredState` and a `Connection`. Gives: a judged `Plan` with the `LiveState` it
was made from, or open `Clients` for a caller that reads or writes itself.
"""

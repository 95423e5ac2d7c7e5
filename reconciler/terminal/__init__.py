"""The terminal: what a person sees while a command runs, on stderr.

- `console.py`: the confirmation prompt, the apply summary and the interrupted-run report;
- `progress.py`: the live progress line (calls sent, waits for the rate limit, 429s),
  fed by `clients/activity.py`;
- `interrupts.py`: Ctrl-C and SIGTERM (exit 130; during an apply, a graceful stop first).

Takes: plans, apply reports and the clients' activity. Gives: text on the terminal. The
library below never prints; only this package, the stages that run commands (`run/`,
`fleet/`), the report writer (`report/files.py`) and `cli/` do.
"""

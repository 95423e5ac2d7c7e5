"""The terminal: what a person sees while a command runs, on stderr.

- `console.py`: the confirmation prompt, the apply summary and the interrupted-run report;
- `progress.py`: the live progress line (calls sent, waits for the rate limit, 429s),
  fed by `clients/activity.py`.

Takes: plans, apply reports and the clients' activity. Gives: text on the terminal. The
library below never prints; only this package and `cli/` do.
"""

"""Applying: from a reviewed `Plan` to API calls, in a safe order, one apply at a time.

- `session.py`: `ApplySession`, the safety rules every caller gets (errors refused, the
  brake held, a saved plan re-derived and compared, the lock taken, the log written);
- `executor.py`: runs the plan's operations in dependency order, stops at the first
  failure, and re-reads before repeating a create whose answer was lost;
- `lock.py`: the per-helpdesk apply lock; `log.py`: the apply log (JSON lines, masked);
- `estimate.py`: how long the calls will take under the rate limit.

Takes: a `Plan` (and the clients). Gives: an `ApplyReport` of what was done and not done.
"""

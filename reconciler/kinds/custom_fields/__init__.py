"""The custom field catalogue that companies, users and assets share: no kind of its own
(no manifest entry is a custom field), read first so that the kinds' values can be
resolved and compared.

- `reader.py`: the catalogue as read (the definitions per usage type, their options);
- `planner.py`: its resource, name resolution with suggestions, and the normalisation of
  values so that equal values compare equal.
"""

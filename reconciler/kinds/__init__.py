"""The managed kinds, one package each (`kinds/<kind>/`): a kind's manifest entry model and
its row in the table of kinds (its package's `__init__.py`), its live reader
(`reader.py`), its planner (`planner.py`) and its export converter (`export.py`).
`custom_fields/` is the custom field catalogue the kinds share.

Two lists name every kind, each by import where the import check sees it: the table of
kinds (`table.py`, the rows: what the manifest stage needs) and the register of kinds
(`register.py`, each kind's resource and converter). A kind's modules stand at the stage
of their role (docs/architecture.md): the row and model with the manifest, the reader and
planner with the resources, the converter and the register above them.
"""

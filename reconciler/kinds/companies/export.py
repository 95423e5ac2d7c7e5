"""Companies as manifest entries (pure; see export/entries.py for what is written in
general): name, e-mail domains, notes and custom field values."""

from __future__ import annotations

from reconciler.export.entries import Converter, Entry, ordered, text, unique_names
from reconciler.kinds.companies.reader import LiveCompanies


def companies(conv: Converter) -> list[Entry]:
    values = conv.values("companies")
    entries = []
    for company in conv.listed("companies", LiveCompanies({}), lambda c: c.name):
        entry: Entry = {"name": company.name}
        conv.put(entry, "email_domains", unique_names(company.email_domains))
        conv.put(entry, "notes", text(company.notes))
        if company.custom_values is not None:
            found = values.values(company.custom_values, f"companies/{company.name}")
            conv.put(entry, "custom_fields", found or None)
        entries.append(ordered("companies", entry))
    return entries

"""The store's look-up by name (`Store.find_name`): stripped, in any case, the first match
in the table's order, and always as the writes left the names."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.sandbox.store import Store


@pytest.fixture
def store() -> Store:
    return Store()


def test_case_and_spaces_are_ignored(store: Store) -> None:
    acme = store.insert("companies", {"name": "Acme Corp"})
    assert store.find_name("companies", "  ACME corp ") == acme
    assert store.find_name("companies", "Acme") is None


def test_a_rename_moves_the_name(store: Store) -> None:
    store.insert("companies", {"name": "Old"})
    assert store.find_name("companies", "old") is not None
    renamed = store.update("companies", 1, name="New")
    assert store.find_name("companies", "old") is None
    assert store.find_name("companies", "NEW") == renamed


def test_a_record_put_whole_replaces_its_old_name(store: Store) -> None:
    store.insert("users", {"username": "ann", "email": "a@x.test"})
    assert store.find_name("users", "ann", "username") is not None
    store.put("users", {"id": 1, "username": "bea", "email": "a@x.test"})
    assert store.find_name("users", "ann", "username") is None
    assert store.find_name("users", "bea", "username") == store.get("users", 1)
    assert store.find_name("users", "a@x.test", "email") == store.get("users", 1)


def test_deleted_and_cleared_records_are_not_found(store: Store) -> None:
    store.insert("companies", {"name": "Gone"})
    assert store.find_name("companies", "gone") is not None
    store.delete("companies", 1)
    assert store.find_name("companies", "gone") is None
    store.insert("companies", {"name": "Back"})
    store.clear()
    assert store.find_name("companies", "back") is None
    again = store.insert("companies", {"name": "Back"})
    assert store.find_name("companies", "back") == again


def test_of_equal_names_the_first_in_the_tables_order_is_found(store: Store) -> None:
    store.insert("companies", {"name": "Twin"}, rid=7)
    store.insert("companies", {"name": "twin "}, rid=3)
    store.insert("companies", {"name": "Other"})
    assert store.find_name("companies", "TWIN")["id"] == 7
    store.delete("companies", 7)
    assert store.find_name("companies", "twin")["id"] == 3


def test_fields_that_are_not_text_are_never_a_match(store: Store) -> None:
    store.insert("users", {"username": None})
    store.insert("users", {"username": 42})
    assert store.find_name("users", "42", "username") is None
    assert store.find_name("users", "", "username") is None


def test_a_reopened_store_finds_what_was_written(tmp_path: Path) -> None:
    first = Store(tmp_path / "s.db")
    first.insert("companies", {"name": "Kept"})
    first.find_name("companies", "kept")
    first.update("companies", 1, name="Kept Too")
    first.close()
    second = Store(tmp_path / "s.db")
    assert second.find_name("companies", "kept too") == second.get("companies", 1)
    assert second.find_name("companies", "kept") is None
    second.close()

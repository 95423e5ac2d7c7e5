"""Seeds that extend a built-in one (`extends:`) and generate a crowd (`generated:`): the
base's content plus the file's, customers and discovered assets made the same on every
run, and each mistake reported at its place with nothing written. The built-in `shared`
is the acme tenant with 20,000 customers of 50 client companies and 2,000 assets."""

from __future__ import annotations

from pathlib import Path

from reconciler.sandbox.config import seed_path
from reconciler.sandbox.seed import initialise
from tests.sandbox.test_seed import new_state, problems_of, seed_text

CROWD = "extends: acme\ngenerated: {customers: 7, client_companies: 3, discovered_assets: 4}\n"


def rows(state: object, table: str) -> list[dict[str, object]]:
    return state.store.rows(table)  # type: ignore[attr-defined, no-any-return]


def test_an_extending_seed_is_the_base_plus_a_generated_crowd(tmp_path: Path) -> None:
    acme, state = new_state(), new_state()
    initialise(acme, seed_path("acme"))
    initialise(state, seed_text(tmp_path, CROWD))
    assert len(rows(state, "users")) == len(rows(acme, "users")) + 7
    clients = {c["id"]: c["name"] for c in rows(state, "companies") if "Client" in str(c["name"])}
    assert sorted(clients.values()) == ["Client 001 Ltd", "Client 002 Ltd", "Client 003 Ltd"]
    customers = [u for u in rows(state, "users") if str(u["username"]).startswith("customer")]
    assert [u["username"] for u in customers][:2] == ["customer00001", "customer00002"]
    assert customers[0]["email"] == "customer00001@client001.example"
    assert {clients[int(str(u["company_id"]))] for u in customers} == set(clients.values())
    assert not any(u["is_tech"] or u["is_admin"] for u in customers)
    discovered = [a for a in rows(state, "assets") if str(a["serial_number"]).startswith("DISC")]
    assert len(discovered) == 4 and all(a["company_id"] in clients for a in discovered)


def test_the_crowd_is_the_same_on_every_run(tmp_path: Path) -> None:
    seed = seed_text(tmp_path, CROWD)
    first, second = new_state(), new_state()
    initialise(first, seed)
    initialise(second, seed)

    def content(state: object) -> list[tuple[object, ...]]:
        return [(u["id"], u["username"], u["email"], u["company_id"]) for u in rows(state, "users")]

    assert content(first) == content(second)


def test_extending_an_unknown_seed_or_repeating_a_section_is_refused(tmp_path: Path) -> None:
    unknown = problems_of(seed_text(tmp_path, "extends: nowhere\n"))
    wanted = "1:10: 'extends' must name a built-in seed: one of acme, acme-catalogue, empty, shared"
    assert any(p.endswith(wanted) for p in unknown)
    repeated = problems_of(seed_text(tmp_path, "extends: acme\nworkspace: {}\n"))
    assert any("2:1: section 'workspace' is in the extended seed already" in p for p in repeated)
    counts = problems_of(seed_text(tmp_path, "extends: acme\ngenerated: {customers: 5}\n"))
    assert any("customers need client_companies to belong to" in p for p in counts)


def test_a_list_in_both_seeds_is_joined_and_a_repeated_entry_refused(tmp_path: Path) -> None:
    acme, state = new_state(), new_state()
    initialise(acme, seed_path("acme"))
    initialise(state, seed_text(tmp_path, "extends: acme\ndepartments: [Legal]\n"))
    names = [str(d["name"]) for d in rows(state, "departments")]
    assert names == [str(d["name"]) for d in rows(acme, "departments")] + ["Legal"]
    twice = problems_of(
        seed_text(tmp_path, "extends: acme\nusers: [{username: helen, email: h2@x.com}]\n")
    )
    assert any("duplicate username 'helen'" in p for p in twice)


def test_the_shared_seed_is_acme_with_20000_customers_and_2000_assets() -> None:
    acme, state = new_state(), new_state()
    initialise(acme, seed_path("acme"))
    initialise(state, seed_path("shared"))
    assert len(rows(state, "users")) == len(rows(acme, "users")) + 20_000 + 2  # kim, lee
    staff = {str(u["username"]): u for u in rows(state, "users")}
    assert {"kim", "lee"} <= staff.keys()
    fields = [f for f in rows(state, "custom_fields") if f["name"] == "Managed by"]
    assert len(fields) == 3  # users, companies and assets each have the marker field
    assert len(rows(state, "companies")) == len(rows(acme, "companies")) + 50
    assert len(rows(state, "assets")) == len(rows(acme, "assets")) + 2_000

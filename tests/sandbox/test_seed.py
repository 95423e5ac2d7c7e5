"""The seed loader: each section of a seed lands in the store in the shapes of records.py,
the API serves what was seeded, every problem of a bad seed is reported at its place and
nothing is written, a file database keeps it, and a thousand assets load.

Bad seeds are data: each file under seeds/bad/ ends with `# expect LINE:COL: message`
lines, and the loader must report exactly those problems."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from reconciler.cli import main
from reconciler.errors import SeedError
from reconciler.sandbox import records
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import BUILTIN_SEEDS, SandboxConfig
from reconciler.sandbox.process import InProcessTransport
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.serve import SEED_KEY, OtherSeed, open_state, seed_name
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record, Store

SEEDS = Path(__file__).parent / "seeds"
SMALL = SEEDS / "small.yaml"
BAD = sorted((SEEDS / "bad").glob("*.yaml"))
DOC = Path(__file__).parents[2] / "docs" / "sandbox.md"


def new_state(path: Path | None = None) -> SandboxState:
    return SandboxState(Store(path), SandboxConfig(rate_limit=0, search_rate_limit=0))


def seed_text(tmp_path: Path, text: str, name: str = "seed.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(seed: Path) -> list[str]:
    state = new_state()
    with pytest.raises(SeedError) as caught:
        initialise(state, seed)
    assert state.store.is_empty, "a bad seed must write nothing"
    assert str(caught.value) == "\n".join(caught.value.problems)
    return caught.value.problems


def one(store: Store, table: str, **equal: Any) -> Record:
    rec = store.find(table, **equal)
    assert rec is not None, (table, equal)
    return rec


@pytest.fixture
def small() -> tuple[SandboxState, Credentials]:
    state = new_state()
    return state, initialise(state, SMALL)


@pytest.fixture
def client(small: tuple[SandboxState, Credentials]) -> Iterator[httpx.Client]:
    transport = InProcessTransport(create_app(small[0]))
    with httpx.Client(transport=transport, base_url="http://sandbox.test") as c:
        yield c


def basic(username: str, password: str) -> dict[str, str]:
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


# -- every section lands in the store ---------------------------------------------------


def test_small_seed_returns_the_chosen_credentials(small: tuple[SandboxState, Credentials]) -> None:
    assert small[1] == Credentials("admin", "admin-pass", "admin-token", "ws-test-key")


def test_the_seed_fills_departments_sections_and_categories(
    small: tuple[SandboxState, Credentials],
) -> None:
    store = small[0].store
    assert [d["name"] for d in store.rows("departments")] == ["Finance", "Engineering"]
    assert [s["name"] for s in store.rows("sections")] == ["IT", "Security"]
    it, security = (one(store, "sections", name=n)["id"] for n in ("IT", "Security"))
    assert store.rows("categories") == [
        {**records.category("Hardware", section_id=it), "id": 1},
        {**records.category("Access", section_id=security, for_techs_only=True), "id": 2},
        {**records.category("General"), "id": 3},
    ]


def test_custom_fields_and_option_ids(small: tuple[SandboxState, Credentials]) -> None:
    store = small[0].store
    by_name = {f["name"]: f for f in store.rows("custom_fields")}
    # Unfixed options are numbered from 1 across all fields; fixed ids (70, 71) stay.
    expected = {
        "Cost centre": records.custom_field(
            "Cost centre",
            type=3,
            usage_type=3,
            options=[{"id": 1, "name": "CC-100"}, {"id": 2, "name": "CC-200"}],
        ),
        "Contract tier": records.custom_field(
            "Contract tier",
            type=3,
            usage_type=4,
            options=[{"id": 70, "name": "Gold"}, {"id": 71, "name": "Silver"}],
        ),
        "Renewal": records.custom_field("Renewal", type=2, usage_type=4),
        "Warranty until": records.custom_field("Warranty until", type=2, usage_type=2),
        "Leased": records.custom_field("Leased", type=4, usage_type=2),
        "Laptop model": records.custom_field(
            "Laptop model",
            type=1,
            usage_type=1,
            mandatory=True,
        ),
        "Urgency": records.custom_field(
            "Urgency",
            type=3,
            usage_type=1,
            for_techs_only=True,
            options=[{"id": 3, "name": "Low"}, {"id": 4, "name": "High"}],
        ),
    }
    assert list(by_name) == list(expected)
    for name, rec in expected.items():
        assert by_name[name] == {**rec, "id": by_name[name]["id"]}


def fid(store: Store, name: str) -> str:
    return str(one(store, "custom_fields", name=name)["id"])


def test_the_seed_fills_companies_and_users(small: tuple[SandboxState, Credentials]) -> None:
    store = small[0].store
    acme, globex = one(store, "companies", name="Acme Corp"), one(store, "companies", name="Globex")
    assert acme == {
        **records.company("Acme Corp", email_domain="acme.com;acme.co.uk", notes="Key account"),
        "custom": {fid(store, "Contract tier"): "70", fid(store, "Renewal"): "2025-03-31"},
        "id": acme["id"],
    }
    assert globex == {**records.company("Globex"), "id": globex["id"]}  # named by a user
    finance, engineering = (
        one(store, "departments", name=n)["id"] for n in ("Finance", "Engineering")
    )
    users = {u["username"]: u for u in store.rows("users")}
    assert users["admin"] == {
        **records.user(
            "admin",
            "admin@acme.com",
            password="admin-pass",
            token="admin-token",
            role="admin",
            first_name="Ada",
            last_name="Admin",
        ),
        "id": users["admin"]["id"],
    }
    tina = users["tina"]
    assert tina == {
        **records.user(
            "tina",
            "tina@acme.com",
            password="tina-pass",
            token=tina["token"],
            role="technician",
            first_name="Tina",
            company_id=acme["id"],
            department_id=engineering,
        ),
        "id": tina["id"],
    }
    ursula = users["ursula"]
    assert ursula == {
        **records.user(
            "ursula",
            "ursula@acme.com",
            password="ursula-pass",
            token=ursula["token"],
            first_name="Ursula",
            last_name="User",
            notes="VIP",
            location="Berlin",
            phone="0123 456",
            company_id=globex["id"],
            department_id=finance,
            is_manager=True,
        ),
        "custom": {fid(store, "Cost centre"): "2"},
        "id": ursula["id"],
    }
    # carl has no password (a random one nobody knows) and became a technician by
    # being named in tech_permissions.
    carl = users["carl"]
    assert carl == {
        **records.user("carl", "carl@acme.com", token=carl["token"], role="technician"),
        "password_hash": carl["password_hash"],
        "disabled": True,
        "id": carl["id"],
    }
    assert len({u["token"] for u in users.values()}) == 4
    hardware = one(store, "categories", name="Hardware")["id"]
    assert [(p["user_id"], p["category_id"]) for p in store.rows("tech_permissions")] == [
        (tina["id"], hardware),
        (carl["id"], hardware),
    ]


def test_the_seed_fills_assets_and_their_lookups(small: tuple[SandboxState, Credentials]) -> None:
    store = small[0].store
    assert [m["name"] for m in store.rows("manufacturers")] == ["Lenovo", "Dell"]
    assert [t["name"] for t in store.rows("asset_types")] == ["Laptop", "Monitor"]
    assert [s["name"] for s in store.rows("suppliers")] == ["Bechtle"]  # bechtle is the same
    lenovo, dell = (one(store, "manufacturers", name=n)["id"] for n in ("Lenovo", "Dell"))
    laptop, monitor = (one(store, "asset_types", name=n)["id"] for n in ("Laptop", "Monitor"))
    bechtle = one(store, "suppliers", name="Bechtle")["id"]
    first, second = store.rows("assets")
    assert first == {
        **records.asset(
            model_name="ThinkPad X1",
            manufacturer_id=lenovo,
            supplier_id=bechtle,
            type_id=laptop,
            serial_number="SN-0001",
            location="Berlin",
            comments="Spare battery in the drawer",
            company_id=one(store, "companies", name="Acme Corp")["id"],
        ),
        "assigned_user_ids": [one(store, "users", username="ursula")["id"]],
        "custom": {fid(store, "Warranty until"): "2026-01-31", fid(store, "Leased"): "true"},
        "id": first["id"],
    }
    assert second == {
        **records.asset(
            model_name="U2720Q",
            manufacturer_id=dell,
            supplier_id=bechtle,
            type_id=monitor,
            serial_number="SN-0002",
            quantity=2,
            disabled=True,
        ),
        "id": second["id"],
    }


def test_rules_keep_their_ids(small: tuple[SandboxState, Credentials]) -> None:
    store = small[0].store
    assert store.get("rules", 7) == {
        **records.rule(
            "Escalate VIP tickets",
            conditions='<condition field="priority" op="equals" value="2" />',
            actions='<action type="assign" user="tina" />',
        ),
        "id": 7,
    }
    assert store.get("rules", 12) == {**records.rule("Auto-close stale", enabled=False), "id": 12}
    assert [r["id"] for r in store.rows("rules")] == [7, 12]


def test_the_seed_fills_workspace_keys_and_employees(
    small: tuple[SandboxState, Credentials],
) -> None:
    store = small[0].store
    keys = store.rows("ws_api_keys")
    assert [(k["key"], k["name"]) for k in keys[:1]] == [("ws-test-key", "tests")]
    assert keys[1]["name"] == "generated" and len(keys[1]["key"]) >= 24
    ursula, tom = store.rows("ws_employees")
    assert ursula["fields"] == {
        "email": "ursula@acme.com",
        "firstName": "Ursula",
        "lastName": "User",
        "department": "Finance",
        "jobTitle": None,
        "location": None,
        "phone": None,
        "managerEmail": None,
        "startDate": "2021-04-01",
        "active": True,
    }
    assert tom["fields"]["active"] is False and tom["fields"]["startDate"] is None
    for rec in (ursula, tom):
        assert re.fullmatch(r"[0-9a-f]{12}", rec["public_id"])
        assert rec["created"] == rec["updated"]
    assert ursula["public_id"] != tom["public_id"]


# -- the API serves the seed -------------------------------------------------------------


def test_seeded_users_can_log_in(
    client: httpx.Client, small: tuple[SandboxState, Credentials]
) -> None:
    creds = small[1]
    login = client.post("/helpdesk/api/Authorization", headers=basic("admin", "admin-pass"))
    assert login.status_code == 200 and login.json()["IsAdmin"] is True
    bearer = {"Authorization": f"Bearer {creds.helpdesk_token}"}
    assert client.post("/helpdesk/api/Authorization", headers=bearer).json()["Username"] == "admin"
    tina = client.post("/helpdesk/api/Authorization", headers=basic("tina", "tina-pass")).json()
    assert (tina["IsTech"], tina["IsAdmin"], tina["CompanyName"]) == (True, False, "Acme Corp")
    ursula = client.post("/helpdesk/api/Authorization", headers=basic("ursula", "ursula-pass"))
    assert ursula.json()["Departman"] == "Finance"
    assert ursula.json()["IsManager"] is True
    # carl is disabled: even the right token is refused.
    carl = one(small[0].store, "users", username="carl")
    refused = client.post(
        "/helpdesk/api/Authorization", headers={"Authorization": f"Bearer {carl['token']}"}
    )
    assert refused.status_code == 401


def test_api_serves_companies_and_custom_fields(
    client: httpx.Client, small: tuple[SandboxState, Credentials]
) -> None:
    store = small[0].store
    admin = basic("admin", "admin-pass")
    acme, globex = one(store, "companies", name="Acme Corp"), one(store, "companies", name="Globex")
    companies = client.get("/helpdesk/api/Companies", headers=admin).json()
    assert companies == [
        {
            "CompanyID": acme["id"],
            "Name": "Acme Corp",
            "EmailDomain": "acme.com;acme.co.uk",
            "Notes": "Key account",
        },
        {"CompanyID": globex["id"], "Name": "Globex", "EmailDomain": None, "Notes": None},
    ]
    departments = client.get("/helpdesk/api/Departments", headers=admin).json()
    assert [d["Name"] for d in departments] == ["Finance", "Engineering"]
    values = client.get(
        "/helpdesk/api/CompanyCustomFields", params={"id": acme["id"]}, headers=admin
    )
    assert values.json() == [
        {
            "FieldName": "Contract tier",
            "FieldID": int(fid(store, "Contract tier")),
            "Type": 3,
            "Value": "70",
        },
        {
            "FieldName": "Renewal",
            "FieldID": int(fid(store, "Renewal")),
            "Type": 2,
            "Value": "2025-03-31",
        },
    ]
    asset_fields = client.get(
        "/helpdesk/api/CustomFields", params={"type": 2}, headers=admin
    ).json()
    assert [(f["FieldName"], f["Type"], f["UsageType"]) for f in asset_fields] == [
        ("Warranty until", 2, 2),
        ("Leased", 4, 2),
    ]
    # Ticket fields are definitions too; Urgency is for technicians only.
    ticket_fields = client.get("/helpdesk/api/CustomFields", params={"type": 1}, headers=admin)
    assert [f["FieldName"] for f in ticket_fields.json()] == ["Laptop model", "Urgency"]
    as_user = client.get(
        "/helpdesk/api/CustomFields", params={"type": 1}, headers=basic("ursula", "ursula-pass")
    )
    assert [f["FieldName"] for f in as_user.json()] == ["Laptop model"]


def test_api_serves_the_workspace(
    client: httpx.Client, small: tuple[SandboxState, Credentials]
) -> None:
    store = small[0].store
    generated = store.rows("ws_api_keys")[1]["key"]
    for key in (small[1].workspace_api_key, generated):
        assert client.get("/workspace/api/employees", headers={"X-API-Key": key}).status_code == 200
    headers = {"X-API-Key": small[1].workspace_api_key}
    employees = client.get("/workspace/api/employees", headers=headers).json()
    assert [e["email"] for e in employees] == ["ursula@acme.com", "tom@acme.com"]
    ursula = employees[0]
    stored = store.rows("ws_employees")[0]
    assert ursula == {
        "id": stored["public_id"],
        **stored["fields"],
        "createdAt": stored["created"],
        "updatedAt": stored["created"],
    }
    assert client.get(f"/workspace/api/employees/{ursula['id']}", headers=headers).json() == ursula


# -- without a seed ----------------------------------------------------------------------


def test_no_seed_makes_an_administrator_and_a_key() -> None:
    state = new_state()
    creds = initialise(state, None)
    store = state.store
    (admin,) = store.rows("users")
    assert creds.helpdesk_username == "admin" and admin["is_admin"]
    assert admin["password_hash"] == records.hash_password(creds.helpdesk_password)
    assert admin["token"] == creds.helpdesk_token
    assert store.rows("ws_api_keys") == [
        {"key": creds.workspace_api_key, "name": "sandbox", "id": 1}
    ]
    other = initialise(new_state(), None)
    assert other.helpdesk_password != creds.helpdesk_password  # generated, not fixed


# -- problems -----------------------------------------------------------------------------


def expectations(seed: Path) -> list[tuple[str, str]]:
    found = re.findall(r"^# expect (\d+:\d+): (.+)$", seed.read_text(), flags=re.M)
    assert found, f"{seed.name} states no expected problem"
    return found


@pytest.mark.parametrize("seed", BAD, ids=[p.stem for p in BAD])
def test_bad_seed_reports_every_problem_at_its_place(seed: Path) -> None:
    problems = problems_of(seed)
    expected = expectations(seed)
    assert len(problems) == len(expected), "\n".join(problems)
    for (where, message), problem in zip(expected, problems, strict=True):
        assert problem.startswith(f"{seed}:{where}: {message}"), problem


def test_there_are_many_bad_seeds() -> None:
    assert len(BAD) >= 10


def test_json_syntax_error_has_its_place(tmp_path: Path) -> None:
    seed = seed_text(tmp_path, '{\n  "users": [\n    {"username": "a",}\n  ]\n}\n', "seed.json")
    assert problems_of(seed) == [
        f"{seed}:3:22: invalid JSON: Expecting property name enclosed in double quotes"
    ]


def test_json_problems_have_their_places(tmp_path: Path) -> None:
    seed = seed_text(
        tmp_path,
        '{\n\t"users": [\n\t\t{"username": "admin", "email": "a@b.c", "role": "root"}\n\t]\n}\n',
        "seed.json",
    )
    assert problems_of(seed) == [
        f"{seed}:1:1: the seed needs an enabled admin user with a password",
        f"{seed}:3:51: 'role' must be one of user, technician, admin",
    ]


def test_unreadable_and_undecodable_files(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    assert problems_of(missing) == [
        f"{missing}:1:1: cannot read the seed file: No such file or directory"
    ]
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"users:\n  - username: J\xf6rg\n")
    assert problems_of(latin) == [f"{latin}:2:16: the seed file is not UTF-8 text"]


def test_empty_seed_needs_an_admin(tmp_path: Path) -> None:
    seed = seed_text(tmp_path, "# nothing yet\n")
    assert problems_of(seed) == [
        f"{seed}:1:1: the seed needs an enabled admin user with a password"
    ]


def test_unsafe_tags_and_recursive_aliases_are_refused(tmp_path: Path) -> None:
    seed = seed_text(
        tmp_path,
        "users:\n"
        "  - {username: admin, email: a@b.c, password: !!python/name:os.system x, role: admin}\n"
        "departments: &loop [Sales, *loop]\n",
    )
    problems = problems_of(seed)
    assert problems[0].startswith(f"{seed}:1:1: the seed needs an enabled admin")
    assert problems[1].startswith(f"{seed}:2:47: cannot read this value: could not determine")
    assert problems[2] == f"{seed}:3:14: a recursive alias cannot be loaded"
    assert problems[3].startswith(f"{seed}:3:14: each item of 'departments' must be a name")


def test_cli_reports_a_bad_seed_and_exits_1(tmp_path: Path) -> None:
    seed = SEEDS / "bad" / "tech-permissions.yaml"
    result = CliRunner().invoke(
        main,
        ["sandbox", "serve", "--seed", str(seed), "--db", str(tmp_path / "s.db"), "--port", "0"],
    )
    assert result.exit_code == 1
    assert f"{seed}:6:21: unknown username 'ghost'" in result.output
    assert f"{seed}:7:3: unknown category 'Software'" in result.output


# -- values, names, YAML features, JSON -----------------------------------------------------


ADMIN = "  - {username: admin, email: admin@example.com, password: pw, role: admin}\n"


def test_values_are_stored_as_the_api_stores_them(tmp_path: Path) -> None:
    seed = seed_text(
        tmp_path,
        "custom_fields:\n"
        "  - {name: Since, type: date, usage: users}\n"
        "  - {name: Remote, type: checkbox, usage: users}\n"
        "  - {name: Tier, type: dropdown, usage: users, options: [Gold, Silver]}\n"
        "  - {name: Badge, type: text, usage: users}\n"
        "  - {name: Empty, type: text, usage: users}\n"
        "users:\n"
        "  - username: admin\n"
        "    email: admin@example.com\n"
        "    password: pw\n"
        "    role: admin\n"
        "    custom_fields:\n"
        "      since: 03/31/2025\n"  # field names and option names match in any case
        "      Remote: 'True'\n"
        "      TIER: silver\n"
        "      Badge: 007\n"  # a number keeps its spelling
        "      Empty: ''\n",  # an empty value is no value
    )
    state = new_state()
    initialise(state, seed)
    ids = {f["name"]: str(f["id"]) for f in state.store.rows("custom_fields")}
    assert one(state.store, "users", username="admin")["custom"] == {
        ids["Since"]: "2025-03-31",
        ids["Remote"]: "true",
        ids["Tier"]: "2",
        ids["Badge"]: "007",
    }


def test_option_ids_skip_fixed_ones_and_are_stable(tmp_path: Path) -> None:
    seed = seed_text(
        tmp_path,
        "users:\n" + ADMIN + "custom_fields:\n"
        "  - {name: A, type: dropdown, usage: assets, options: [x, y]}\n"
        "  - {name: B, type: dropdown, usage: assets, options: [{id: 1, name: p}, q]}\n",
    )
    runs = []
    for _ in range(2):
        state = new_state()
        initialise(state, seed)
        runs.append({f["name"]: f["options"] for f in state.store.rows("custom_fields")})
    assert (
        runs[0]
        == runs[1]
        == {
            "A": [{"id": 2, "name": "x"}, {"id": 3, "name": "y"}],
            "B": [{"id": 1, "name": "p"}, {"id": 4, "name": "q"}],
        }
    )


def test_anchors_and_merge_keys(tmp_path: Path) -> None:
    seed = seed_text(
        tmp_path,
        "companies:\n"
        "  - {name: Acme, notes: shared}\n"
        "users:\n"
        "  - &staff {username: admin, email: admin@example.com, role: admin, password: pw,\n"
        "            company: Acme, department: Support}\n"
        "  - {<<: *staff, username: bob, email: bob@example.com, role: user, department: Sales}\n"
        "tech_permissions: {}\n",
    )
    state = new_state()
    initialise(state, seed)
    bob = one(state.store, "users", username="bob")
    # Merged keys fill in what bob does not say; what he says wins.
    assert bob["password_hash"] == records.hash_password("pw")
    assert not bob["is_admin"]
    assert state.store.get("departments", bob["department_id"]) == {"name": "Sales", "id": 2}
    assert state.store.get("companies", bob["company_id"]) == {
        **records.company("Acme", notes="shared"),
        "id": 1,
    }


def stable(store: Store) -> dict[str, list[Record]]:
    """The store's tables without what is generated anew on every load."""
    generated = {"token", "password_hash", "created", "updated", "public_id"}

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in generated}
        return value

    out = {table: [clean(r) for r in store.rows(table)] for table in store.tables}
    out["ws_api_keys"] = [{"name": k["name"]} for k in store.rows("ws_api_keys")]
    return out


def test_json_seed_loads_like_yaml(tmp_path: Path) -> None:
    data = YAML(typ="safe", pure=True).load(SMALL)
    seed = seed_text(tmp_path, json.dumps(data, indent="\t", default=str), "small.json")
    from_yaml, from_json = new_state(), new_state()
    initialise(from_yaml, SMALL)
    initialise(from_json, seed)
    assert stable(from_json.store) == stable(from_yaml.store)


def test_the_documented_example_loads(tmp_path: Path) -> None:
    (example,) = re.findall(r"## A complete example\n\n```yaml\n(.*?)```", DOC.read_text(), re.S)
    state = new_state()
    creds = initialise(state, seed_text(tmp_path, example))
    assert creds.helpdesk_username == "admin" and creds.workspace_api_key == "local-workspace-key"
    assert len(state.store.rows("assets")) == 1 and len(state.store.rows("rules")) == 1


def test_credentials_default_to_the_first_usable_admin(tmp_path: Path) -> None:
    seed = seed_text(
        tmp_path,
        "users:\n"
        "  - {username: nopass, email: n@example.com, role: admin}\n"
        "  - {username: off, email: o@example.com, password: pw, role: admin, disabled: true}\n"
        "  - {username: root, email: r@example.com, password: secret, role: admin}\n"
        "workspace:\n"
        "  api_keys: [{key: first, name: a}, {key: second, name: b}]\n",
    )
    creds = initialise(new_state(), seed)
    assert (creds.helpdesk_username, creds.helpdesk_password, creds.workspace_api_key) == (
        "root",
        "secret",
        "first",
    )
    seed.write_text(seed.read_text() + "credentials: {workspace_api_key: second}\n")
    assert initialise(new_state(), seed).workspace_api_key == "second"


# -- persistence and speed ----------------------------------------------------------------


def test_seed_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    config = SandboxConfig(rate_limit=0, search_rate_limit=0)
    state, creds, seeded_now = open_state(db, SMALL, config)
    assert seeded_now
    before = json.loads(json.dumps(state.store.tables))
    state.store.close()
    reopened = Store(db)
    assert json.loads(json.dumps(reopened.tables)) == before
    assert reopened.get("rules", 12) is not None and reopened.get("rules", 7) is not None
    reopened.close()
    state, again, seeded_now = open_state(db, SMALL, config)
    assert not seeded_now and again == creds
    state.store.close()


def test_the_seed_is_recorded_and_another_refused_when_insisted_on(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    config = SandboxConfig(rate_limit=0, search_rate_limit=0)
    state, _, _ = open_state(db, SMALL, config)
    assert state.store.get_meta(SEED_KEY) == seed_name(SMALL) == str(SMALL.resolve())
    state.store.close()
    empty = BUILTIN_SEEDS / "empty.yaml"
    with pytest.raises(OtherSeed, match=f"made from the seed {re.escape(str(SMALL.resolve()))}"):
        open_state(db, empty, config, insist=True)
    state, _, seeded_now = open_state(db, empty, config)  # not insisted on: as it is
    assert not seeded_now and state.store.get_meta(SEED_KEY) == str(SMALL.resolve())
    state.store.close()
    state, _, seeded_now = open_state(db, empty, config, reset=True, insist=True)
    assert seeded_now and state.store.get_meta(SEED_KEY) == "empty"
    state.store.close()


def big_seed(assets: int) -> str:
    lines = [
        "users:",
        ADMIN.rstrip(),
        "  - {username: owner, email: owner@example.com}",
        "companies: [{name: Acme}]",
        "custom_fields:",
        "  - {name: Warranty, type: date, usage: assets}",
        "  - {name: Colour, type: dropdown, usage: assets, options: [Black, Silver]}",
        "assets:",
    ]
    for n in range(assets):
        lines.append(
            f"  - {{serial_number: SN-{n:05d}, model_name: Model {n % 40},"
            f" manufacturer: Maker {n % 7}, type: Type {n % 5}, supplier: Supplier {n % 3},"
            f" company: Acme,"
            f" assigned_users: [owner], custom_fields: {{Warranty: 2027-01-{n % 28 + 1:02d},"
            f" Colour: {'Black' if n % 2 else 'Silver'}}}}}"
        )
    return "\n".join(lines) + "\n"


def test_a_thousand_assets_seed_completely(tmp_path: Path) -> None:
    # How fast is a figure for benchmarks/, not an assertion here (a busy machine fails it).
    # Nothing in the loader depends on the count; most of the time is YAML parsing.
    seed = seed_text(tmp_path, big_seed(1000))
    state = new_state(tmp_path / "big.db")
    initialise(state, seed)
    assert len(state.store.rows("assets")) == 1000
    assert len(state.store.rows("manufacturers")) == 7
    last = state.store.rows("assets")[-1]
    assert last["serial_number"] == "SN-00999" and last["custom"] != {}
    state.store.close()

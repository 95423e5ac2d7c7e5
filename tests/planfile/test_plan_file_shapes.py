"""A saved plan file read back (`apply PLANFILE`, reconciler/plans/planfile/): a file as `plan
--out` writes it reads back to the same plan and the same flags, and an edited or broken
file is refused with every problem named by its JSON path, as the user sees it
(`plan.json: changes[0].action: ...`). Data-driven: each row edits a file that reads back
and gives the problems expected, in order."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import PlanFileError
from reconciler.manifest.loader import load_manifest_text
from reconciler.plans import (
    Action,
    BrakeVerdict,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Plan,
    Ref,
    RenameHint,
    error,
    note,
    warning,
)
from reconciler.plans.planfile import (
    PlanInputs,
    SavedPlan,
    VarFile,
    differences,
    format_plan_file,
    manifests_digest,
    plan_from_dict,
    plan_from_json,
    read_plan_file,
    saved_plan_from_json,
    var_file_mismatch,
    write_plan_file,
)
from reconciler.render import format_json

ACME = 'companies["Acme.Corp"]'
DIGEST = "sha256:" + "a" * 64
LIVE = "sha256:" + "b" * 64

PLAN = Plan(
    changes=(
        Change(
            "companies",
            "Acme.Corp",
            Action.create,
            fields=(FieldChange("name", None, "Acme.Corp"), FieldChange("notes", None, "a\nb")),
            operations=(
                Operation(
                    "helpdesk",
                    "POST",
                    "/api/AddCompany",
                    {"name": "Acme.Corp", "tags": ["x", 1]},
                    creates=ACME,
                    description="create the company",
                    idempotent=False,
                ),
            ),
            reason="listed in companies.yaml",
            source="companies.yaml:3",
        ),
        Change(
            "users",
            "jdoe",
            Action.update,
            fields=(FieldChange("company", "Old", Ref(ACME)),),
            operations=(
                Operation(
                    "helpdesk",
                    "POST",
                    "/api/UpdateUser",
                    {"id": 7, "company": {"id": Ref(ACME)}, "list": [Ref(ACME, "name")]},
                ),
            ),
            depends_on=(ACME,),
            renamed_from="john",
        ),
        Change("users", "gone", Action.delete, removal=True),
    ),
    warnings=(Diagnostic("warning", "look", 'users["x"]', "do this", "users.yaml:1:1"),),
    errors=(Diagnostic("error", "bad"),),
    live_digest=LIVE,
    brake=BrakeVerdict(("too many deletions",)),
    scope={"changed_since": "main"},
    asserted=(
        Change(
            "automation_rules",
            "101",
            Action.enable,
            operations=(Operation("helpdesk", "POST", "/api/EnableRule", {"id": 101}),),
            asserted=True,
        ),
    ),
    notes=(Diagnostic("note", "fyi", location="rules.yaml:2:3"),),
)
INPUTS = PlanInputs(
    DIGEST,
    prune=True,
    targets=("companies", 'users["j d"]'),
    excludes=("assets",),
    var_files=(VarFile("vars/prod.yaml", "sha256:" + "c" * 64),),
    environment="prod",
)


def saved_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(format_plan_file(PLAN, INPUTS))
    return data


def test_a_saved_plan_reads_back_as_it_was_written(tmp_path: Path) -> None:
    path = tmp_path / "plans" / "plan.json"
    write_plan_file(path, PLAN, INPUTS)
    saved = read_plan_file(path)
    assert saved.plan == PLAN
    assert saved.inputs == INPUTS
    # what `apply` compares with a fresh plan: the changes, then the asserted ones
    data = saved_data()
    assert saved.changes == [*data["changes"], *data["asserted"]]
    assert saved.inputs.flags() == (
        '--prune --target companies --target users["j d"] --exclude assets '
        "--var-file vars/prod.yaml"
    )


def test_what_a_plan_file_records_of_how_it_was_made() -> None:
    assert saved_data()["made_from"] == {
        "version": 2,
        "manifests_digest": DIGEST,
        "prune": True,
        "targets": ["companies", 'users["j d"]'],
        "excludes": ["assets"],
        "var_files": [{"path": "vars/prod.yaml", "digest": "sha256:" + "c" * 64}],
        "environment": "prod",
        "live_digest": LIVE,
    }
    plain = json.loads(format_plan_file(Plan(()), PlanInputs(DIGEST)))["made_from"]
    assert "environment" not in plain  # without --env, files as before
    assert PlanInputs(DIGEST).flags() == "(none)"


def test_a_plan_json_without_made_from_reads_as_a_plan_but_not_as_a_saved_one() -> None:
    data = saved_data()
    del data["made_from"]
    assert plan_from_json(json.dumps(data), source="plan.json") == PLAN
    with pytest.raises(PlanFileError) as refused:
        saved_plan_from_json(json.dumps(data), source="plan.json")
    assert refused.value.problems == [
        "plan.json: made_from: missing: this file was not saved by `plan --out` of this "
        "version; plan again with --out"
    ]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = _steps(path)
        target: Any = data
        for step in parents:
            target = target[step]
        target[last] = value

    return edit


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = _steps(path)
        target: Any = data
        for step in parents:
            target = target[step]
        del target[last]

    return edit


def _both(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        for one in edits:
            one(data)

    return edit


def _steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in path.split("."):
        name, _, index = part.partition("[")
        steps.append(name)
        if index:
            steps.append(int(index.rstrip("]")))
    return steps


# (id, edit, the problems, each after "plan.json: ")
REFUSED: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    (
        "format version",
        _set("format_version", 2),
        [
            "format_version: this reconciler reads format 1 plans, not 2: plan again with "
            "this version"
        ],
    ),
    (
        "format version true",
        _set("format_version", True),
        [
            "format_version: this reconciler reads format 1 plans, not true: plan again with "
            "this version"
        ],
    ),
    ("missing changes", _delete("changes"), ["changes: missing"]),
    ("unknown field", _set("extra", 1), ["extra: unknown field"]),
    (
        "changes not a list",
        _set("changes", {}),
        ["changes: expected a list, found an object"],
    ),
    (
        "action",
        _set("changes[0].action", "make"),
        ['changes[0].action: "make" is not an action (create, update, delete, enable, disable)'],
    ),
    (
        "action not a string",
        _set("changes[2].action", 3),
        ["changes[2].action: 3 is not an action (create, update, delete, enable, disable)"],
    ),
    ("change missing action", _delete("changes[2].action"), ["changes[2].action: missing"]),
    (
        "address",
        _set("changes[1].address", 'users["someone"]'),
        [
            'changes[1].address: "users[\\"someone\\"]" is not the address of kind "users" '
            'and key "jdoe"'
        ],
    ),
    (
        "change not an object",
        _set("changes[1]", "users"),
        ["changes[1]: expected an object, found a string"],
    ),
    (
        "field missing before",
        _delete("changes[0].fields[1].before"),
        ["changes[0].fields[1].before: missing"],
    ),
    (
        "field path a number",
        _set("changes[0].fields[0].path", 5),
        ["changes[0].fields[0].path: expected a string, found a number"],
    ),
    (
        "params",
        _set("changes[0].operations[0].params", [1]),
        ["changes[0].operations[0].params: expected an object, found a list"],
    ),
    (
        "operation without params",
        _delete("changes[0].operations[0].params"),
        ["changes[0].operations[0].params: missing"],
    ),
    (
        "idempotent",
        _set("changes[0].operations[0].idempotent", "no"),
        ["changes[0].operations[0].idempotent: expected true or false, found a string"],
    ),
    (
        "operation unknown field",
        _set("changes[0].operations[0].body", {}),
        ["changes[0].operations[0].body: unknown field"],
    ),
    (
        "ref without attribute",
        _set("changes[1].fields[0].after", {"known_after_apply": "companies"}),
        [
            'changes[1].fields[0].after.known_after_apply: expected "address.attribute", '
            'found "companies"'
        ],
    ),
    (
        "ref in a list",
        _set("changes[1].operations[0].params.list[0]", {"known_after_apply": 12}),
        [
            "changes[1].operations[0].params.list[0].known_after_apply: expected "
            '"address.attribute", found 12'
        ],
    ),
    (
        "ref in an object",
        _set("changes[1].operations[0].params.company.id", {"known_after_apply": "x."}),
        [
            "changes[1].operations[0].params.company.id.known_after_apply: expected "
            '"address.attribute", found "x."'
        ],
    ),
    (
        "removal",
        _set("changes[2].removal", 1),
        ["changes[2].removal: expected true or false, found a number"],
    ),
    (
        "depends_on",
        _set("changes[1].depends_on", [None]),
        ["changes[1].depends_on[0]: expected a string, found null"],
    ),
    (
        "warning",
        _set("warnings[0].remedy", ["x"]),
        ["warnings[0].remedy: expected a string, found a list"],
    ),
    ("error", _delete("errors[0].message"), ["errors[0].message: missing"]),
    (
        "note",
        _set("notes[0].message", 1.5),
        ["notes[0].message: expected a string, found a number"],
    ),
    (
        "asserted not flagged",
        _delete("asserted[0].asserted"),
        ["asserted[0].asserted: missing: every entry here is asserted"],
    ),
    ("brake", _set("brake.holds", False), ["brake.holds: disagrees with the reasons"]),
    (
        "brake reasons",
        _delete("brake.reasons"),
        ["brake.reasons: missing", "brake.holds: disagrees with the reasons"],
    ),
    (
        "brake not an object",
        _set("brake", []),
        ["brake: expected an object, found a list"],
    ),
    (
        "summary",
        _set("summary.delete", 2),
        [
            "summary: does not match the changes, which make 1 to create, 1 to update, "
            "1 to delete, 0 to enable, 0 to disable"
        ],
    ),
    (
        "live digest",
        _set("live_digest", 5),
        ["live_digest: expected a string, found a number"],
    ),
    (
        "made_from field",
        _delete("made_from.prune"),
        ["made_from.prune: missing"],
    ),
    (
        "made_from unknown",
        _set("made_from.extra", True),
        ["made_from.extra: unknown field"],
    ),
    (
        "manifests digest",
        _set("made_from.manifests_digest", "md5:00"),
        ["made_from.manifests_digest: expected a sha256: digest"],
    ),
    (
        "manifests digest a number",
        _set("made_from.manifests_digest", 5),
        [
            "made_from.manifests_digest: expected a string, found a number",
            "made_from.manifests_digest: expected a sha256: digest",
        ],
    ),
    (
        "brake holds not a flag",
        _set("brake", {"holds": "no", "reasons": []}),
        ["brake.holds: expected true or false, found a string"],
    ),
    (
        "an action not ASCII",
        _set("changes[0].action", "créer"),
        ['changes[0].action: "créer" is not an action (create, update, delete, enable, disable)'],
    ),
    (
        "a long action",
        _set("changes[0].action", "x" * 100),
        [
            'changes[0].action: "' + "x" * 52 + "..." + "x" * 23 + '" is not an action '
            "(create, update, delete, enable, disable)"
        ],
    ),
    (
        "brake reasons not a list",
        _set("brake.reasons", "too many"),
        [
            "brake.reasons: expected a list, found a string",
            "brake.holds: disagrees with the reasons",
        ],
    ),
    (
        "a boolean for a kind",
        _set("changes[2].kind", True),
        [
            "changes[2].kind: expected a string, found a boolean",
            'changes[2].address: "users[\\"gone\\"]" is not the address of kind "" and key "gone"',
        ],
    ),
    (
        "a number for a key",
        _set("changes[2].key", 5),
        [
            "changes[2].key: expected a string, found a number",
            'changes[2].address: "users[\\"gone\\"]" is not the address of kind "users" and key ""',
        ],
    ),
    (
        "targets",
        _set("made_from.targets", "companies"),
        ["made_from.targets: expected a list, found a string"],
    ),
    (
        "excludes",
        _set("made_from.excludes", [1]),
        ["made_from.excludes[0]: expected a string, found a number"],
    ),
    (
        "environment",
        _set("made_from.environment", 3),
        ["made_from.environment: expected a string, found a number"],
    ),
    (
        "version",
        _set("made_from.version", 3),
        ["made_from.version: 3 is not a version this reads (1, 2)"],
    ),
    (
        "version true",
        _set("made_from.version", True),
        ["made_from.version: True is not a version this reads (1, 2)"],
    ),
    (
        "version 1 with var files",
        _both(_set("made_from.version", 1), _set("made_from.var_files", ["vars/prod.yaml"])),
        [
            "made_from.var_files: var files recorded by path only (a plan saved by an "
            "earlier version): plan again with --out"
        ],
    ),
    (
        "var file digest",
        _set("made_from.var_files[0].digest", "c" * 64),
        ["made_from.var_files[0].digest: expected a sha256: digest"],
    ),
    (
        "var file path",
        _delete("made_from.var_files[0].path"),
        ["made_from.var_files[0].path: missing"],
    ),
    (
        "live digest edited",
        _set("made_from.live_digest", "sha256:" + "d" * 64),
        ["made_from.live_digest: differs from live_digest"],
    ),
    (
        "made_from null",
        _set("made_from", None),
        ["made_from: expected an object, found null"],
    ),
    ("made_from without targets", _delete("made_from.targets"), ["made_from.targets: missing"]),
    (
        "prune not a flag",
        _set("made_from.prune", "yes"),
        ["made_from.prune: expected true or false, found a string"],
    ),
    ("without var files", _delete("made_from.var_files"), ["made_from.var_files: missing"]),
    (
        "version 1 without var files",
        _both(_set("made_from.version", 1), _delete("made_from.var_files")),
        ["made_from.var_files: missing"],
    ),
    (
        "version 1 var files not a list",
        _both(_set("made_from.version", 1), _set("made_from.var_files", "vars/prod.yaml")),
        ["made_from.var_files: expected a list, found a string"],
    ),
    (
        "var file digest a number",
        _set("made_from.var_files[0].digest", 5),
        [
            "made_from.var_files[0].digest: expected a string, found a number",
            "made_from.var_files[0].digest: expected a sha256: digest",
        ],
    ),
    (
        "var file path a number",
        _set("made_from.var_files[0].path", 5),
        ["made_from.var_files[0].path: expected a string, found a number"],
    ),
    (
        "asserted reason a number",
        _set("asserted[0].reason", 1),
        ["asserted[0].reason: expected a string, found a number"],
    ),
    (
        "rename hint not an object",
        _set("changes[0].rename_hints", ["john"]),
        ["changes[0].rename_hints[0]: expected an object, found a string"],
    ),
    (
        "rename hint of numbers",
        _set("changes[0].rename_hints", [{"key": 1, "id": 2, "reason": 3, "previously": 4}]),
        [
            "changes[0].rename_hints[0].key: expected a string, found a number",
            "changes[0].rename_hints[0].reason: expected a string, found a number",
            "changes[0].rename_hints[0].previously: expected a string, found a number",
        ],
    ),
    (
        "address a number",
        _set("changes[2].address", 7),
        [
            "changes[2].address: expected a string, found a number",
            'changes[2].address: "" is not the address of kind "users" and key "gone"',
        ],
    ),
    (
        "source a number",
        _set("changes[0].source", 3),
        ["changes[0].source: expected a string, found a number"],
    ),
    (
        "sources of another change",
        _set("changes[0].sources", ["other.yaml:1"]),
        ["changes[0].sources: does not start with the change's source"],
    ),
    (
        "asserted not a flag",
        _set("changes[0].asserted", "yes"),
        ["changes[0].asserted: expected true or false, found a string"],
    ),
    (
        "renamed_from a number",
        _set("changes[1].renamed_from", 5),
        ["changes[1].renamed_from: expected a string, found a number"],
    ),
    (
        "operation of numbers",
        _both(
            *(
                _set(f"changes[0].operations[0].{name}", 1)
                for name in ("service", "method", "path", "creates", "description")
            )
        ),
        [
            f"changes[0].operations[0].{name}: expected a string, found a number"
            for name in ("creates", "service", "method", "path", "description")
        ],
    ),
    ("missing warnings", _delete("warnings"), ["warnings: missing"]),
    ("missing errors", _delete("errors"), ["errors: missing"]),
    (
        "sources of numbers",
        _set("changes[0].sources", [5]),
        [
            "changes[0].sources[0]: expected a string, found a number",
            "changes[0].sources: does not start with the change's source",
        ],
    ),
    (
        "ref before",
        _set("changes[1].fields[0].before", {"known_after_apply": "companies"}),
        [
            'changes[1].fields[0].before.known_after_apply: expected "address.attribute", '
            'found "companies"'
        ],
    ),
    (
        "two problems",
        _both(_set("changes[0].reason", 1), _set("errors", None)),
        [
            "changes[0].reason: expected a string, found a number",
            "errors: expected a list, found null",
        ],
    ),
]


@pytest.mark.parametrize(
    ("edit", "problems"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_an_edited_plan_file_is_refused_naming_each_problem(
    edit: Callable[[dict[str, Any]], None], problems: list[str]
) -> None:
    data = copy.deepcopy(saved_data())
    edit(data)
    with pytest.raises(PlanFileError) as refused:
        saved_plan_from_json(json.dumps(data), source="plan.json")
    assert refused.value.problems == [f"plan.json: {p}" for p in problems]


def test_a_version_1_file_without_var_files_reads_as_before() -> None:
    data = saved_data()
    data["made_from"]["version"] = 1
    data["made_from"]["var_files"] = []
    assert saved_plan_from_json(json.dumps(data)).inputs.var_files == ()
    del data["made_from"]["version"]  # no version at all: 1
    assert saved_plan_from_json(json.dumps(data)).inputs.var_files == ()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{", "plan.json:1:2: not JSON: Expecting property name enclosed in double quotes"),
        (b'{"a":\n  nope}', "plan.json:2:3: not JSON: Expecting value"),
        (b'{"a": "\xff"}', "plan.json: not UTF-8 text: invalid start byte"),
        (b"[]", "plan.json: expected an object, found a list"),
    ],
)
def test_a_file_that_is_no_plan_is_refused(content: bytes, problem: str) -> None:
    with pytest.raises(PlanFileError) as refused:
        saved_plan_from_json(content, source="plan.json")
    assert refused.value.problems[0] == problem


def test_a_plan_file_that_cannot_be_read_names_it(tmp_path: Path) -> None:
    with pytest.raises(PlanFileError) as refused:
        read_plan_file(tmp_path / "missing.json")
    assert refused.value.problems == [
        f"{tmp_path / 'missing.json'}: cannot be read: No such file or directory"
    ]


def _var_file(path: Path, content: str) -> VarFile:
    path.write_text(content, encoding="utf-8")
    found = VarFile.of(path)
    assert found is not None
    return found


def test_the_var_files_given_to_apply_must_be_those_the_plan_was_made_with(
    tmp_path: Path,
) -> None:
    first = _var_file(tmp_path / "a.yaml", "region: eu\n")
    second = _var_file(tmp_path / "b.yaml", "tier: gold\n")
    assert first.digest == "sha256:" + hashlib.sha256(b"region: eu\n").hexdigest()
    given = (tmp_path / "a.yaml", tmp_path / "b.yaml")
    assert var_file_mismatch((first, second), given) is None
    assert var_file_mismatch((), ()) is None
    assert var_file_mismatch((), (tmp_path / "a.yaml",)) == (
        "the saved plan was made with no --var-file; 1 --var-file given: give the same var "
        "files (a saved plan names them, never reads them), or plan again"
    )
    assert var_file_mismatch((first,), ()) == (
        f"the saved plan was made with --var-file {first.path} ({first.digest[:15]}...); "
        "0 --var-file given: give the same var files (a saved plan names them, never reads "
        "them), or plan again"
    )
    (tmp_path / "b.yaml").write_text("tier: silver\n", encoding="utf-8")
    assert var_file_mismatch((first, second), given) == (
        f"--var-file {tmp_path / 'b.yaml'}: its content differs from that of the var file the "
        f"saved plan was made with (--var-file {second.path} ({second.digest[:15]}...)): give "
        "the same file, or plan again"
    )
    # in another order: the first given differs already
    assert var_file_mismatch((second, first), given) is not None
    # a file that cannot be read is left to loading to report
    assert VarFile.of(tmp_path / "missing.yaml") is None
    assert var_file_mismatch((first,), (tmp_path / "missing.yaml",)) is None


def _saved_with(changes: list[Any]) -> SavedPlan:
    return SavedPlan(PLAN, INPUTS, changes)


def _now() -> list[dict[str, Any]]:
    return [c.to_dict() for c in PLAN.to_apply]


def test_a_fresh_plan_equal_to_the_saved_one_has_no_differences() -> None:
    saved = saved_plan_from_json(format_plan_file(PLAN, INPUTS))
    assert differences(saved, PLAN) == []


def test_each_path_that_differs_is_named_under_its_change() -> None:
    changes = json.loads(json.dumps(_now()))
    changes[0]["fields"][0]["after"] = "Acme Corp"  # a value
    changes[0]["operations"][0]["params"]["tags"] = ["x"]  # a list of another length
    changes[0]["operations"][0]["params"]["extra"] = 1  # a key only the saved plan has
    del changes[1]["depends_on"]  # a key only the fresh plan has
    changes[2]["removal"] = 1  # equal to true, but not the same JSON
    changes[3] = "EnableRule"  # no change at all
    assert differences(_saved_with(changes), PLAN) == [
        "(a change that is a string): in the saved plan, not in a plan made now",
        'automation_rules["101"]: in a plan made now, not in the saved plan',
        f"{ACME}: fields[0].after: differs from a plan made now",
        f"{ACME}: operations[0].params.extra: differs from a plan made now",
        f"{ACME}: operations[0].params.tags: differs from a plan made now",
        'users["gone"]: removal: differs from a plan made now',
        'users["jdoe"]: depends_on: differs from a plan made now',
    ]


def test_a_change_replaced_whole_is_named_as_a_whole() -> None:
    changes = [*_now()[:3], {"address": 'automation_rules["101"]', "operations": []}]
    assert differences(_saved_with(changes), PLAN) == [
        'automation_rules["101"]: action: differs from a plan made now',
        'automation_rules["101"]: asserted: differs from a plan made now',
        'automation_rules["101"]: fields: differs from a plan made now',
        'automation_rules["101"]: key: differs from a plan made now',
        'automation_rules["101"]: kind: differs from a plan made now',
        'automation_rules["101"]: operations: differs from a plan made now',
    ]
    other_key = [*_now()[:3], {**_now()[3], "x": 1}]  # a key the fresh plan lacks
    assert differences(_saved_with(other_key), PLAN) == [
        'automation_rules["101"]: x: differs from a plan made now'
    ]
    assert differences(_saved_with([*_now()[:3], ["list"]]), PLAN) == [
        "(a change that is a list): in the saved plan, not in a plan made now",
        'automation_rules["101"]: in a plan made now, not in the saved plan',
    ]


def test_the_same_changes_in_another_order_or_repeated_differ() -> None:
    now = _now()
    assert differences(_saved_with([now[1], now[0], *now[2:]]), PLAN) == [
        "the changes are the same, in another order or repeated"
    ]
    assert differences(_saved_with([*now, now[0]]), PLAN) == [
        "the changes are the same, in another order or repeated"
    ]


def test_at_most_twenty_differences_are_listed_then_counted() -> None:
    extra = [{"address": f'companies["c{i:02}"]'} for i in range(25)]
    found = differences(_saved_with([*_now(), *extra]), PLAN)
    assert len(found) == 21
    assert found[0] == 'companies["c00"]: in the saved plan, not in a plan made now'
    assert found[19] == 'companies["c19"]: in the saved plan, not in a plan made now'
    assert found[20] == "... and 5 more"
    exactly = differences(_saved_with([*_now(), *extra[:20]]), PLAN)
    assert len(exactly) == 20 and exactly[-1].startswith('companies["c19"]')


def test_a_saved_plan_file_reads_as_a_plan_for_display() -> None:
    """`plan_from_json` reads `plan --format json` and saved files alike (`show`)."""
    assert plan_from_json(format_plan_file(PLAN, INPUTS), source="plan.json") == PLAN


@pytest.mark.parametrize(
    ("read", "first"),
    [
        (lambda text: plan_from_json(text), "plan: changes[0].action: "),
        (lambda text: plan_from_json(text, source="p.json"), "p.json: changes[0].action: "),
        (lambda text: plan_from_dict(json.loads(text)), "plan: changes[0].action: "),
        (lambda text: saved_plan_from_json(text), "plan: changes[0].action: "),
    ],
)
def test_a_bad_plan_is_refused_naming_its_source(read: Any, first: str) -> None:
    data = saved_data()
    data["changes"][0]["action"] = "make"
    with pytest.raises(PlanFileError) as refused:
        read(json.dumps(data))
    assert refused.value.problems[0].startswith(first)


def test_a_plan_given_as_data_names_a_value_json_cannot_hold_by_its_type() -> None:
    data = saved_data()
    data["changes"] = tuple(data["changes"])
    with pytest.raises(PlanFileError) as refused:
        plan_from_dict(data, source="data")
    assert refused.value.problems == ["data: changes: expected a list, found tuple"]


def test_a_saved_plan_file_holds_the_plan_data_the_caller_gives(tmp_path: Path) -> None:
    data = PLAN.to_dict()
    data["changes"][0]["cause"] = "drift"  # what only the caller knows of each change
    write_plan_file(tmp_path / "plan.json", PLAN, INPUTS, data)
    written = json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))
    assert written == {**data, "made_from": {**INPUTS.to_dict(), "live_digest": LIVE}}


def test_a_var_file_is_recorded_by_its_path_as_given_and_the_digest_of_its_content(
    tmp_path: Path,
) -> None:
    (tmp_path / "prod.yaml").write_text("region: eu\n", encoding="utf-8")
    assert VarFile.of(tmp_path / "prod.yaml") == VarFile(
        str(tmp_path / "prod.yaml"), "sha256:" + hashlib.sha256(b"region: eu\n").hexdigest()
    )


def test_a_plan_file_names_its_path_in_each_problem(tmp_path: Path) -> None:
    data = saved_data()
    data["made_from"]["live_digest"] = 5
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PlanFileError) as refused:
        read_plan_file(path)
    assert refused.value.problems == [
        f"{path}: made_from.live_digest: expected a string, found a number"
    ]


def test_the_manifests_digest_follows_the_manifests_after_variables() -> None:
    one = load_manifest_text("companies:\n  - name: ${NAME}\n", variables={"NAME": "Acme"})
    same = load_manifest_text("companies:\n- {name: Acme}  # written otherwise\n")
    other = load_manifest_text("companies:\n  - name: Acme\n    notes: x\n")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", manifests_digest(one))
    assert manifests_digest(one) == manifests_digest(same)
    assert manifests_digest(one) != manifests_digest(other)


def test_an_explicit_null_is_part_of_what_a_plan_was_made_from() -> None:
    """`phone: null` clears an employee's phone; left out, the phone is not managed: two
    different plans, so two different digests."""
    cleared = load_manifest_text(
        "workspace:\n  employees:\n    - email: a@b.com\n      phone: null\n"
    )
    unmanaged = load_manifest_text("workspace:\n  employees:\n    - email: a@b.com\n")
    assert manifests_digest(cleared) != manifests_digest(unmanaged)


def test_the_saved_file_is_indented_readable_json() -> None:
    plan = Plan((Change("companies", "Zürich", Action.create),), live_digest=LIVE)
    text = format_plan_file(plan, PlanInputs(DIGEST))
    assert text.startswith('{\n  "format_version": 1,\n  "summary": {\n    "create": 1,\n')
    assert '"key": "Zürich"' in text
    assert text.endswith("\n  }\n}\n")
    nan = Plan((Change("users", "a", Action.update, fields=(FieldChange("x", 1, float("nan")),)),))
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        format_plan_file(nan, PlanInputs(DIGEST))


def test_a_file_without_a_version_that_names_var_files_by_path_is_refused() -> None:
    data = saved_data()
    del data["made_from"]["version"]
    data["made_from"]["var_files"] = ["vars/prod.yaml"]
    with pytest.raises(PlanFileError) as refused:
        saved_plan_from_json(json.dumps(data), source="plan.json")
    assert refused.value.problems == [
        "plan.json: made_from.var_files: var files recorded by path only (a plan saved by an "
        "earlier version): plan again with --out"
    ]


def test_a_part_of_a_change_of_another_shape_differs_as_a_whole() -> None:
    changes = json.loads(json.dumps(_now()))
    changes[0]["fields"] = {"name": "Acme.Corp"}  # an object where a list is now
    changes[1]["operations"][0]["params"] = []  # a list where an object is now
    assert differences(_saved_with(changes), PLAN) == [
        f"{ACME}: fields: differs from a plan made now",
        'users["jdoe"]: operations[0].params: differs from a plan made now',
    ]


def test_a_long_address_is_shortened_in_a_difference() -> None:
    address = 'companies["' + "x" * 150 + '"]'
    shown = 'companies["' + "x" * 69 + "..." + "x" * 35 + '"]'
    assert len(shown) == 120
    found = differences(_saved_with([*_now(), {"address": address}]), PLAN)
    assert found == [f"{shown}: in the saved plan, not in a plan made now"]


def test_every_var_file_a_plan_was_made_with_is_named(tmp_path: Path) -> None:
    first = _var_file(tmp_path / "a.yaml", "region: eu\n")
    second = _var_file(tmp_path / "b.yaml", "tier: gold\n")
    assert var_file_mismatch((first, second), ()) == (
        f"the saved plan was made with --var-file {first.path} ({first.digest[:15]}...), "
        f"--var-file {second.path} ({second.digest[:15]}...); 0 --var-file given: give the "
        "same var files (a saved plan names them, never reads them), or plan again"
    )


def test_a_long_var_file_path_is_shortened_to_300_characters_in_a_message() -> None:
    recorded = VarFile("a" * 200 + "b" * 101, "sha256:" + "c" * 64)
    assert var_file_mismatch((recorded,), ()) == (
        f"the saved plan was made with --var-file {'a' * 200}...{'b' * 97} (sha256:cccccccc...); "
        "0 --var-file given: give the same var files (a saved plan names them, never reads "
        "them), or plan again"
    )


# A plan read back from its JSON (planfile/shape.py) is the plan that was written, every optional
# part of a change and of the plan included: overlays' lines, a rename, the dependencies, the
# reason, a removal, rename hints, asserted values, notes, the brake and the scope.

CHANGE = Change(
    "users",
    "ann",
    Action.update,
    fields=(FieldChange("phone", "1", "2"), FieldChange("tags", ["a"], None)),
    operations=(
        Operation(
            "helpdesk",
            "POST",
            "/api/UpdateUser",
            {"id": Ref('companies["Acme"]'), "phone": "2"},
            description="set phone",
        ),
    ),
    depends_on=('companies["Acme"]',),
    reason="the manifest says so",
    source="users.yaml:3",
    refined_at=("overlays/a.yaml:7", "overlays/b.yaml:9"),
    renamed_from="annie",
)
EVERY_PART_PLAN = Plan(
    (
        CHANGE,
        Change("companies", "Old", Action.delete, removal=True, source="c.yaml:1"),
        Change(
            "companies",
            "Acme Corp",
            Action.create,
            rename_hints=(
                RenameHint(
                    "Acme", 12, "both have the e-mail domain acme.com", "previously: [Acme]"
                ),
            ),
        ),
    ),
    warnings=(warning("w", 'users["ann"]', "do this", "users.yaml:3:1"),),
    errors=(error("e"),),
    live_digest="sha256:" + "0" * 64,
    brake=BrakeVerdict(("too many",)),
    scope={"changed_since": "main", "kinds": ["users"]},
    asserted=(Change("automation_rules", "7", Action.enable, asserted=True),),
    notes=(note("n", remedy="nothing"),),
)


def test_every_part_of_a_plan_reads_back_as_written() -> None:
    read = plan_from_json(format_json(EVERY_PART_PLAN))
    assert read == EVERY_PART_PLAN
    assert read.changes[0].refined_at == ("overlays/a.yaml:7", "overlays/b.yaml:9")
    assert read.changes[0].renamed_from == "annie"
    assert format_json(read) == format_json(EVERY_PART_PLAN)


def test_a_change_with_one_overlay_line_keeps_it() -> None:
    plan = Plan(
        (Change("users", "bo", Action.create, source="u.yaml:1", refined_at=("o.yaml:2",)),)
    )
    assert plan_from_json(format_json(plan)).changes[0].refined_at == ("o.yaml:2",)

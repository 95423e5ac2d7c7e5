"""Plans (their JSON, as `Plan.to_dict()` gives it) with every kind of diagnostic, for the
report tests."""

from __future__ import annotations

from typing import Any

from reconciler.plans import Action, BrakeVerdict, Change, FieldChange, Plan, error, note, warning
from reconciler.plans.coverage import Coverage, KindCoverage


def drifted(notes: str = "Changed by hand") -> dict[str, Any]:
    change = Change(
        "companies",
        "Acme Corp",
        Action.update,
        fields=(FieldChange("notes", notes, "Our main company"),),
        source="manifests/companies.yaml:3",
    )
    coverage = Coverage({"companies": KindCoverage(3, 2, ("Initech",))})
    return Plan((change,), brake=BrakeVerdict(), coverage=coverage).to_dict()


def clean() -> dict[str, Any]:
    coverage = Coverage({"companies": KindCoverage(2, 2)})
    return Plan((), brake=BrakeVerdict(), coverage=coverage).to_dict()


def failed() -> dict[str, Any]:
    return Plan((), errors=(error("the helpdesk refused the read"),)).to_dict()


def every_diagnostic() -> dict[str, Any]:
    """An error, a warning and a note with a manifest location, an error without one, and
    a safety brake that holds over a removal that has a manifest line."""
    removal = Change(
        "users",
        "ivan",
        Action.disable,
        source="manifests/people.yaml:40",
        removal=True,
    )
    return Plan(
        (removal,),
        errors=(
            error(
                "company 'Globex, Inc: 100%' does not exist",
                address='users["alice"]',
                remedy="add it to companies",
                location="manifests/people.yaml:12:7",
            ),
            error("the workspace refused the read: 500"),
        ),
        warnings=(
            warning("two users share the e-mail a@x.com", location="manifests/people.yaml:31:5"),
        ),
        notes=(note("bob is a technician implicitly", location="manifests/people.yaml:20:3"),),
        brake=BrakeVerdict(("would disable 1 of 2 users (50%) > 25%",)),
    ).to_dict()


def several_kinds(environment: str) -> dict[str, Any]:
    """Four changes of two kinds and three actions, with the environment in a value."""
    changes = (
        Change(
            "companies",
            "Acme Corp",
            Action.update,
            fields=(FieldChange("notes", "by hand", f"Acme in {environment}"),),
            source="manifests/companies.yaml:3",
        ),
        Change(
            "users",
            "george",
            Action.create,
            fields=(FieldChange("email", None, "george@acme.com"),),
            source="manifests/people.yaml:10",
        ),
        Change("users", "ivan", Action.disable, source="manifests/people.yaml:20"),
        Change("users", "zoe", Action.update, fields=(FieldChange("last_name", "A", "B"),)),
    )
    coverage = Coverage(
        {"companies": KindCoverage(3, 2, ("Initech",)), "users": KindCoverage(4, 4)}
    )
    return Plan(
        changes,
        warnings=(warning("zoe has no manifest line", address='users["zoe"]'),),
        brake=BrakeVerdict(),
        coverage=coverage,
    ).to_dict()

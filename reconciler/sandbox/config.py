"""Configuration of a sandbox: limits, quirks of the real service, injected faults, and
the built-in seeds (`acme`, `empty`, ...) with how a seed is named: by one of their names
or by a file (`serve.py` and the embedded sandbox name seeds alike)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from reconciler.errors import UsageError

# The built-in seeds (`--seed NAME`, `--sandbox-seed NAME`): one YAML file each.
BUILTIN_SEEDS = Path(__file__).parent / "seeds"


def builtin_seed_names() -> list[str]:
    """The names of the built-in seeds, from the files that define them."""
    return sorted(path.stem for path in BUILTIN_SEEDS.glob("*.yaml"))


# Behaviours of versions of the real helpdesk that clients have observed (docs/sandbox.md).
# Off by default, so the sandbox follows the spec; each can be switched on by name so that
# the clients are tested against both.
QUIRKS: dict[str, str] = {
    "createuser-bare-int": 'CreateUser answers a bare integer instead of {"userId": N}',
    "createuser-duplicate-500": "CreateUser for an existing e-mail answers 500 instead of 400",
    "updateasset-keeps-quantity": "UpdateAsset without quantity keeps the quantity (the spec and "
    "the observed service reset it to 1)",
    "updateuser-blanks-omitted": "UpdateUser blanks every omitted field except notes",
    "rule-xml-minimal": "Rule XML carries only conditions and actions: no name, no enabled flag",
    "user-department-id": "user objects carry DepartmentID and DepartmentName, not Departman",
    "customfield-extra-keys": "custom field items carry OptionID, AccessType, ForTechsOnly, "
    "ValueWithOption, and definitions carry SelectionComboOptions",
    "asset-disabled-flag": "asset objects carry a Disabled flag",
    "no-retry-after": "429 answers carry no Retry-After header",
    "throttle-slow": "over the rate limit, answer slowly (after the window frees) instead of 429",
    "techs-list-implicit": "TechsForCategory also lists administrators and all-category "
    "technicians, in every category",
    "workspace-envelope": 'workspace lists answer {"data": [...], "total": N}, not a bare array',
    "workspace-int-ids": "workspace ids are integers instead of opaque strings",
}


@dataclass
class FaultConfig:
    """Faults switched on for tests. Rates are shares of requests (0.0 to 1.0).

    - `error_rate`: answer 500 before doing anything.
    - `drop_rate`: for writes, apply the write, then drop the connection (outcome unknown).
    - `slow_rate`/`slow_seconds`: answer after a delay.
    - `throttle_after`/`throttle_for`: from `throttle_after` seconds after the faults are
      armed, answer every request 429 for `throttle_for` seconds.
    """

    error_rate: float = 0.0
    drop_rate: float = 0.0
    slow_rate: float = 0.0
    slow_seconds: float = 1.0
    throttle_after: float = 0.0
    throttle_for: float = 0.0
    seed: int = 0

    @property
    def active(self) -> bool:
        return bool(self.error_rate or self.drop_rate or self.slow_rate or self.throttle_for)

    @classmethod
    def parse(cls, text: str) -> FaultConfig:
        """Parse `error=0.05,drop=0.02,slow=0.05,slow_seconds=1,throttle_after=5,
        throttle_for=20,seed=1` (names as the fields, or error/drop/slow for the rates)."""
        aliases = {"error": "error_rate", "drop": "drop_rate", "slow": "slow_rate"}
        names = {f.name for f in fields(cls)}
        values: dict[str, float | int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, raw = part.partition("=")
            key = aliases.get(key.strip(), key.strip())
            if not sep or key not in names:
                known = ", ".join(sorted(names | set(aliases)))
                raise ValueError(f"unknown fault setting {part!r}; known: {known}")
            try:
                values[key] = int(raw) if key == "seed" else float(raw)
            except ValueError:
                raise ValueError(f"fault setting {key} needs a number, got {raw!r}") from None
            if key.endswith("_rate") and not 0.0 <= values[key] <= 1.0:
                raise ValueError(f"fault setting {key} must be between 0 and 1")
        return cls(**values)  # type: ignore[arg-type]


@dataclass
class SandboxConfig:
    rate_limit: int = 90  # calls a minute per credential; 0 disables
    search_rate_limit: int = 60  # Search and UserByEmail
    rate_window: float = 60.0
    failed_logins_to_block: int = 3
    block_seconds: float = 300.0
    quirks: set[str] = field(default_factory=set)
    faults: FaultConfig = field(default_factory=FaultConfig)
    request_log_size: int = 20000

    def __post_init__(self) -> None:
        unknown = set(self.quirks) - set(QUIRKS)
        if unknown:
            raise ValueError(f"unknown quirk(s) {sorted(unknown)}; known: {sorted(QUIRKS)}")

    def quirk(self, name: str) -> bool:
        assert name in QUIRKS, name
        return name in self.quirks


# What `--faults` takes (`FaultConfig.parse`): the rates by their short names, then the rest.
FAULT_SETTINGS = ("error", "drop", "slow", "slow_seconds", "throttle_after", "throttle_for", "seed")


def seed_path(name_or_file: str) -> Path:
    """A built-in seed by name (`acme`, `empty`) or a seed file."""
    builtin = BUILTIN_SEEDS / f"{name_or_file}.yaml"
    if builtin.is_file():
        return builtin
    path = Path(name_or_file)
    if path.is_file():
        return path
    names = ", ".join(builtin_seed_names())
    raise UsageError(f"no seed {name_or_file!r}: give a file, or one of {names}")

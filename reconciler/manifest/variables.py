"""`${NAME}` in manifest values: replaced from the variables given, then from the
environment. `$${` writes a literal `${`; a `$` anywhere else is left as it is.

Only string values are substituted, never mapping keys, and the result stays a string:
pydantic's lax mode turns `"5"` into 5 where a field wants a number, and a custom field
value that came from a variable stays text (compared after normalisation anyway).

A manifest value is shown in plans, pull-request comments and reports, and written to the
services, so no variable that holds a credential is ever read (`Refusal`, reported with
the field it is in):
- the credential variables of masking.py (`HELPDESK_TOKEN`, ..., and
  `RECONCILER_SECRET_VARIABLES`);
- the variables reconciler.yaml names under `credentials:` of any environment (given as
  `credential_variables`);
- the CI platforms' tokens (`PLATFORM_CREDENTIALS`: `GITHUB_TOKEN`, `CI_JOB_TOKEN`, ...);
- a name that says it is a secret (`*_TOKEN`, `*_PASSWORD`, `*_SECRET`, `*_KEY`, ...),
  unless the manifests' `settings.allow_variables` names it (`allowed`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.yamltree import Node
from reconciler.masking import EXTRA_VARIABLES_SETTING, credential_names

_REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)(\}?)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# The tokens CI platforms (and reconciler's own CI commands) put in the environment.
PLATFORM_CREDENTIALS = frozenset(
    {
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "RECONCILER_GITHUB_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "GITLAB_TOKEN",
        "RECONCILER_GITLAB_TOKEN",
        "CI_JOB_TOKEN",
        "CI_JOB_JWT",
        "CI_JOB_JWT_V1",
        "CI_JOB_JWT_V2",
        "CI_REGISTRY_PASSWORD",
        "CI_DEPLOY_PASSWORD",
        "SYSTEM_ACCESSTOKEN",
    }
)
# Names that say they hold a secret (compared upper-cased).
SECRET_NAME = re.compile(r"(?:^|_)(?:TOKEN|PASSWORD|PASSWD|SECRET|KEY|APIKEY)$")
_SHOWN = "values in manifests are shown in plans and pull-request comments"


class Refusal(str):
    """A problem with a reference to a credential: the loader names the field it is in."""

    __slots__ = ()


class Variables:
    """Looks names up in `variables` first, then in `env`. No credential is ever looked up
    (module docstring); a secret-looking name only when it is `allowed`."""

    def __init__(
        self,
        env: Mapping[str, str],
        variables: Mapping[str, str] | None = None,
        *,
        credential_variables: Iterable[str] = (),
        allowed: Iterable[str] = (),
    ) -> None:
        self._env = env
        self._variables = variables or {}
        self._credentials = frozenset(credential_names(env))
        self._project = frozenset(credential_variables)
        self.allowed = frozenset(allowed)
        self.refused: set[str] = set()  # the secret-looking names refused so far

    def allowing(self, names: Iterable[str]) -> Variables:
        """The same lookups, with the secret-looking `names` allowed."""
        return Variables(
            self._env,
            self._variables,
            credential_variables=self._project,
            allowed=self.allowed | frozenset(names),
        )

    def credential(self, name: str) -> str | None:
        """Why `name` holds a credential (no allowance can change it), or None."""
        if name in self._credentials:
            return (
                f"a manifest may not read {', '.join(sorted(self._credentials))} ({_SHOWN}; "
                f"{EXTRA_VARIABLES_SETTING} names more)"
            )
        if name in self._project:
            return f"reconciler.yaml names {name} under `credentials:` ({_SHOWN})"
        if name in PLATFORM_CREDENTIALS:
            return f"{name} is a CI platform's token ({_SHOWN})"
        return None

    def refusal(self, name: str) -> Refusal | None:
        """The problem with reading `name`, or None when it may be read."""
        why = self.credential(name)
        if why is not None:
            return Refusal(f"'${{{name}}}' refers to a credential: {why}")
        if SECRET_NAME.search(name.upper()) and name not in self.allowed:
            self.refused.add(name)
            return Refusal(
                f"'${{{name}}}' may hold a secret (its name says so), and {_SHOWN}: "
                f"list {name} under settings.allow_variables if it holds none"
            )
        return None

    def substitute(self, text: str) -> tuple[str, list[str]]:
        """The text with every reference replaced, and a message per reference that could
        not be (the reference is then left as written)."""
        if "$" not in text:  # the common case, and the cheap one
            return text, []
        problems: list[str] = []

        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$${":  # matched before `${` at its position: never expanded
                return "${"
            name, closed = match.group(1), match.group(2)
            refused = self.refusal(name) if closed and _NAME.fullmatch(name) else None
            if not closed:
                problems.append("unterminated '${': write '${NAME}', or '$${' for a literal '${'")
            elif not _NAME.fullmatch(name):
                problems.append(
                    f"invalid variable name '{name}' in '${{{name}}}': names are letters, "
                    "digits and '_', not starting with a digit ('$${' writes a literal '${')"
                )
            elif refused is not None:
                problems.append(refused)
            else:
                value = self._variables.get(name, self._env.get(name))
                if value is not None:
                    return value
                problems.append(f"variable '{name}' is not set")
            return match.group(0)

        return _REFERENCE.sub(replace, text), problems


def allowed_variables(
    parsed: Sequence[tuple[Source, Node]], problems: Problems, variables: Variables
) -> frozenset[str]:
    """The names `settings.allow_variables` lists (read before the manifests are checked:
    the values are substituted while they are read). Listing a credential is a problem:
    no setting makes one readable."""
    allowed: set[str] = set()
    for source, root in parsed:
        settings = root.child("settings")
        listed = settings.child("allow_variables") if settings is not None else None
        if listed is None or not isinstance(listed.value, list):
            continue
        for index, item in enumerate(listed.value):
            name = item.value
            if not isinstance(name, str):
                continue  # the schema reports it
            why = variables.credential(name)
            if why is not None:
                where = f"settings.allow_variables[{index}]"
                problems.at(source, item, f"{where}: {name} cannot be allowed: {why}")
            else:
                allowed.add(name)
    return frozenset(allowed)


def field_at(roots: Sequence[Node], line: int, column: int) -> str:
    """The path of the value that starts at `line`:`column` (`companies[0].notes`), or ""
    (searched only when a reference is refused)."""
    for root in roots:
        found = _path_to(root, line, column, "")
        if found is not None:
            return found
    return ""


def _path_to(node: Node, line: int, column: int, path: str) -> str | None:
    if node.keys is None and not isinstance(node.value, list):
        return path if (node.line, node.column) == (line, column) else None
    if isinstance(node.value, dict):
        items = [
            (f"{path}.{key}" if path else str(key), child) for key, child in node.value.items()
        ]
    else:
        items = [(f"{path}[{index}]", child) for index, child in enumerate(node.value)]
    for inner, child in items:
        found = _path_to(child, line, column, inner)
        if found is not None:
            return found
    return None

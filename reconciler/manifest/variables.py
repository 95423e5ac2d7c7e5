"""`${NAME}` in manifest values: replaced from the variables given, then from the
environment. `$${` writes a literal `${`; a `$` anywhere else is left as it is.

Only string values are substituted, never mapping keys, and the result stays a string:
pydantic's lax mode turns `"5"` into 5 where a field wants a number, and a custom field
value that came from a variable stays text (compared after normalisation anyway).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reconciler.masking import EXTRA_VARIABLES_SETTING, credential_names

_REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)(\}?)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Variables:
    """Looks names up in `variables` first, then in `env`. The credential variables
    (masking.py) are never looked up: a manifest value is printed in plans and comments."""

    def __init__(self, env: Mapping[str, str], variables: Mapping[str, str] | None = None) -> None:
        self._env = env
        self._variables = variables or {}
        self._credentials = frozenset(credential_names(env))

    def lookup(self, name: str) -> str | None:
        if name in self._variables:
            return self._variables[name]
        return self._env.get(name)

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
            if not closed:
                problems.append("unterminated '${': write '${NAME}', or '$${' for a literal '${'")
            elif not _NAME.fullmatch(name):
                problems.append(
                    f"invalid variable name '{name}' in '${{{name}}}': names are letters, "
                    "digits and '_', not starting with a digit ('$${' writes a literal '${')"
                )
            elif name in self._credentials:
                problems.append(
                    f"'${{{name}}}' refers to a credential: a manifest may not read "
                    f"{', '.join(sorted(self._credentials))} (values in manifests are shown "
                    f"in plans and pull-request comments; {EXTRA_VARIABLES_SETTING} names more)"
                )
            else:
                value = self.lookup(name)
                if value is not None:
                    return value
                problems.append(f"variable '{name}' is not set")
            return match.group(0)

        return _REFERENCE.sub(replace, text), problems

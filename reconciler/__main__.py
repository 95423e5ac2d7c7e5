"""`python -m reconciler` and the installed `reconciler` script: the CLI."""

from __future__ import annotations

from reconciler.cli import main


def command() -> None:
    """The installed `reconciler` script (pyproject.toml's console script)."""
    main()


if __name__ == "__main__":  # `python -m reconciler`
    main()

"""The environment variables each command reads, listed at the end of its --help, so that
nobody has to read the code to find how a connection or a secret is passed."""

from __future__ import annotations

import inspect

import click

VARIABLES = {
    "HELPDESK_URL": "helpdesk base address, the part before /api (or --helpdesk-url)",
    "HELPDESK_TOKEN": "helpdesk API token (Bearer)",
    "HELPDESK_USERNAME": "helpdesk user, with HELPDESK_PASSWORD (Basic), if no token",
    "HELPDESK_PASSWORD": "that user's password",
    "WORKSPACE_URL": "workspace base address (or --workspace-url)",
    "WORKSPACE_API_KEY": "workspace API key",
    "REQUESTS_CA_BUNDLE": "PEM certificates to check the servers' against (or --ca-file)",
    "SSL_CERT_FILE": "the same, when neither is given (SSL_CERT_DIR: a directory of them)",
    "${NAME}": "any variable a manifest value names (after --var-file values)",
    "NO_COLOR": "set: no colour even on a terminal",
    "RECONCILER_PROGRESS_INTERVAL": "seconds between progress lines off a terminal (30)",
    "RECONCILER_TIMEOUT": "longest wait for one answer, in seconds (or --timeout; 60)",
    "RECONCILER_DEBUG": "set: show the traceback of an internal error",
    "GITHUB_TOKEN": "GitHub: a token allowed to write issues (RECONCILER_GITHUB_TOKEN wins)",
    "GITHUB_REPOSITORY": "GitHub: OWNER/REPO of the issue",
    "GITHUB_API_URL": "GitHub: the API's address (https://api.github.com)",
    "RECONCILER_GITLAB_TOKEN": "GitLab: a token with the api scope",
    "CI_PROJECT_ID": "GitLab: the project of the issue",
    "CI_API_V4_URL": "GitLab: the API's address",
}
CONNECTION = (
    "HELPDESK_URL",
    "HELPDESK_TOKEN",
    "HELPDESK_USERNAME",
    "HELPDESK_PASSWORD",
    "WORKSPACE_URL",
    "WORKSPACE_API_KEY",
    "RECONCILER_TIMEOUT",
    "REQUESTS_CA_BUNDLE",
    "SSL_CERT_FILE",
)
COMMON = ("NO_COLOR", "RECONCILER_DEBUG")
READS = {
    "plan": (*CONNECTION, "${NAME}", "RECONCILER_PROGRESS_INTERVAL", *COMMON),
    "apply": (*CONNECTION, "${NAME}", "RECONCILER_PROGRESS_INTERVAL", *COMMON),
    "export": (*CONNECTION, "RECONCILER_PROGRESS_INTERVAL", *COMMON),
    "validate": ("${NAME}", *COMMON),
    "drift-issue": (
        "GITHUB_TOKEN",
        "GITHUB_REPOSITORY",
        "GITHUB_API_URL",
        "RECONCILER_GITLAB_TOKEN",
        "CI_PROJECT_ID",
        "CI_API_V4_URL",
        *COMMON,
    ),
}


def document_environment(command: click.Command, name: str | None = None) -> None:
    """Append "Environment variables" to the help of `command` and its subcommands."""
    if isinstance(command, click.Group):
        for sub_name, sub in command.commands.items():
            document_environment(sub, sub_name)
        return
    names = READS.get(name or "", COMMON)
    width = max(len(n) for n in names)
    lines = [f"  {n.ljust(width)}  {VARIABLES[n]}" for n in names]
    # "\b" keeps click from re-wrapping the table into one paragraph.
    block = "\b\nEnvironment variables:\n" + "\n".join(lines)
    # cleandoc: a docstring's later paragraphs keep their indentation otherwise, and click
    # wraps them with it (`sandbox serve --help`).
    command.help = f"{inspect.cleandoc(command.help or '')}\n\n{block}"

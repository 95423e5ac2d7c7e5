"""What the benchmarks measure of the processes they start, shared by them."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import reconciler


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used so far (Linux /proc; OSError
    elsewhere): the sandbox server shares this machine's cores with the client."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def compile_package() -> None:
    """The package's bytecode, as `pip install` writes it: with PYTHONDONTWRITEBYTECODE set
    (as on the shared machine) every child would otherwise compile the package again,
    about 0.3 s of CPU charged to every run's start-up."""
    compileall.compile_dir(Path(reconciler.__file__).parent, quiet=1)

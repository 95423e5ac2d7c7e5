"""Run one `reconciler` command in this process under cProfile on the CPU clock (time
spent waiting for answers is not counted), then print the top entries by internal and by
cumulative time, and optionally write the pstats file. The command runs exactly as
`python -m reconciler ARGS` does (environment, working directory, exit code), without the
quick exit, so that the profile is written.

    python benchmarks/profile_command.py [--top 30] [--out FILE] [--sort tottime,cumulative] \
        -- apply MANIFESTS --yes ...

benchmarks/fleet_bench.py (`--profile FILE`) and benchmarks/client_cpu.py
(`--profile-cli FILE`) run their commands through it.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import signal
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", help="also write the pstats file here")
    parser.add_argument("--sort", default="tottime,cumulative")
    parser.add_argument("--report", help="write the printed profile here (default: stderr)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    args = options.command[1:] if options.command[:1] == ["--"] else options.command
    from reconciler.cli import main as cli

    sys.argv = ["reconciler", *args]
    # `sandbox serve` ends on SIGTERM (SandboxProcess.stop): uvicorn restores this handler
    # and raises the signal again once it has stopped; ending by SystemExit writes the profile.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    profiler = cProfile.Profile(time.process_time)
    began = time.process_time()
    code: object = 0
    profiler.enable()
    try:
        cli()
    except SystemExit as stop:
        code = stop.code
    finally:
        profiler.disable()
    cpu = time.process_time() - began
    if options.out:
        profiler.dump_stats(options.out)
    out = io.StringIO()
    out.write(f"profile of `reconciler {' '.join(args)}`: {cpu:.2f} s CPU under the profiler\n")
    for key in options.sort.split(","):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(key).print_stats(options.top)
        value = text.getvalue()
        out.write(value[value.index("   ncalls") :] if "   ncalls" in value else value)
    if options.report:
        with open(options.report, "w", encoding="utf-8") as report:
            report.write(out.getvalue())
    else:
        sys.stderr.write(out.getvalue())
    sys.exit(code)


if __name__ == "__main__":
    main()

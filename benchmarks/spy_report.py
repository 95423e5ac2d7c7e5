"""Summarise py-spy's collapsed stacks (`py-spy record --format raw`): the share of the
samples in which each function is on the stack (inclusive) and on top (self), and the
shares of named parts of the run (`--part NAME=PATTERN`, a substring of a frame; a sample
counts for the first part, in the order given, whose pattern is on its stack).

A sampling profiler costs the sampled process almost nothing, unlike cProfile (which
inflates small functions several times over): its shares are the ones to compare.

    python benchmarks/spy_report.py FILE [--top 40] [--part send=sender.py:send ...]
"""

from __future__ import annotations

import argparse
from collections import Counter

DEFAULT_PARTS = [
    "build request=build_request",
    "cheap request=prepared.py",
    "httpx send=_client.py:1594",
    "sender (rest)=sender.py",
    "records=_records.py",
    "planning=planning/plan.py",
    "render=render/",
    "client set-up=open_clients",
    "imports=_find_and_load",
    "loading=manifest/",
    "asyncio=asyncio/",
]


def read(path: str) -> list[tuple[list[str], int]]:
    stacks = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.rstrip("\n")
            if not line:
                continue
            frames, _, count = line.rpartition(" ")
            stacks.append((frames.split(";"), int(count)))
    return stacks


def frame_key(frame: str) -> str:
    """`function (path/to/file.py:LINE)` -> `file.py:function` (lines differ per sample)."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    short = "/".join(path.split("/")[-2:])
    return f"{short}:{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--part", action="append", help="NAME=PATTERN (repeatable)")
    options = parser.parse_args()
    stacks = read(options.file)
    total = sum(count for _, count in stacks) or 1
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for frames, count in stacks:
        for key in {frame_key(frame) for frame in frames}:
            inclusive[key] += count
        if frames:
            own[frame_key(frames[-1])] += count
    print(f"{total} samples")
    parts = [part.split("=", 1) for part in (options.part or DEFAULT_PARTS)]
    shares: Counter[str] = Counter()
    for frames, count in stacks:
        keys = [(frame_key(frame), frame) for frame in frames]
        for name, pattern in parts:
            if any(pattern in key or pattern in frame for key, frame in keys):
                shares[name] += count
                break
        else:
            shares["other"] += count
    print("\nparts (a sample counts for the first part on its stack, in this order):")
    for name, _ in [*parts, ("other", "")]:
        print(f"  {shares[name] / total * 100:5.1f} %  {name}")
    print(f"\ninclusive (top {options.top}):")
    for key, count in inclusive.most_common(options.top):
        print(f"  {count / total * 100:5.1f} %  {key}")
    print(f"\nself (top {options.top}):")
    for key, count in own.most_common(options.top):
        print(f"  {count / total * 100:5.1f} %  {key}")


if __name__ == "__main__":
    main()

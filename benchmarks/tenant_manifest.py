"""A generated tenant as one YAML manifest, written the way people write manifests (block
style, comments, dates, booleans, multi-line notes): `companies` companies, `users` users
and `assets` assets, each with custom fields. The default size (300, 5,000, 5,000: 10,300
objects) is issue 13's, about 1.8 MB.

    python benchmarks/tenant_manifest.py OUT.yaml [--companies 300 --users 5000 --assets 5000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEPARTMENTS = ("IT", "Finance", "Sales", "Operations", "Legal")
TIERS = ("Gold", "Silver", "Bronze")


def manifest_text(companies: int, users: int, assets: int) -> str:
    lines = [
        "# A generated tenant (benchmarks/tenant_manifest.py).",
        "settings:",
        "  prune: []",
        "  custom_field_options:",
        "    companies:",
        "      Contract tier: {Gold: 11, Silver: 12, Bronze: 13}",
        "companies:",
    ]
    for c in range(companies):
        lines += [
            f"  - name: Company {c:04d}",
            f"    email_domains: [c{c:04d}.example.com, c{c:04d}.example.org]",
            f"    notes: Customer number {c}, served from the {DEPARTMENTS[c % 5]} desk.",
            "    custom_fields:",
            f"      Contract tier: {TIERS[c % 3]}   # renegotiated yearly",
            f"      Renewal date: 20{27 + c % 3}-0{1 + c % 9}-1{c % 10}",
            f"      VIP: {'true' if c % 7 == 0 else 'false'}",
            "      Billing address: |",
            f"        Company {c:04d} Ltd",
            f"        {c} Canal Street",
            "        London",
        ]
    lines += ["departments:"] + [f"  - name: {name}" for name in DEPARTMENTS] + ["users:"]
    for u in range(users):
        lines += [
            f"  - username: user{u:05d}",
            f"    email: user{u:05d}@c{u % companies:04d}.example.com",
            f"    first_name: First{u}",
            f"    last_name: 'Last {u}'",
            f"    company: Company {u % companies:04d}",
            f"    department: {DEPARTMENTS[u % 5]}",
            "    custom_fields:",
            f"      Employee ID: E-{u:05d}",
            f"      Start date: 20{10 + u % 15}-0{1 + u % 9}-2{u % 8}",
        ]
    lines.append("assets:")
    for a in range(assets):
        lines += [
            f"  - serial_number: SN-{a:06d}",
            "    model_name: ThinkPad X1",
            "    manufacturer: Lenovo",
            f"    quantity: {1 + a % 3}",
            f"    company: Company {a % companies:04d}",
            f"    assigned_users: [user{a % users:05d}]",
            "    custom_fields:",
            f"      Warranty until: 20{27 + a % 3}-0{1 + a % 9}-1{a % 10}",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--companies", type=int, default=300)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--assets", type=int, default=5000)
    args = parser.parse_args()
    args.out.write_text(manifest_text(args.companies, args.users, args.assets), encoding="utf-8")


if __name__ == "__main__":
    main()

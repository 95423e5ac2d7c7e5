"""Credentials registered while output is being written (a fleet's clients register
theirs as each tenant connects, between one environment's printed plan and the next)
are masked from the next write on, and the longest form still wins (masking.py compiles
its pattern when text is next masked, not at each registration)."""

from __future__ import annotations

from reconciler.masking import REDACTED, Masker


def test_each_value_is_masked_from_the_first_mask_after_it_was_added() -> None:
    masker = Masker(["tenant-1-secret"])
    assert masker.mask("a tenant-1-secret b tenant-2-secret") == f"a {REDACTED} b tenant-2-secret"
    masker.add(["tenant-2-secret"])
    assert masker.mask("tenant-2-secret tenant-1-secret") == f"{REDACTED} {REDACTED}"
    masker.add(["abc"])  # too short: masks nothing, changes nothing
    assert masker.mask("abc tenant-2-secret") == f"abc {REDACTED}"


def test_the_longest_value_wins_whatever_the_order_they_were_added_in() -> None:
    masker = Masker(["pass"])
    assert masker.mask("password") == f"{REDACTED}word"
    masker.add(["password"])
    assert masker.mask("password pass") == f"{REDACTED} {REDACTED}"
    assert masker.mask("a passwor") == f"a {REDACTED}wor"


def test_a_masker_is_true_once_it_masks_something() -> None:
    masker = Masker([])
    assert not masker
    masker.add(["long-enough"])
    assert masker
    assert masker.mask("x long-enough%21") == f"x {REDACTED}%21"


def test_many_tenants_credentials_are_all_masked() -> None:
    masker = Masker([])
    for number in range(150):
        masker.add([f"tenant-{number:03d}-password", f"key {number:03d}/x"])
    text = " ".join(f"tenant-{n:03d}-password key%20{n:03d}%2Fx" for n in range(150))
    assert masker.mask(text) == " ".join(f"{REDACTED} {REDACTED}" for _ in range(150))

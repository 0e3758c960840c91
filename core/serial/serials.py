"""Serials: eight digits and the letters of a Federal Reserve note, dealt from an injected source.

Randomness is an input: :func:`deal_serial` takes any object with ``randrange`` (a
``secrets.SystemRandom`` in play, a seeded ``random.Random`` in tests and benchmarks).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

from ..game import RandomSource

__all__ = ["SLIP_LENGTH", "SLIP_ROUNDS", "RandomSource", "Serial", "deal_serial", "deal_slip", "default_rng"]

SLIP_LENGTH = 15
SLIP_ROUNDS = 10

# The first prefix letter names one of the twelve Federal Reserve Banks (A-L); the others avoid O.
_BANKS = "ABCDEFGHIJKL"
_LETTERS = "ABCDEFGHIJKLMNPQRSTUVWXYZ"
_SERIAL_TEXT = re.compile(r"^\s*(?:([A-Za-z]{2})\s*)?(\d{8})(?:\s*([A-Za-z\*]))?\s*$")


def default_rng() -> RandomSource:
    """A cryptographically secure source: players never choose their serials."""
    return secrets.SystemRandom()


@dataclass(frozen=True, slots=True)
class Serial:
    """``digits`` (8 characters ``0``-``9``), ``prefix`` (two letters), ``suffix`` (one letter)."""

    digits: str
    prefix: str = ""
    suffix: str = ""
    counts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.digits) != 8 or not self.digits.isdigit() or not self.digits.isascii():
            raise ValueError(f"a serial has exactly 8 digits, not {self.digits!r}")
        object.__setattr__(self, "counts", tuple(map(self.digits.count, "0123456789")))

    @classmethod
    def parse(cls, text: str) -> Serial:
        """``06742088``, ``LB06742088A`` or ``LB 06742088 A``."""
        m = _SERIAL_TEXT.match(text)
        if not m:
            raise ValueError(f"not a serial: {text!r} (8 digits, optionally with the note's letters)")
        return cls(m.group(2), (m.group(1) or "").upper(), (m.group(3) or "").upper())

    def count(self, digit: int) -> int:
        return self.counts[digit]

    @property
    def last_digit(self) -> int:
        return ord(self.digits[-1]) - 48

    def __str__(self) -> str:
        return " ".join(p for p in (self.prefix, self.digits, self.suffix) if p)


def deal_serial(rng: RandomSource) -> Serial:
    """One fresh serial: 8 uniform digits (one draw) and note letters (one draw)."""
    number = rng.randrange(100_000_000)
    letters = rng.randrange(len(_BANKS) * len(_LETTERS) * len(_LETTERS))
    a, rest = divmod(letters, len(_LETTERS) * len(_LETTERS))
    b, c = divmod(rest, len(_LETTERS))
    return Serial(f"{number:08d}", _BANKS[a] + _LETTERS[b], _LETTERS[c])


def deal_slip(rng: RandomSource) -> tuple[Serial, ...]:
    """A SLIPS slip: fifteen serials, of which ten will be played."""
    return tuple(deal_serial(rng) for _ in range(SLIP_LENGTH))

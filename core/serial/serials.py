"""Serials: eight digits and the letters of a Federal Reserve note, dealt from an injected source.

Randomness is an input: :func:`deal_serial` takes any object with ``randrange`` (a
``secrets.SystemRandom`` in play, a seeded ``random.Random`` in tests and benchmarks).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

from ..game import RandomSource

__all__ = ["SLIP_LENGTH", "SLIP_ROUNDS", "RandomSource", "Serial", "deal_serial", "deal_slip", "default_rng", "fits"]

SLIP_LENGTH = 15
SLIP_ROUNDS = 10

# The first prefix letter names one of the twelve Federal Reserve Banks (A-L); the others avoid O.
_BANKS = "ABCDEFGHIJKL"
_LETTERS = "ABCDEFGHIJKLMNPQRSTUVWXYZ"
_SERIAL_TEXT = re.compile(r"^\s*(?:([A-Za-z]{2})\s*)?(\d{1,8})(?:\s*([A-Za-z\*]))?\s*$")


def default_rng() -> RandomSource:
    """A cryptographically secure source: players never choose their serials."""
    return secrets.SystemRandom()


@dataclass(frozen=True, slots=True)
class Serial:
    """``digits`` (8 characters ``0``-``9``; 1 to 8 in a reduced format), ``prefix`` (two letters),
    ``suffix`` (one letter).  Whether a serial fits a table's format is the round's to check
    (:func:`fits`)."""

    digits: str
    prefix: str = ""
    suffix: str = ""
    counts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= len(self.digits) <= 8 or not self.digits.isdigit() or not self.digits.isascii():
            raise ValueError(f"a serial has 8 digits (1 to 8 in a reduced format), not {self.digits!r}")
        object.__setattr__(self, "counts", tuple(map(self.digits.count, "0123456789")))

    @classmethod
    def parse(cls, text: str, length: int = 8) -> Serial:
        """``06742088``, ``LB06742088A`` or ``LB 06742088 A`` (``length`` digits: 8 in the full game)."""
        m = _SERIAL_TEXT.match(text)
        if not m or len(m.group(2)) != length:
            plural = "s" if length != 1 else ""
            raise ValueError(f"not a serial: {text!r} ({length} digit{plural}, optionally with the note's letters)")
        return cls(m.group(2), (m.group(1) or "").upper(), (m.group(3) or "").upper())

    def count(self, digit: int) -> int:
        return self.counts[digit]

    @property
    def last_digit(self) -> int:
        return ord(self.digits[-1]) - 48

    def __str__(self) -> str:
        return " ".join(p for p in (self.prefix, self.digits, self.suffix) if p)


def fits(serial: Serial, length: int, digits: int) -> str | None:
    """Why ``serial`` does not fit a format of ``length`` digits drawn from ``digits`` values, or None."""
    if len(serial.digits) != length:
        return f"a serial at this table has {length} digit{'s' if length != 1 else ''}, not {serial.digits!r}"
    if digits < 10 and any(not "1" <= ch <= str(digits) for ch in serial.digits):
        return f"a serial at this table uses only the digits 1 to {digits}, not {serial.digits!r}"
    return None


def deal_serial(rng: RandomSource, length: int = 8, digits: int = 10) -> Serial:
    """One fresh serial: ``length`` uniform digits (one draw) and note letters (one draw).

    The full game draws 8 digits 0-9; a reduced format (:class:`~core.serial.rules.Rules` ``digits``
    and ``serial_length``) draws ``length`` digits from 1 … ``digits`` (0 … 9 when ``digits`` is 10).
    """
    if digits == 10:
        number = rng.randrange(10**length)
        text = f"{number:0{length}d}"
    else:
        number = rng.randrange(digits**length)
        chars = []
        for _ in range(length):
            number, r = divmod(number, digits)
            chars.append(chr(49 + r))
        text = "".join(chars)
    letters = rng.randrange(len(_BANKS) * len(_LETTERS) * len(_LETTERS))
    a, rest = divmod(letters, len(_LETTERS) * len(_LETTERS))
    b, c = divmod(rest, len(_LETTERS))
    return Serial(text, _BANKS[a] + _LETTERS[b], _LETTERS[c])


def deal_slip(rng: RandomSource, length: int = 8, digits: int = 10) -> tuple[Serial, ...]:
    """A SLIPS slip: fifteen serials, of which ten will be played."""
    return tuple(deal_serial(rng, length, digits) for _ in range(SLIP_LENGTH))

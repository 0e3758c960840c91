"""Serials: eight digits and the letters of a Federal Reserve note, dealt from an injected source.

Randomness is an input: :func:`deal_serial` takes any object with ``randrange`` (a
``secrets.SystemRandom`` in play, a seeded ``random.Random`` in tests and benchmarks).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from functools import cache
from operator import add

from ..game import RandomSource

__all__ = [
    "SLIP_LENGTH", "SLIP_ROUNDS", "RandomSource", "Serial", "deal_serial", "deal_slip", "default_rng", "fits",
    "parse_fitting",
]

SLIP_LENGTH = 15
SLIP_ROUNDS = 10

# The first prefix letter names one of the twelve Federal Reserve Banks (A-L); the others avoid O.
_BANKS = "ABCDEFGHIJKL"
_LETTERS = "ABCDEFGHIJKLMNPQRSTUVWXYZ"
_PREFIXES = tuple(a + b for a in _BANKS for b in _LETTERS)  # index a * 25 + b
_NOTES = len(_PREFIXES) * len(_LETTERS)
_DIGITS = "0123456789"
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


def parse_fitting(text: str, length: int, digits: int) -> Serial:
    """A stored or typed serial that must fit the table's format; ValueError says why it does not."""
    serial = Serial.parse(text, length)
    wrong = fits(serial, length, digits)
    if wrong is not None:
        raise ValueError(wrong)
    return serial


@cache
def _counts_of_4() -> tuple[tuple[int, ...], ...]:
    """The per-digit counts of every 4-digit string ``0000`` … ``9999`` (built on the first deal)."""
    pairs = [tuple(map(f"{i:02d}".count, _DIGITS)) for i in range(100)]
    return tuple(tuple(map(add, pairs[i // 100], pairs[i % 100])) for i in range(10_000))


_new = object.__new__
_set = object.__setattr__


def deal_serial(rng: RandomSource, length: int = 8, digits: int = 10) -> Serial:
    """One fresh serial: ``length`` uniform digits (one draw) and note letters (one draw).

    The full game draws 8 digits 0-9; a reduced format (:class:`~core.serial.rules.Rules` ``digits``
    and ``serial_length``) draws ``length`` digits from 1 … ``digits`` (0 … 9 when ``digits`` is 10).
    """
    if digits == 10 and length == 8:  # the full game, built directly: counts from two table look-ups
        number = rng.randrange(100_000_000)
        high, low = divmod(number, 10_000)
        table = _counts_of_4()
        letters = rng.randrange(_NOTES)
        # What Serial(text, prefix, suffix) makes, without re-checking the 8 digits just drawn.
        serial: Serial = _new(Serial)
        _set(serial, "digits", f"{number:08d}")
        _set(serial, "prefix", _PREFIXES[letters // 25])
        _set(serial, "suffix", _LETTERS[letters % 25])
        _set(serial, "counts", tuple(map(add, table[high], table[low])))
        return serial
    if digits == 10:
        text = f"{rng.randrange(10**length):0{length}d}"
    else:
        number = rng.randrange(digits**length)
        chars = []
        for _ in range(length):
            number, r = divmod(number, digits)
            chars.append(chr(49 + r))
        text = "".join(chars)
    letters = rng.randrange(_NOTES)
    return Serial(text, _PREFIXES[letters // 25], _LETTERS[letters % 25])


def deal_slip(rng: RandomSource, length: int = 8, digits: int = 10) -> tuple[Serial, ...]:
    """A SLIPS slip: fifteen serials, of which ten will be played."""
    return tuple(deal_serial(rng, length, digits) for _ in range(SLIP_LENGTH))

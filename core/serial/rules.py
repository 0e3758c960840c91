"""The rule set a table agrees on before play (RULES.md section 1).

Every option in RULES.md is one field of the frozen :class:`Rules` value. Presets name common
combinations; any preset can be overridden option by option with :func:`make_rules`.

Choices where RULES.md is silent (documented here, as RULES.md asks):

* ``first`` challenge mode with the rebid right: the first challenge plays the part of
  "challenged all around", so the bidder may rebid once.  This keeps the two modes the same game at
  two players, as RULES.md requires.
* Progressive stakes scale the table's base stake: the next stake is ``base_stake * m`` where ``m`` is
  the size-and-sixes multiplier of the final bid (or 2 when the final bidder held none of the digit).
  Only bonuses that are switched on count towards ``m``.
* The ``winner`` later-opener rule: if the final bid was made (or skunked), the bidder opens; if it
  failed, the first player to have challenged it opens.
* SLIPS and a change of seats: the slips were dealt for the seats there, so a table whose seats change
  between rounds begins a new session (new slips, ten rounds more, the tenth doubled).
* SLIPS with ``last_hand_double``: no declared last hand comes after the tenth (``last`` during the tenth's
  bidding names the tenth); the tenth declared the last hand is doubled twice — the seed doubles "the stakes it
  otherwise would have been played for".

Reduced formats (issue #12; the published "3×3" and "5×5" research formats): ``digits`` (2–10) digit
values and ``serial_length`` (1–8) digits per serial.  With ``digits`` < 10 the digits in play are
1 … ``digits`` under every rank order, ranked among themselves as that order ranks them (so under
``aces-high`` the 1 is still the highest); a bid names a digit in play and at most
``serial_length × n`` copies.  Everything else is unchanged (the n+3 rule still counts from n).

The ``elimination`` format (RULES.md §1 "Elimination: who pays for dinner"; :mod:`core.serial.elimination`
plays it): ``format=elimination`` with any preset.  Its stake may be 0 (nothing is written but the
result); SLIPS and ``last_hand_double`` do not apply and are refused (a SLIPS session ends after ten
rounds and doubles its tenth, which would cut an elimination short or give a round a meaning it
does not have).  Bonuses and progressive stakes may stay on but change nothing: who leaves depends
only on whether the final bid is made.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from ..commands import flag_word, whole_number
from ..errors import RulesError, quoted

__all__ = [
    "PRESETS",
    "ChallengeMode",
    "FirstOpener",
    "Format",
    "LaterOpener",
    "RankOrder",
    "Rules",
    "RulesError",
    "SerialSource",
    "make_rules",
]



class RankOrder(StrEnum):
    ZERO_LOW = "zero-low"
    ZERO_HIGH = "zero-high"
    ACES_HIGH = "aces-high"

    @property
    def digits_low_to_high(self) -> tuple[int, ...]:
        return _ORDERS[self]

    def rank(self, digit: int) -> int:
        """0 for the lowest digit under this order, 9 for the highest."""
        return _RANKS[self][digit]


_ORDERS: dict[RankOrder, tuple[int, ...]] = {
    RankOrder.ZERO_LOW: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    RankOrder.ZERO_HIGH: (1, 2, 3, 4, 5, 6, 7, 8, 9, 0),
    RankOrder.ACES_HIGH: (2, 3, 4, 5, 6, 7, 8, 9, 0, 1),
}
_RANKS: dict[RankOrder, tuple[int, ...]] = {
    order: tuple(digits.index(d) for d in range(10)) for order, digits in _ORDERS.items()
}


class ChallengeMode(StrEnum):
    ALL = "all"
    FIRST = "first"


class FirstOpener(StrEnum):
    LETTERS = "letters"
    RANDOM = "random"
    HOST = "host"


class LaterOpener(StrEnum):
    FINAL_BIDDER = "final-bidder"
    WINNER = "winner"


class SerialSource(StrEnum):
    FRESH = "fresh"
    SLIPS = "slips"


class Format(StrEnum):
    """How a table plays its rounds: ``rounds`` (money moves every round) or ``elimination``."""

    ROUNDS = "rounds"
    ELIMINATION = "elimination"


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of the serial-number game.  Defaults are the classic game."""

    rank_order: RankOrder = RankOrder.ZERO_LOW
    challenge_mode: ChallengeMode = ChallengeMode.ALL
    rebid: bool = False
    size_bonus: bool = False
    sixes_bonus: bool = False
    hero_bonus: bool = False
    skunk: bool = False
    progressive_stakes: bool = False
    last_hand_double: bool = False
    first_opener: FirstOpener = FirstOpener.RANDOM
    later_opener: LaterOpener = LaterOpener.FINAL_BIDDER
    serial_source: SerialSource = SerialSource.FRESH
    stake: int = 1
    digits: int = 10
    serial_length: int = 8
    format: Format = Format.ROUNDS
    preset: str = "classic"

    def __post_init__(self) -> None:
        elimination = self.format is Format.ELIMINATION
        if type(self.stake) is not int or self.stake < 0 or (self.stake == 0 and not elimination):
            raise RulesError(f"stake must be a positive whole number of units, not {quoted(self.stake)}"
                             + (" (stake=0 is for format=elimination)" if self.stake == 0 else ""))
        if elimination and self.serial_source is SerialSource.SLIPS:
            raise RulesError("SLIPS do not apply to format=elimination (it plays until one player is left): "
                             "choose serial_source=fresh")
        if elimination and self.last_hand_double:
            raise RulesError("the elimination game has no last hand: turn last_hand_double off")
        if type(self.digits) is not int or not 2 <= self.digits <= 10:
            raise RulesError(f"digits must be a whole number from 2 to 10, not {quoted(self.digits)}")
        if type(self.serial_length) is not int or not 1 <= self.serial_length <= 8:
            raise RulesError(f"serial_length must be a whole number from 1 to 8, not {quoted(self.serial_length)}")

    @property
    def digit_set(self) -> tuple[int, ...]:
        """The digits in play, lowest rank first (0 … 9 in the full game, 1 … ``digits`` otherwise)."""
        return _digit_set(self.rank_order, self.digits)

    @property
    def elimination(self) -> bool:
        """True for the elimination format (who pays for dinner)."""
        return self.format is Format.ELIMINATION

    @property
    def reduced(self) -> bool:
        """True for a reduced format (fewer digit values or shorter serials than the full game)."""
        return self.digits != 10 or self.serial_length != 8

    def flat_payoffs(self, players: int) -> bool:
        """True when every round at ``players`` seats pays the stake once: no size, sixes or hero bonus,
        and no skunk (which does not apply heads up).  The solved tables are solved for these payoffs."""
        bonus = self.size_bonus or self.sixes_bonus or self.hero_bonus or (self.skunk and players > 2)
        return not bonus

    @property
    def format_name(self) -> str:
        """``3×3`` (digits × serial length) for a reduced format, ``full`` otherwise."""
        return f"{self.digits}×{self.serial_length}" if self.reduced else "full"

    def to_dict(self) -> dict[str, Any]:
        """Option names as a record writes them (enum values as strings).

        ``digits`` and ``serial_length`` appear only for a reduced format, ``format`` only for elimination."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if (f.name in _INT_FIELDS or f.name == "format") and value == f.default:
                continue  # records written before reduced formats and elimination stay as they were
            out[f.name] = value.value if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; also accepts ``{"preset": name, option: value, ...}``."""
        data = dict(data)
        preset = data.pop("preset", "classic")
        return make_rules(preset, **data)

    def describe(self) -> str:
        """A one-paragraph summary for the ``rules`` command."""
        naming = {
            RankOrder.ZERO_LOW: "0 is the lowest digit",
            RankOrder.ZERO_HIGH: "0 is the highest digit (called ten)",
            RankOrder.ACES_HIGH: "2 is the lowest; 0 (ten) and 1 (ace) are highest",
        }[self.rank_order]
        bonuses = [
            name
            for name, on in (
                ("size (n+3)", self.size_bonus),
                ("sixes", self.sixes_bonus),
                ("hero", self.hero_bonus),
                ("skunk", self.skunk),
            )
            if on
        ]
        parts = [
            f"Preset {self.preset}: {naming}",
            "a bid is challenged out by the first challenge"
            if self.challenge_mode is ChallengeMode.FIRST
            else "a bid must be challenged all around",
            "the bidder may rebid once when challenged" if self.rebid else "no rebids",
            "bonuses: " + ", ".join(bonuses) if bonuses else "no bonus bids",
        ]
        if self.progressive_stakes:
            parts.append("progressive stakes")
        if self.last_hand_double:
            parts.append("the declared last hand plays at double stake")
        if self.serial_source is SerialSource.SLIPS:
            parts.append("SLIPS: ten serials from a slip of fifteen, the tenth round at double stake")
        parts.append(f"first opener by {self.first_opener.value}, later by {self.later_opener.value}")
        if self.elimination:
            parts.append("ELIMINATION: each decided round the final bidder (bid made) or the first challenger "
                         "(bid failed) leaves safe; the last player left pays for dinner"
                         + (f", {self.stake} unit{'s' if self.stake != 1 else ''} to each other player"
                            if self.stake else " (no stake: nothing is written but the result)"))
        else:
            parts.append(f"stake {self.stake} unit{'s' if self.stake != 1 else ''}")
        if self.reduced:
            low, high = self.digit_set[0], self.digit_set[-1]
            parts.append(
                f"reduced format {self.format_name}: serials of {self.serial_length} "
                f"digit{'s' if self.serial_length != 1 else ''}, each {low} to {high}"
                if self.digits < 10
                else f"reduced format {self.format_name}: serials of {self.serial_length} "
                f"digit{'s' if self.serial_length != 1 else ''}"
            )
        return "; ".join(parts) + "."


PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "quick": Rules(challenge_mode=ChallengeMode.FIRST, preset="quick"),
    "salomon": Rules(
        rank_order=RankOrder.ZERO_HIGH,
        challenge_mode=ChallengeMode.ALL,
        rebid=True,
        size_bonus=True,
        sixes_bonus=True,
        hero_bonus=True,
        skunk=True,
        progressive_stakes=True,
        first_opener=FirstOpener.LETTERS,
        preset="salomon",
    ),
}

_ENUM_FIELDS: dict[str, type[Enum]] = {
    "rank_order": RankOrder,
    "challenge_mode": ChallengeMode,
    "first_opener": FirstOpener,
    "later_opener": LaterOpener,
    "serial_source": SerialSource,
    "format": Format,
}
_BOOL_FIELDS = frozenset(
    {"rebid", "size_bonus", "sixes_bonus", "hero_bonus", "skunk", "progressive_stakes", "last_hand_double"}
)
# A few friendly aliases so people and records may write the short names of RULES.md.
_ALIASES = {
    "size": "size_bonus",
    "sixes": "sixes_bonus",
    "hero": "hero_bonus",
    "progressive": "progressive_stakes",
    "length": "serial_length",
}
_INT_FIELDS: dict[str, tuple[int, int]] = {"digits": (2, 10), "serial_length": (1, 8)}
OPTION_NAMES: tuple[str, ...] = tuple(sorted(_ENUM_FIELDS.keys() | _BOOL_FIELDS | _INT_FIELDS.keys() | {"stake"}))


def _digit_set(order: RankOrder, digits: int) -> tuple[int, ...]:
    if digits == 10:
        return order.digits_low_to_high
    return tuple(d for d in order.digits_low_to_high if 1 <= d <= digits)


def _coerce(name: str, value: Any) -> Any:
    if name in _ENUM_FIELDS:
        enum_cls = _ENUM_FIELDS[name]
        text = value.value if isinstance(value, Enum) else str(value).strip().lower().replace("_", "-")
        try:
            return enum_cls(text)
        except ValueError:
            allowed = ", ".join(str(m.value) for m in enum_cls)
            raise RulesError(f"{name} must be one of {allowed}, not {quoted(value)}") from None
    if name in _BOOL_FIELDS:
        if isinstance(value, bool):
            return value
        flag = flag_word(str(value))
        if flag is None:
            raise RulesError(f"{name} must be on or off, not {quoted(value)}")
        return flag
    if name in _INT_FIELDS:
        low, high = _INT_FIELDS[name]
        if isinstance(value, bool):
            raise RulesError(f"{name} must be a whole number from {low} to {high}")
        try:
            number = whole_number(str(value)) if not isinstance(value, int) else value
        except ValueError:
            raise RulesError(f"{name} must be a whole number from {low} to {high}, not {quoted(value)}") from None
        if not low <= number <= high:
            raise RulesError(f"{name} must be a whole number from {low} to {high}, not {quoted(value)}")
        return number
    if name == "stake":
        if isinstance(value, bool):
            raise RulesError("stake must be a positive whole number of units")
        try:
            stake = whole_number(str(value)) if not isinstance(value, int) else value
        except ValueError:
            raise RulesError(f"stake must be a positive whole number of units, not {quoted(value)}") from None
        if stake < 0:
            raise RulesError(f"stake must be a positive whole number of units, not {quoted(value)}")
        return stake  # 0 only with format=elimination: Rules checks the combination
    raise RulesError(f"unknown option {quoted(name)}; options are: {', '.join(OPTION_NAMES)}")


def make_rules(preset: str | Rules = "classic", **overrides: Any) -> Rules:
    """A preset by name (``classic``, ``quick``, ``salomon``) with options overridden one by one.

    Option names may use dashes or underscores (``rank-order`` or ``rank_order``).
    """
    if isinstance(preset, Rules):
        base = preset
    else:
        key = str(preset).strip().lower()
        if key not in PRESETS:
            raise RulesError(f"unknown preset {quoted(preset)}; presets are: {', '.join(PRESETS)}")
        base = PRESETS[key]
    changes: dict[str, Any] = {}
    for raw_name, value in overrides.items():
        name = raw_name.strip().lower().replace("-", "_")
        name = _ALIASES.get(name, name)
        changes[name] = _coerce(name, value)
    return dataclasses.replace(base, **changes)

"""The card game's rule set (RULES.md §2 options): ``jokers``, ``pass``, ``payout``, ``stake``.

Presets:

``standard`` (default)
    No jokers, no passing, the winner collects the stake from everyone else at the end — the seed's game.
``wild``
    Two jokers (wild; five of a kind exists) and one pass per player per game.
``knockout``
    As ``standard``, but each challenge's loser pays its winner the stake at once.

Options are overridden one by one (``jokers=1``, ``pass=on``, ``payout=knockout``, ``stake=5``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..commands import flag_word, whole_number
from ..errors import RulesError, quoted

__all__ = ["PAYOUTS", "PRESETS", "Rules", "RulesError", "make_rules"]

PAYOUTS = ("winner", "knockout")



@dataclass(frozen=True, slots=True)
class Rules:
    jokers: int = 0
    pass_: bool = False
    payout: str = "winner"
    stake: int = 1
    preset: str = "standard"

    def __post_init__(self) -> None:
        if self.jokers not in (0, 1, 2) or type(self.jokers) is not int:
            raise RulesError(f"jokers must be 0, 1 or 2, not {quoted(self.jokers)}")
        if self.payout not in PAYOUTS:
            raise RulesError(f"payout must be winner or knockout, not {quoted(self.payout)}")
        if type(self.stake) is not int or self.stake <= 0:
            raise RulesError(f"stake must be a positive whole number of units, not {quoted(self.stake)}")

    def to_dict(self) -> dict[str, Any]:
        """As a record writes them: ``{"preset", "jokers", "pass", "payout", "stake"}``."""
        return {
            "preset": self.preset,
            "jokers": self.jokers,
            "pass": self.pass_,
            "payout": self.payout,
            "stake": self.stake,
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Rules:
        data = dict(data)
        return make_rules(str(data.pop("preset", "standard")), data)

    def _parts(self) -> list[str]:
        return [
            {0: "no jokers", 1: "one joker (wild)", 2: "two jokers (wild)"}[self.jokers],
            "one pass per player per game" if self.pass_ else "no passing",
            "everyone else pays the winner at the end"
            if self.payout == "winner"
            else "each challenge's loser pays its winner at once",
            f"stake {self.stake} unit{'s' if self.stake != 1 else ''}",
        ]

    def describe(self) -> str:
        """One line: the preset and what differs from it."""
        base = PRESETS.get(self.preset, PRESETS["standard"])
        changed = [new for new, old in zip(self._parts(), base._parts(), strict=True) if new != old]
        return f"cards, {self.preset}" + (f" ({', '.join(changed)})" if changed else "")

    def text(self) -> str:
        parts = self._parts()
        return (
            f"Liar's Poker with cards, preset {self.preset}: {'; '.join(parts)}. One five-card hand goes round the "
            "table; each declaration must have a higher floor (the worst hand that makes it true) than the one "
            "before. Under the gun you take the hand (discard and draw once, then declare higher) or challenge: "
            "the hand is shown; if it is as good as declared the challenger is out, else the declarer. "
            "Last player standing wins."
        )


PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "wild": Rules(jokers=2, pass_=True, preset="wild"),
    "knockout": Rules(payout="knockout", preset="knockout"),
}


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    flag = flag_word(str(value))
    if flag is None:
        raise RulesError(f"{name} must be on or off, not {quoted(value)}")
    return flag


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise RulesError(f"{name} must be a whole number, not {quoted(value)}")
    try:
        return value if isinstance(value, int) else whole_number(str(value))
    except ValueError:
        raise RulesError(f"{name} must be a whole number, not {quoted(value)}") from None


def make_rules(preset: str | None = None, options: Mapping[str, Any] | None = None) -> Rules:
    """A preset (default ``standard``) with options overridden: ``jokers``, ``pass``, ``payout``, ``stake``."""
    key = (preset or "standard").strip().lower()
    if key not in PRESETS:
        raise RulesError(f"unknown preset {quoted(preset)}; presets are: {', '.join(PRESETS)}")
    changes: dict[str, Any] = {}
    for raw, value in (options or {}).items():
        name = raw.strip().lower().replace("-", "_")
        if name in ("pass", "pass_", "passes"):
            changes["pass_"] = _flag("pass", value)
        elif name in ("jokers", "joker"):
            changes["jokers"] = _count("jokers", value)
        elif name == "stake":
            changes["stake"] = _count("stake", value)
        elif name == "payout":
            changes["payout"] = str(value).strip().lower()
        else:
            raise RulesError(f"unknown option {quoted(raw)}; options are: jokers, pass, payout, stake")
    return dataclasses.replace(PRESETS[key], **changes)

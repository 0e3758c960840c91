"""A player's record per game, from the stored round records (``Store.rounds`` rows: each row's
``record`` with its ``outcome``), for ``stats``: the serial game's biggest pots, best made bid, hero
bumps, skunks and challenge accuracy; the card game's games won and challenges.

These read the games' stored shapes (documented below); they may move into ``core/<game>/`` beside
each game's own ``stats``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

__all__ = ["CardsStats", "SerialStats", "cards_stats", "serial_stats"]

# --- The serial game ----------------------------------------------------------------------------------
# A round record is what the bot stores (core/serial/game.py): {"serials": {player: "LB 06742088 A"},
# "actions": [{"player", "bid": [q, d]} | {"player", "challenge": true} | ...], "outcome": {"final_bid":
# {"player", "quantity", "digit"}, "final_bid_text", "count", "made", "skunk", "multiplier", "bonuses":
# ["size", "sixes", "hero", ...], "net": {player: units}, ...}}.

_DIGITS: Final = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class SerialStats:
    rounds: int = 0  # counted rounds played
    won: int = 0
    lost: int = 0
    biggest_win: int = 0  # the most units won in one round
    biggest_loss: int = 0  # the most units lost in one round (a positive number)
    final_bids: int = 0  # rounds in which the player's bid was the one counted
    bids_made: int = 0
    best_made_bid: str | None = None  # e.g. "9 sevens": the made final bid of the most copies (then multiplier)
    hero_bumps: int = 0  # made final bids holding none of the digit
    skunks: int = 0  # final bids nobody held any of
    challenges: int = 0
    challenges_right: int = 0  # challenges of bids that failed

    @property
    def challenge_accuracy(self) -> float | None:
        return self.challenges_right / self.challenges if self.challenges else None


def _copies(serials: Mapping[str, str], digit: int) -> int:
    return sum("".join(_DIGITS.findall(str(s))).count(str(digit)) for s in serials.values())


def _challenges(record: Mapping[str, Any], player: str) -> tuple[int, int]:
    """(challenges by ``player``, of which right). A challenge of the counted bid is right when the
    challenger won (not made, no skunk); of a bid later raised over, when the serials fall short of it."""
    outcome = record["outcome"]
    serials: Mapping[str, str] = record.get("serials") or outcome.get("serials") or {}
    final = outcome["final_bid"]
    standing: tuple[int, int] | None = None
    total = right = 0
    for action in record.get("actions") or []:
        bid = action.get("bid")
        if isinstance(bid, list | tuple) and len(bid) == 2:
            standing = (int(bid[0]), int(bid[1]))
        elif action.get("challenge") and action.get("player") == player and standing is not None:
            total += 1
            if standing == (int(final["quantity"]), int(final["digit"])):
                right += not outcome["made"] and not outcome.get("skunk")
            else:
                right += _copies(serials, standing[1]) < standing[0]
    return total, right


def serial_stats(rounds: Iterable[Mapping[str, Any]], player: str) -> SerialStats:
    """One player's stats over the serial game's counted round records (others are skipped)."""
    s: dict[str, Any] = {f.name: 0 for f in fields(SerialStats)}
    s["best_made_bid"] = None
    best: tuple[int, int] | None = None
    for record in rounds:
        outcome = record.get("outcome")
        if (not outcome or outcome.get("complete") is False or player not in outcome.get("net", {})
                or "final_bid" not in outcome):  # an elimination's walk-out settles without a count
            continue
        net = int(outcome["net"][player])
        s["rounds"] += 1
        s["won"] += net > 0
        s["lost"] += net < 0
        s["biggest_win"] = max(s["biggest_win"], net)
        s["biggest_loss"] = max(s["biggest_loss"], -net)
        final = outcome["final_bid"]
        if final["player"] == player:
            s["final_bids"] += 1
            s["skunks"] += bool(outcome.get("skunk"))
            if outcome["made"]:
                s["bids_made"] += 1
                s["hero_bumps"] += "hero" in (outcome.get("bonuses") or [])
                key = (int(final["quantity"]), int(outcome.get("multiplier", 1)))
                if best is None or key > best:
                    best = key
                    s["best_made_bid"] = str(outcome.get("final_bid_text") or f"{final['quantity']}×{final['digit']}")
        total, right = _challenges(record, player)
        s["challenges"] += total
        s["challenges_right"] += right
    return SerialStats(**s)


# --- The card game ------------------------------------------------------------------------------------
# A stored outcome is one challenge (knockout payout: {"kind": "challenge", "active", "challenger",
# "holds", "out", "winner", "game_over", "winner_of_game"?, ...}) or one finished game (winner payout:
# {"kind": "game", "winner", "ranking": [ids], "challenges": [challenge summaries]}).


@dataclass(frozen=True, slots=True)
class CardsStats:
    games: int = 0  # finished games played
    games_won: int = 0
    challenges: int = 0  # challenges made
    challenges_right: int = 0  # of which the hand did not hold
    challenged: int = 0  # times the player's declaration was challenged
    held: int = 0  # of which the hand held

    @property
    def challenge_accuracy(self) -> float | None:
        return self.challenges_right / self.challenges if self.challenges else None


def cards_stats(rounds: Iterable[Mapping[str, Any]], player: str) -> CardsStats:
    """One player's card-game stats over stored card-game records (others are skipped)."""
    s = dict.fromkeys((f.name for f in fields(CardsStats)), 0)
    for record in rounds:
        outcome = record.get("outcome") or {}
        if outcome.get("game", "cards") != "cards":
            continue
        summaries = outcome.get("challenges") if outcome.get("kind") == "game" else [outcome]
        for c in summaries or []:
            if c.get("complete") is False:
                continue
            if c.get("challenger") == player:
                s["challenges"] += 1
                s["challenges_right"] += not c.get("holds")
            if c.get("active") == player:
                s["challenged"] += 1
                s["held"] += bool(c.get("holds"))
        over = outcome.get("kind") == "game" or outcome.get("game_over")
        ranking = [p for g in outcome.get("ranking") or [] for p in ([g] if isinstance(g, str) else g)]
        if over and player in ranking:
            s["games"] += 1
            s["games_won"] += outcome.get("winner_of_game", outcome.get("winner")) == player
    return CardsStats(**s)

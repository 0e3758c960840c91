"""A player's record in the serial game, from stored round records (each with its ``outcome``, an
``outcome_to_dict`` value): the figures ``stats`` shows — bids made and failed, challenges won, the
biggest pots, best made bid, hero bumps, skunks and challenge accuracy.  Money in the text is a
``<$n>`` token (:func:`core.game.units`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Final

from ..game import units

__all__ = ["SerialStats", "challengers_of_final", "history_line", "player_stats", "serial_stats"]


def player_stats(player: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    """From stored round records (each with its ``outcome``), oldest first."""
    stats: dict[str, Any] = {"rounds": 0, "bids_made": 0, "bids_failed": 0, "challenges_won": 0,
                             "challenges_lost": 0}
    best: tuple[int, str] | None = None
    for record in records:
        out = record["outcome"]
        if player not in out["net"] or "final_bid" not in out:  # an elimination's walk-out has no count
            continue
        stats["rounds"] += 1
        if out["skunk"] and out.get("multiplier") == 0:
            continue  # a push (the skunk at three players): nobody won or lost
        if out["final_bid"]["player"] == player:
            won = out["net"][player] >= 0 and (out["made"] or out["skunk"])
            stats["bids_made" if won else "bids_failed"] += 1
            if out["made"]:
                q = out["final_bid"]["quantity"]
                if best is None or q > best[0] or (q == best[0] and out["net"][player] > 0):
                    best = (q, out["final_bid_text"])
        if player in challengers_of_final(record):
            won = not out["made"] and not out["skunk"]  # a skunk pays the bidder: the challengers lost
            stats["challenges_won" if won else "challenges_lost"] += 1
    stats["best"] = best[1] if best else None
    text = (f"Final bids made {stats['bids_made']}, failed {stats['bids_failed']}; "
            f"challenges won {stats['challenges_won']}, lost {stats['challenges_lost']}.")  # the best made bid: below
    more = serial_stats(records, player)
    stats.update(asdict(more), challenge_accuracy=more.challenge_accuracy)
    return f"{text} {_more_text(more)}", stats


def history_line(record: Mapping[str, Any], names: Mapping[str, str]) -> str:
    out = record["outcome"]
    if out.get("format") == "elimination":
        return _elimination_line(record, names)
    bidder = names.get(out["final_bid"]["player"], out["final_bid"]["player"])
    verdict = "made" if out["made"] else ("skunk" if out["skunk"] else "failed")
    paid = f" {out['multiplier_text']}" if out["made"] or out["skunk"] else ""  # a failed bid: one stake a player
    return (f"Round {record.get('round', '?')}: {bidder} bid {out['final_bid_text']}, count {out['count']} — "
            f"{verdict}{paid}")


def challengers_of_final(record: Mapping[str, Any]) -> list[str]:
    """Who challenged the final bid, from a round record's actions."""
    final: list[str] = []
    for action in record.get("actions", []):
        if "bid" in action:
            final = []
        elif action.get("challenge"):
            final.append(action["player"])
    return final


def _elimination_line(record: Mapping[str, Any], names: Mapping[str, str]) -> str:
    out = record["outcome"]

    def who(p: object) -> str:
        return names.get(str(p), str(p))

    head = f"Round {record.get('round', '?')}: "
    if "final_bid" not in out:
        line = head + f"{who(out.get('payer'))} left the table while still in"
    else:
        verdict = "made" if out["made"] else ("skunk" if out["skunk"] else "failed")
        line = (head + f"{who(out['final_bid']['player'])} bid {out['final_bid_text']}, count {out['count']} — "
                f"{verdict}: " + (f"{who(out['leaves'])} leaves safe" if "leaves" in out else "a push, replayed"))
    return line + (f"; {who(out['payer'])} pays for dinner" if out.get("payer") else "")


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
    if outcome.get("skunk") and outcome.get("multiplier") == 0:
        return 0, 0  # a push (the skunk at three players): no challenge won or lost, none right or wrong either
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
        if not outcome or outcome.get("complete") is False or player not in outcome.get("net", {}):
            continue
        net = int(outcome["net"][player])
        s["rounds"] += 1
        s["won"] += net > 0
        s["lost"] += net < 0
        s["biggest_win"] = max(s["biggest_win"], net)
        s["biggest_loss"] = max(s["biggest_loss"], -net)
        if "final_bid" not in outcome:  # an elimination's walk-out settles its money without a count
            continue
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


def _signed(n: int) -> str:
    return ("+" if n > 0 else "") + units(n)


def _more_text(s: SerialStats) -> str:
    parts = [f"Biggest pot won {_signed(s.biggest_win)}, lost {units(s.biggest_loss)}"]
    if s.best_made_bid:
        parts.append(f"best made bid {s.best_made_bid}")
    parts.append(f"hero bumps {s.hero_bumps}, skunks {s.skunks}")
    if s.challenge_accuracy is not None:
        parts.append(f"challenge accuracy {s.challenge_accuracy:.0%} ({s.challenges_right} of {s.challenges})")
    return "; ".join(parts) + "."

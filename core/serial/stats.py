"""A player's record in the serial game, from stored round outcomes (``outcome_to_dict`` values)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["challengers_of_final", "history_line", "player_stats"]


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
            f"challenges won {stats['challenges_won']}, lost {stats['challenges_lost']}."
            + (f" Best hand: {best[1]} made." if best else ""))
    return text, stats


def history_line(record: Mapping[str, Any], names: Mapping[str, str]) -> str:
    out = record["outcome"]
    if out.get("format") == "elimination":
        return _elimination_line(record, names)
    bidder = names.get(out["final_bid"]["player"], out["final_bid"]["player"])
    verdict = "made" if out["made"] else ("skunk" if out["skunk"] else "failed")
    return (f"Round {record.get('round', '?')}: {bidder} bid {out['final_bid_text']}, count {out['count']} — "
            f"{verdict} {out['multiplier_text']}")


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

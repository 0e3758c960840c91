"""A player's record in the card game, from stored card-game records (each with its ``outcome``): games
finished and won, challenges made and right, declarations challenged and held.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["CardsStats", "cards_stats", "played_text", "player_stats"]


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


def player_stats(player: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    """``stats``' sentence and figures for one player, from the card game's stored records."""
    s = cards_stats(records, player)
    mine = sum(1 for r in records if player in (r.get("outcome") or {}).get("net", {}))
    figures: dict[str, Any] = {"settlements": mine, **asdict(s), "challenge_accuracy": s.challenge_accuracy}
    parts = [f"Games won: {s.games_won} of {s.games} finished"]
    if s.challenge_accuracy is not None:
        parts.append(f"challenge accuracy {s.challenge_accuracy:.0%} ({s.challenges_right} of {s.challenges})")
    if s.challenged:
        parts.append(f"challenged {s.challenged} time{'s' if s.challenged != 1 else ''}, held {s.held}")
    return "; ".join(parts) + ".", figures


def played_text(player: str, records: Sequence[Mapping[str, Any]]) -> str:
    """``2 games``, ``5 rounds`` or ``2 games and 5 rounds``: the player's records, a winner payout's one a whole
    game, a knockout payout's one a challenge (the round it ends); a knockout game's own end (a row of its own
    only where a seat change ended it, no challenge) counts as neither, its challenges being counted — unless the
    player has no other record: then each such end is a game ("1 game", where it read "0 rounds" beside "Games
    won: 0 of 1 finished")."""
    mine = [r.get("outcome") or {} for r in records if player in (r.get("outcome") or {}).get("net", {})]
    games = sum(1 for o in mine if o.get("kind") == "game" and o.get("payout", "winner") == "winner")
    rounds = sum(1 for o in mine if o.get("kind") != "game")
    if not games and not rounds:
        games = sum(1 for o in mine if o.get("kind") == "game")
    parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((games, "game"), (rounds, "round")) if n]
    return " and ".join(parts) or "0 rounds"

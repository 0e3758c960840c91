"""What one seat may see of a round: the public history plus its own serial, never another's."""

from __future__ import annotations

from dataclasses import dataclass

from .bids import Bid
from .round import Action, LegalActions, Phase, Round
from .rules import Rules
from .serials import Serial

__all__ = ["SeatView", "seat_view"]


@dataclass(frozen=True, slots=True)
class SeatView:
    rules: Rules
    players: tuple[str, ...]
    me: str
    serial: Serial
    history: tuple[Action, ...]
    standing_bid: Bid | None
    bidder: str | None
    challengers: tuple[str, ...]
    phase: Phase
    stake: int
    to_act: str | None
    legal: LegalActions
    standing_is_rebid: bool

    @property
    def n(self) -> int:
        return len(self.players)


def _legal_for(round_: Round, player: str) -> LegalActions:
    """The seat's own legal actions: everything on its turn; off turn, at most a challenge
    (``first`` mode lets any non-bidder challenge at any moment)."""
    if round_.to_act == player:
        return round_.legal_actions()
    return LegalActions(player, range(0), round_.can_challenge(player), False, round_)


def seat_view(round_: Round, player: str) -> SeatView:
    return SeatView(
        rules=round_.rules,
        players=round_.players,
        me=player,
        serial=round_.serials[player],
        history=tuple(round_.history),
        standing_bid=round_.standing_bid,
        bidder=round_.bidder,
        challengers=round_.challengers,
        phase=round_.phase,
        stake=round_.stake,
        to_act=round_.to_act,
        legal=_legal_for(round_, player),
        standing_is_rebid=round_.standing_is_rebid,
    )

"""The vocabulary of a round: actions, the events they cause, phases, and the lazy legal-action sequence.

Split from :mod:`core.serial.round` (which re-exports every name here) so the state machine stays one
module of a few hundred lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Union, overload

from ..actions import PlayerMove
from .bids import Bid, bids_by_id
from .rules import RankOrder
from .scoring import Outcome

if TYPE_CHECKING:
    from .round import Round

__all__ = [
    "Action",
    "BidPlaced",
    "CallCount",
    "Challenge",
    "ChallengeMade",
    "ChallengedAllAround",
    "Counted",
    "Event",
    "LegalActions",
    "MakeBid",
    "Phase",
    "format_bid_ids",
]


# -- actions ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MakeBid:
    player: str
    bid: Bid


class Challenge(PlayerMove):
    __slots__ = ()


class CallCount(PlayerMove):
    """The bidder, challenged all around with the rebid right, calls for the count."""

    __slots__ = ()


Action = Union[MakeBid, Challenge, CallCount]


# -- events -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BidPlaced:
    player: str
    bid: Bid
    rebid: bool
    next_to_act: str


@dataclass(frozen=True, slots=True)
class ChallengeMade:
    player: str
    bid: Bid
    next_to_act: str | None


@dataclass(frozen=True, slots=True)
class ChallengedAllAround:
    """The standing bid has been challenged out.  ``may_rebid``: the bidder now chooses."""

    bidder: str
    bid: Bid
    may_rebid: bool


@dataclass(frozen=True, slots=True)
class Counted:
    outcome: Outcome


Event = Union[BidPlaced, ChallengeMade, ChallengedAllAround, Counted]


class Phase(StrEnum):
    BIDDING = "bidding"
    REBID = "rebid"  # challenged all around; the bidder chooses count or rebid
    OVER = "over"


@cache
def format_bid_ids(order: RankOrder, digits: int, max_quantity: int) -> tuple[int, ...]:
    """The ids of every bid a reduced format allows (digits in play, quantity up to ``max_quantity``), ascending."""
    in_play = {order.rank(d) for d in range(10) if 1 <= d <= digits} if digits < 10 else set(range(10))
    return tuple(i for i in range(max_quantity * 10) if i % 10 in in_play)


class LegalActions(Sequence[Action]):
    """The legal actions of the player to act: raises (ascending bid ids), then challenge, then count.

    A lazy sequence, so ``random.choice(round.legal_actions())`` costs no list of 960 bids.
    ``raise_ids`` is a ``range`` in the full game; in a reduced format (fewer digits) a tuple of ids.
    """

    __slots__ = (
        "_dense",
        "_n",
        "_order",
        "_r",
        "_start",
        "_table",
        "_who",
        "call_count",
        "challenge",
        "player",
        "raise_ids",
    )

    def __init__(
        self, player: str | None, raise_ids: Sequence[int], challenge: bool, call_count: bool, round_: Round
    ) -> None:
        self.player = player
        self.raise_ids = raise_ids
        self.challenge = challenge
        self.call_count = call_count
        self._order = order = round_.rules.rank_order
        self._table = bids_by_id(order)
        self._dense = dense = raise_ids.__class__ is range
        self._start = raise_ids.start if dense else 0  # type: ignore[attr-defined]
        self._who = player or ""
        self._r = len(raise_ids) if player is not None else 0
        self._n = self._r + challenge + call_count if player is not None else 0

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Action: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Action]: ...
    def __getitem__(self, i: int | slice) -> Action | Sequence[Action]:
        if i.__class__ is int and 0 <= i < self._r:  # the common case: a raise
            return MakeBid(self._who, self._table[self._start + i if self._dense else self.raise_ids[i]])
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        if i < self._r:
            return MakeBid(self._who, self._table[self.raise_ids[i]])
        if i == self._r and self.challenge:
            return Challenge(self._who)
        return CallCount(self._who)

    def __iter__(self) -> Iterator[Action]:
        for i in range(self._n):
            yield self[i]

    def bids(self) -> list[Bid]:
        if self._dense:
            return list(self._table[self._start : self._start + self._r])
        return [self._table[i] for i in self.raise_ids]

    def __contains__(self, action: object) -> bool:
        if isinstance(action, MakeBid):
            bid = action.bid
            bid_id = bid.id if bid.order is self._order else (bid.quantity - 1) * 10 + self._order.rank(bid.digit)
            return action.player == self.player and bid_id in self.raise_ids
        if isinstance(action, Challenge):
            return self.challenge and action.player == self.player
        if isinstance(action, CallCount):
            return self.call_count and action.player == self.player
        return False

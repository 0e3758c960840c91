"""The engine's one error tree.  Every error carries fields, so adapters can word it.

::

    GameError
    ├── BidParseError (also ValueError)   text that is not a bid
    ├── UnknownPlayer                     not seated at this table
    ├── NotYourTurn                       acting out of turn
    ├── BidTooLow                         a raise that does not beat the standing bid
    ├── QuantityOutOfRange                q outside 1 .. 8n
    ├── NoStandingBid                     a challenge before anyone has bid
    ├── BidderCannotChallenge             challenging your own bid
    ├── CountNotAvailable                 calling for the count when it is not yours to call
    └── RoundOver                         acting after the count

Engine operations raise these *before* changing any state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bids import Bid

__all__ = [
    "BidParseError",
    "BidTooLow",
    "BidderCannotChallenge",
    "CountNotAvailable",
    "GameError",
    "NoStandingBid",
    "NotYourTurn",
    "QuantityOutOfRange",
    "RoundOver",
    "UnknownPlayer",
]


class GameError(Exception):
    """Base of every rule violation.  ``code`` is a stable machine name; ``str(err)`` is for people."""

    code = "game-error"

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields
        for key, value in fields.items():
            setattr(self, key, value)


class BidParseError(GameError, ValueError):
    code = "bad-bid"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class UnknownPlayer(GameError):
    code = "not-seated"
    player: str

    def __init__(self, player: str) -> None:
        super().__init__(f"{player} is not seated at this table", player=player)


class NotYourTurn(GameError):
    code = "not-your-turn"
    player: str
    to_act: str

    def __init__(self, player: str, to_act: str) -> None:
        super().__init__(f"it is not your turn: {to_act} is to act", player=player, to_act=to_act)


class BidTooLow(GameError):
    code = "bid-too-low"
    bid: Bid
    standing: Bid

    def __init__(self, bid: Bid, standing: Bid) -> None:
        super().__init__(f"{bid} does not beat the standing bid of {standing}", bid=bid, standing=standing)


class QuantityOutOfRange(GameError):
    code = "quantity-out-of-range"
    quantity: int
    maximum: int

    def __init__(self, quantity: int, maximum: int) -> None:
        super().__init__(
            f"a bid's quantity must be 1 to {maximum} at this table, not {quantity}", quantity=quantity, maximum=maximum
        )


class NoStandingBid(GameError):
    code = "no-standing-bid"
    player: str

    def __init__(self, player: str) -> None:
        super().__init__("there is no bid to challenge yet: the opener must bid", player=player)


class BidderCannotChallenge(GameError):
    code = "bidder-cannot-challenge"
    player: str

    def __init__(self, player: str) -> None:
        super().__init__("you cannot challenge your own bid", player=player)


class CountNotAvailable(GameError):
    code = "count-not-available"
    player: str

    def __init__(self, player: str) -> None:
        super().__init__(
            "the count is called only by a bidder whose bid has been challenged all around", player=player
        )


class RoundOver(GameError):
    code = "round-over"

    def __init__(self) -> None:
        super().__init__("this round is over: it has been counted")

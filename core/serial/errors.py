"""The serial game's errors (the shared base is :mod:`core.errors`).  Every error carries fields.

::

    GameError
    ├── BidParseError (also ValueError)   text that is not a bid
    ├── UnknownPlayer                     not seated at this table
    ├── NotYourTurn                       acting out of turn
    ├── BidTooLow                         a raise that does not beat the standing bid
    ├── QuantityOutOfRange                q outside 1 .. 8n (serial_length × n in a reduced format)
    ├── DigitNotInPlay                    a digit the table's format does not use (reduced formats)
    ├── NoStandingBid                     a challenge before anyone has bid
    ├── BidderCannotChallenge             challenging your own bid
    ├── CountNotAvailable                 calling for the count when it is not yours to call
    └── RoundOver                         acting after the count

Engine operations raise these *before* changing any state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ActionParseError, GameError, NotYourTurn, RoundOver, UnknownPlayer

if TYPE_CHECKING:
    from .bids import Bid

__all__ = [
    "BidParseError",
    "BidTooLow",
    "BidderCannotChallenge",
    "CountNotAvailable",
    "DigitNotInPlay",
    "GameError",
    "NoStandingBid",
    "NotYourTurn",
    "QuantityOutOfRange",
    "RoundOver",
    "UnknownPlayer",
]


class BidParseError(ActionParseError):
    code = "bad-bid"

    def __init__(self, message: str) -> None:
        super().__init__(message)


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


class DigitNotInPlay(GameError):
    code = "digit-not-in-play"
    digit: int
    digits: tuple[int, ...]

    def __init__(self, digit: int, digits: tuple[int, ...]) -> None:
        super().__init__(
            f"this table plays only the digits {', '.join(map(str, sorted(digits)))}, not {digit}",
            digit=digit,
            digits=digits,
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

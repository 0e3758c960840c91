"""The serial-number game of Liar's Poker: pure, synchronous, no I/O.

Rules, serials, bids, rounds, scoring, sessions, odds, game records and computer players.
"""

from .bids import Bid, digit_name, digit_plural
from .errors import (
    BidderCannotChallenge,
    BidParseError,
    BidTooLow,
    CountNotAvailable,
    GameError,
    NoStandingBid,
    NotYourTurn,
    QuantityOutOfRange,
    RoundOver,
    UnknownPlayer,
)
from .fairness import commitment, new_salt, verify_commitment
from .round import (
    Action,
    BidPlaced,
    CallCount,
    Challenge,
    ChallengedAllAround,
    ChallengeMade,
    Counted,
    Event,
    LegalActions,
    MakeBid,
    Phase,
    Round,
    timeout_action,
)
from .rules import (
    PRESETS,
    ChallengeMode,
    FirstOpener,
    LaterOpener,
    RankOrder,
    Rules,
    RulesError,
    SerialSource,
    make_rules,
)
from .scoring import Bonus, Outcome, Transfer, score
from .serials import Serial, deal_serial, deal_slip
from .session import Session, SessionOver
from .view import SeatView, seat_view

__all__ = [
    "PRESETS",
    "Action",
    "Bid",
    "BidParseError",
    "BidPlaced",
    "BidTooLow",
    "BidderCannotChallenge",
    "Bonus",
    "CallCount",
    "Challenge",
    "ChallengeMade",
    "ChallengeMode",
    "ChallengedAllAround",
    "CountNotAvailable",
    "Counted",
    "Event",
    "FirstOpener",
    "GameError",
    "LaterOpener",
    "LegalActions",
    "MakeBid",
    "NoStandingBid",
    "NotYourTurn",
    "Outcome",
    "Phase",
    "QuantityOutOfRange",
    "RankOrder",
    "Round",
    "RoundOver",
    "Rules",
    "RulesError",
    "SeatView",
    "Serial",
    "SerialSource",
    "Session",
    "SessionOver",
    "Transfer",
    "UnknownPlayer",
    "commitment",
    "deal_serial",
    "deal_slip",
    "digit_name",
    "digit_plural",
    "make_rules",
    "new_salt",
    "score",
    "seat_view",
    "timeout_action",
    "verify_commitment",
]

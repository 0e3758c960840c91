"""One round of bidding: a state machine with ``legal_actions()`` and ``apply(action)``.

``apply`` checks first and raises a :class:`~core.errors.GameError` before changing anything; on
success it returns the events the action caused.  Turns, challenges and the rebid right follow
RULES.md "Turns and challenges":

* After a bid the turn moves clockwise; each player raises or challenges.  A raise wipes every
  challenge against the old bid.
* ``all`` mode: a bid is challenged all around when the turn comes back to its bidder.
  ``first`` mode: the first challenge (from any non-bidder, at any moment) ends the bidding.
* With the rebid right, a bid challenged all around leaves its bidder a choice: call for the count
  or rebid over their own bid.  A rebid that is itself challenged all around is counted at once; a
  raise over a rebid gives everyone the right again.  Without the right the count is immediate.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..game import RandomSource
from .actions import (
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
    format_bid_ids,
)
from .bids import MAX_PLAYERS, MIN_PLAYERS, Bid, bids_by_id
from .errors import (
    BidderCannotChallenge,
    BidTooLow,
    CountNotAvailable,
    DigitNotInPlay,
    GameError,
    NoStandingBid,
    NotYourTurn,
    QuantityOutOfRange,
    RoundOver,
    UnknownPlayer,
)
from .rules import ChallengeMode, Rules
from .scoring import Outcome, score
from .serials import Serial, fits

__all__ = [
    "Action",
    "BidPlaced",
    "CallCount",
    "Challenge",
    "ChallengeMade",
    "ChallengedAllAround",
    "CheckedAction",
    "Counted",
    "Event",
    "LegalActions",
    "MakeBid",
    "Phase",
    "Round",
    "format_bid_ids",
    "timeout_action",
]


_BIDDING, _REBID, _OVER = Phase.BIDDING, Phase.REBID, Phase.OVER


@dataclass(frozen=True, slots=True)
class CheckedAction:
    """An action :meth:`Round.check` passed: its actor's ``seat``, for ``round`` after ``at`` actions."""

    action: Action
    seat: int
    round: Round
    at: int


class Round:
    """The bidding of one round at one table.  Seats are ``players`` in clockwise order."""

    __slots__ = (
        "_bidder",
        "_challengers",
        "_first",
        "_format_ids",
        "_in_play",
        "_max_id",
        "_max_q",
        "_n",
        "_offered",
        "_order",
        "_phase",
        "_rebid_standing",
        "_seat",
        "_standing",
        "_table",
        "_turn",
        "history",
        "opener",
        "outcome",
        "players",
        "rules",
        "serials",
        "stake",
    )

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        serials: Mapping[str, Serial],
        opener: str,
        stake: int | None = None,
    ) -> None:
        seated: tuple[str, ...] = tuple(players)
        n = len(seated)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
        self._seat = seat = {p: i for i, p in enumerate(seated)}
        if len(seat) != n:
            raise ValueError("player names at a table must be distinct")
        self.rules = rules
        self.players = seated
        missing = [p for p in seated if p not in serials]
        if missing:
            raise ValueError(f"no serial for {', '.join(missing)}")
        if opener not in seat:
            raise ValueError(f"the opener {opener!r} is not seated")
        self.serials: dict[str, Serial] = {p: serials[p] for p in seated}
        length, digits = rules.serial_length, rules.digits
        for p, serial in self.serials.items():
            if digits < 10 or len(serial.digits) != length:  # in the full game, fits() checks only the length
                wrong = fits(serial, length, digits)
                if wrong is not None:
                    raise ValueError(f"{p}: {wrong}")
        self.opener = opener
        self.stake = rules.stake if stake is None else stake
        if self.stake <= 0:
            raise ValueError("the stake must be positive")
        self.history: list[Action] = []
        self.outcome: Outcome | None = None
        self._n = n
        self._turn = seat[opener]
        self._standing: Bid | None = None
        self._bidder = -1
        self._challengers: list[int] = []
        self._rebid_standing = False
        self._phase = _BIDDING
        self._max_q = length * n
        self._max_id = self._max_q * 10 - 1
        self._first = rules.challenge_mode is ChallengeMode.FIRST
        self._order = rules.rank_order
        self._table = bids_by_id(self._order)
        self._offered: Action | None = None  # the action random_action() last produced, if still legal
        reduced_digits = digits < 10
        self._in_play: frozenset[int] | None = frozenset(rules.digit_set) if reduced_digits else None
        self._format_ids: tuple[int, ...] | None = (
            format_bid_ids(self._order, rules.digits, self._max_q) if reduced_digits else None
        )

    def copy(self) -> Round:
        """An independent copy (for searches that try every action from one state)."""
        other = Round.__new__(Round)
        for name in Round.__slots__:
            setattr(other, name, getattr(self, name))
        other.history = list(self.history)
        other._challengers = list(self._challengers)
        return other

    # -- state ------------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase is _OVER

    @property
    def to_act(self) -> str | None:
        return None if self._phase is Phase.OVER else self.players[self._turn]

    @property
    def standing_bid(self) -> Bid | None:
        return self._standing

    @property
    def bidder(self) -> str | None:
        return self.players[self._bidder] if self._bidder >= 0 else None

    @property
    def challengers(self) -> tuple[str, ...]:
        """Who has challenged the standing bid, in order."""
        players = self.players
        return tuple([players[i] for i in self._challengers])

    @property
    def standing_is_rebid(self) -> bool:
        return self._rebid_standing

    @property
    def max_quantity(self) -> int:
        return self._max_q

    def next_player(self, player: str) -> str:
        return self.players[(self._seat[player] + 1) % self._n]

    def legal_actions(self) -> LegalActions:
        """The legal actions of the player to act (empty once the round is over).

        In ``first`` mode, any non-bidder may also challenge out of turn: see :meth:`can_challenge`.
        """
        if self._phase is Phase.OVER:
            return LegalActions(None, range(0), False, False, self)
        start = 0 if self._standing is None else self._standing.id + 1
        ids = self._format_ids
        raises: Sequence[int] = range(start, self._max_id + 1) if ids is None else ids[bisect_left(ids, start) :]
        if self._phase is Phase.REBID:
            return LegalActions(self.players[self._turn], raises, False, True, self)
        return LegalActions(self.players[self._turn], raises, self._standing is not None, False, self)

    def random_action(self, rng: RandomSource) -> Action:
        """One of :meth:`legal_actions`, uniformly at random, from a single ``rng.randrange`` draw.

        The same distribution as ``rng.choice(round.legal_actions())`` (with a ``random.Random``, the
        same draw), without building the sequence.  :meth:`apply` takes the action this returns
        without checking it again (until the round moves on).  Raises :class:`RoundOver` when over.
        """
        phase = self._phase
        if phase is _OVER:
            raise RoundOver()
        standing = self._standing
        ids = self._format_ids
        if ids is None:  # the raises are the contiguous ids start … max_id
            start = 0 if standing is None else standing.id + 1
            raises = self._max_id + 1 - start
            i = rng.randrange(raises) if standing is None else rng.randrange(raises + 1)
            if i < raises:
                action: Action = MakeBid(self.players[self._turn], self._table[start + i])
            elif phase is _REBID:
                action = CallCount(self.players[self._turn])
            else:
                action = Challenge(self.players[self._turn])
        else:  # the raises are ids[start:]
            start = 0 if standing is None else bisect_right(ids, standing.id)
            raises = len(ids) - start
            i = rng.randrange(raises) if standing is None else rng.randrange(raises + 1)
            if i < raises:
                action = MakeBid(self.players[self._turn], self._table[ids[start + i]])
            elif phase is _REBID:
                action = CallCount(self.players[self._turn])
            else:
                action = Challenge(self.players[self._turn])
        self._offered = action
        return action

    def can_challenge(self, player: str) -> bool:
        if self._phase is not Phase.BIDDING or self._standing is None or player not in self._seat:
            return False
        seat = self._seat[player]
        if seat == self._bidder:
            return False
        return self._first or seat == self._turn

    # -- transitions ------------------------------------------------------------------------------
    def check(self, action: Action) -> CheckedAction:
        """Raise the :class:`GameError` that ``apply(action)`` would raise, or return the action checked:
        ``apply`` takes it as it is while this round stands as it was checked."""
        return CheckedAction(action, self._check(action), self, len(self.history))

    def _check(self, action: Action) -> int:
        """:meth:`check`, returning the actor's seat."""
        if self._phase is Phase.OVER:
            raise RoundOver()
        player = action.player
        seat = self._seat.get(player)
        if seat is None:
            raise UnknownPlayer(player)
        if isinstance(action, MakeBid):
            if seat != self._turn:
                raise NotYourTurn(player, self.players[self._turn])
            bid = action.bid
            if not 1 <= bid.quantity <= self._max_q:
                raise QuantityOutOfRange(bid.quantity, self._max_q)
            if self._in_play is not None and bid.digit not in self._in_play:
                raise DigitNotInPlay(bid.digit, self.rules.digit_set)
            standing = self._standing
            if standing is not None and (bid.id if bid.order is self._order else self._rekey(bid).id) <= standing.id:
                raise BidTooLow(self._rekey(bid), standing)
        elif isinstance(action, Challenge):
            if self._standing is None:
                raise NoStandingBid(player)
            if seat == self._bidder:
                raise BidderCannotChallenge(player)
            if self._phase is Phase.REBID or (seat != self._turn and not self._first):
                raise NotYourTurn(player, self.players[self._turn])
        elif isinstance(action, CallCount):
            if self._phase is not Phase.REBID or seat != self._bidder:
                raise CountNotAvailable(player)
        else:  # pragma: no cover - typing guards this
            raise GameError(f"unknown action {action!r}")
        return seat

    def apply(self, action: Action | CheckedAction) -> tuple[Event, ...]:
        # A checked action for this very state is legal (the state changes only here); so is an action
        # random_action() just produced, by the player to act.
        if action.__class__ is CheckedAction:
            checked: CheckedAction = action
            action = checked.action
            seat = checked.seat if checked.round is self and checked.at == len(self.history) \
                else self._check(action)
        elif action is self._offered:
            seat = self._turn
        else:
            seat = self._check(action)  # type: ignore[arg-type]
        assert not isinstance(action, CheckedAction)
        self._offered = None
        self.history.append(action)
        if isinstance(action, MakeBid):
            bid = action.bid
            if bid.order is not self._order:
                bid = Bid(bid.quantity, bid.digit, self._order)
            rebid = self._phase is _REBID
            self._standing = bid
            self._bidder = seat
            if self._challengers:
                self._challengers = []
            self._rebid_standing = rebid
            self._phase = _BIDDING
            turn = self._turn = seat + 1 if seat + 1 < self._n else 0
            return (BidPlaced(action.player, bid, rebid, self.players[turn]),)
        standing = self._standing
        assert standing is not None
        if isinstance(action, Challenge):
            self._challengers.append(seat)
            if self._first:
                all_around = True
            else:
                turn = self._turn = seat + 1 if seat + 1 < self._n else 0
                all_around = turn == self._bidder
                if not all_around:
                    return (ChallengeMade(action.player, standing, self.players[turn]),)
            made = ChallengeMade(action.player, standing, None)
            bidder = self.players[self._bidder]
            if self.rules.rebid and not self._rebid_standing:
                self._phase = _REBID
                self._turn = self._bidder
                return (made, ChallengedAllAround(bidder, standing, True))
            return (made, ChallengedAllAround(bidder, standing, False), self._count())
        return (self._count(),)

    def _count(self) -> Counted:
        standing = self._standing
        assert standing is not None
        self._phase = _OVER
        players = self.players
        self.outcome = score(
            self.rules,
            players,
            self.serials,
            standing,
            players[self._bidder],
            self.stake,
            tuple([players[i] for i in self._challengers]),
        )
        return Counted(self.outcome)

    def _rekey(self, bid: Bid) -> Bid:
        order = self._order
        return bid if bid.order is order else Bid(bid.quantity, bid.digit, order)


def timeout_action(round_: Round) -> Action:
    """What a player who lets the clock run out is taken to do.

    The opener is given the lowest opening bid (one of the lowest-ranked digit, or the format's least
    bid): chosen from nothing but the table's rules, since the channel reads it while the serials are
    still secret (the bid they were sure of, their most frequent digit at the count they hold, told the
    channel that count and that no digit was held more often).  A bidder deciding on a rebid calls for the
    count.  Anyone else challenges.
    """
    player = round_.to_act
    if player is None:
        raise RoundOver()
    if round_.phase is Phase.REBID:
        return CallCount(player)
    if round_.standing_bid is None:
        return round_.legal_actions()[0]  # the least raise: the actions list the bids first, lowest first
    return Challenge(player)

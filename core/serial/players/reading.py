"""How ``reader`` reads the table: its dials, and the posteriors over each other player's holding of
each digit (``reader.py`` describes how it chooses).

**Reading.**  For every other player and every digit it keeps a posterior over how many copies of
that digit the player holds (0 to 8; the prior is Binomial(8, 1/10), digits treated as independent).
Each public action is evidence, applied as a likelihood:

* a bid on ``d`` (opening, raise or rebid) makes holding ``d`` likelier: each copy short of the
  holding a bidder "naturally" bids on (two for a raise, the quantity itself up to three for an
  opening) divides the likelihood by ``bid_ratio``, above a floor ``bid_floor`` for bluffs;
* a challenge of ``q × d`` makes holding ``d`` less likely, by how likely a player holding ``c``
  copies would have been to challenge (the opponent model below), softened by ``challenge_weight``;
* raising over ``q × d`` instead of challenging it is a mild sign of holding some ``d``
  (``noraise_weight``);
* a raise on the standing bid's own digit leans on that bid's claim: going from ``q × d`` to
  ``q′ × d`` needs only the ``q′ − q`` more copies.  With ``stack_read`` at ``w`` the bidder's
  likelihood is ``1 − w`` parts the ordinary one and ``w`` parts the one that wants only the
  increment (heads up, ``w`` = 0 read "I open two 5s, you say three 5s" as you holding two 5s —
  what a local best response bluffs into: see the README).

With ``self_read`` above zero (heads up) it also reads its *own* bids the same way, as the other player
sees them, and models the other's challenge of its next bid by that reading instead of the prior: after
"I open two 5s", a raise to four 5s is doubted by anyone who believes my two.

With ``open_floor`` above ``bid_floor`` the *opening* bid is read with that floor instead: an opening is
taken as a bluff that often, the later bids as before.  Heads up, a best response opens "two 9s" holding
none and challenges the raise a trusting reader makes on its one nine (see the README's "Heads-up");
an honest opener's bid is still read as a sign of holding.  ``doubt_mix`` and ``doubt_floor`` make that
a mixed strategy (``reader.py``): each decision is made, that often, by the reading whose opening
floor is ``doubt_floor``, else by the ordinary one; ``doubt_hedge`` instead chooses which bid to answer the
opening with by that share of its value under the doubting reading and the rest under the ordinary one.

Every bid and challenge counts, so a player who keeps coming back to one digit is read as holding
more of it.

The others' total of a digit is the convolution of their posteriors (capped at what the decision
needs, so it stays a handful of short vectors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from ..bids import Bid
from ..odds import at_least, count_distribution
from ..round import Action, Challenge, MakeBid
from ..view import SeatView

__all__ = ["PRIOR", "ReaderParams", "Vector"]

PRIOR: tuple[float, ...] = count_distribution(8)  # the full game's prior; a format's is ``_Model.prior``
Vector = list[float] | tuple[float, ...]


@dataclass(frozen=True, slots=True)
class ReaderParams:
    """The reader's dials (defaults: the tuned ``hard`` player)."""

    bid_floor: float = 0.07
    bid_ratio: float = 8.0
    raise_target: int = 2
    open_target: int = 3
    challenge_weight: float = 0.6
    noraise_weight: float = 0.6
    steep: float = 8.0
    raise_shift: float = 0.8
    raised_value: float = 0.3
    continue_value: float = 0.0
    rebid_value: float = 0.0
    max_jump: int = 4
    min_naive: float = 0.12
    bluff_rate: float = 0.2
    bluff_margin: float = 0.5
    temperature: float = 0.0
    bluff_hold: int = 1
    bluff_uniform: bool = True
    stack_read: float = 0.0
    shade: float = 0.0
    self_read: float = 0.0
    open_floor: float = 0.0
    doubt_mix: float = 0.0
    doubt_floor: float = 0.0
    doubt_hedge: float = 0.0
    open_low: float = 0.0
    open_high: float = 0.0
    open_one: float = 0.0
    answer_challenge: float = 0.0

    def __post_init__(self) -> None:
        """The opening's shares (``open_one``, ``open_low``, ``open_high``) split one draw, so each is a probability
        and together they are at most 1 (what is left plays the chosen opening); ``answer_challenge`` is a share of
        its own draw.  (``bluff_rate`` and ``shade`` draw apart from these, before them: they share no remainder.)"""
        for name in ("open_one", "open_low", "open_high", "answer_challenge"):
            share = getattr(self, name)
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"reader dial {name} is a share: it must be in [0, 1], not {share}")
        total = self.open_one + self.open_low + self.open_high
        if total > 1.0 + 1e-9:
            raise ValueError(
                f"reader dials open_one + open_low + open_high split one draw: they must sum to at most 1, "
                f"not {self.open_one} + {self.open_low} + {self.open_high} = {total:g}"
            )

    @property
    def opening_floor(self) -> float:
        """The floor the other's opening is read with: ``open_floor`` where it is above ``bid_floor``."""
        return max(self.bid_floor, self.open_floor)

    @property
    def mixes_opening(self) -> bool:
        """Whether its own opening bid is mixed (``open_one``, ``open_low``, ``open_high``)."""
        return self.open_one > 0 or self.open_low > 0 or self.open_high > 0

    @property
    def doubts(self) -> bool:
        """Whether ``doubt_mix`` mixes in (or ``doubt_hedge`` hedges with) a different reading: a doubting reading
        whose floor for the opening, ``max(bid_floor, doubt_floor)``, equals the opening's own floor reads the
        opening exactly as the ordinary reading does, so there is nothing to mix (or draw) or hedge.  (A
        ``doubt_floor`` between ``bid_floor`` and ``open_floor`` is a different, more trusting reading: mixed in.)"""
        different = max(self.bid_floor, self.doubt_floor) != self.opening_floor
        return (self.doubt_mix > 0 or self.doubt_hedge > 0) and different


# -- tables, computed once per (params, table size) ----------------------------------------------
def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class _Model:
    """Likelihoods and the opponent model for one table size and format, indexed by quantity (0 .. Ln)."""

    __slots__ = (
        "_stacked",
        "best_raise",
        "bid",
        "challenge",
        "counts_own",
        "length",
        "n",
        "open_bid",
        "prior",
        "read_challenge",
        "read_raise_over",
        "stack",
        "steep",
        "values",
    )

    def __init__(self, params: ReaderParams, n: int, length: int = 8, values: int = 10) -> None:
        k = length * (n - 1)
        lo = math.floor(params.raise_shift)
        frac = params.raise_shift - lo
        self.n = n
        self.length = length
        self.values = values
        sizes = range(length + 1)
        #: The prior over one player's holding of one digit: Binomial(length, 1/values).
        self.prior = count_distribution(length, values)
        challenge: list[tuple[float, ...]] = []
        best_raises: list[float] = []
        for q in range(length * n + 1):
            # The opponent's best raise is taken to need q - raise_shift copies among the others.
            best_raise = (1 - frac) * at_least(q - lo, k, values) + frac * at_least(q - lo - 1, k, values)
            best_raises.append(best_raise)
            challenge.append(
                tuple(_sigmoid(params.steep * ((1.0 - at_least(q - c, k, values)) - best_raise)) for c in sizes)
            )
        #: P(a player holding c copies challenges q × d), c = 0 .. 8.
        self.challenge = tuple(challenge)
        self.best_raise = tuple(best_raises)
        self.steep = params.steep
        w = params.challenge_weight
        self.read_challenge = tuple(tuple(1 - w + w * x for x in rho) for rho in challenge)
        w = params.noraise_weight
        self.read_raise_over = tuple(tuple(1 - w + w * (1 - x) for x in rho) for rho in challenge)
        #: Likelihood of bidding a digit while holding c copies, by the holding the bid "wants".
        self.bid = tuple(
            tuple(params.bid_floor + (1 - params.bid_floor) * params.bid_ratio ** -max(0, t - c) for c in sizes)
            for t in range(9)
        )
        #: The same for the opening bid, whose floor is at least ``open_floor`` (``bid`` itself when that is 0).
        floor = params.opening_floor
        self.open_bid = (
            self.bid
            if floor == params.bid_floor
            else tuple(tuple(floor + (1 - floor) * params.bid_ratio ** -max(0, t - c) for c in sizes) for t in range(9))
        )
        self.stack = params.stack_read
        self._stacked: dict[tuple[int, int], tuple[float, ...]] = {}
        #: P(a bidder challenged all around, holding c copies, calls for the count), by quantity.
        self.counts_own = tuple(
            tuple(_sigmoid(params.steep * (at_least(q - c, k, values) - 0.5)) for c in sizes)
            for q in range(length * n + 1)
        )


    def challenge_seen(self, quantity: int, mine: Vector) -> list[float]:
        """P(the other player, holding c copies, challenges my ``quantity × d``) when they judge it by what my
        bids have told them of my holding of ``d`` (``mine``: my bids read as I read theirs), not by the prior."""
        tail = [0.0] * (len(mine) + 1)
        for i in range(len(mine) - 1, -1, -1):
            tail[i] = tail[i + 1] + mine[i]
        best = self.best_raise[quantity]
        return [
            _sigmoid(self.steep * ((1.0 - tail[min(max(quantity - c, 0), len(mine))]) - best))
            for c in range(self.length + 1)
        ]

    def stacked(self, target: int, step: int) -> tuple[float, ...]:
        """The likelihood of a raise by ``step`` on the standing bid's digit (see ``stack_read``)."""
        key = (target, step)
        if key not in self._stacked:
            w = self.stack
            lean = self.bid[max(0, min(target, step))]
            self._stacked[key] = tuple((1 - w) * a + w * b for a, b in zip(self.bid[target], lean, strict=True))
        return self._stacked[key]


@cache
def _model(params: ReaderParams, n: int, length: int = 8, values: int = 10) -> _Model:
    return _Model(params, n, length, values)


def _model_for(params: ReaderParams, view: SeatView) -> _Model:
    return _model(params, view.n, view.rules.serial_length, view.rules.digits)


def _times(vec: Vector, lik: tuple[float, ...]) -> list[float]:
    out = [a * b for a, b in zip(vec, lik, strict=True)]
    total = sum(out)
    if total <= 0.0:
        return list(vec)
    return [x / total for x in out]


def _convolve(acc: list[float], vec: Vector, cap: int) -> list[float]:
    """Distribution of the sum, with everything at or above ``cap`` lumped into the last cell."""
    size = min(len(acc) + len(vec) - 1, cap + 1)
    out = [0.0] * size
    top = size - 1
    for i, a in enumerate(acc):
        if a < 1e-12:
            continue
        for c, v in enumerate(vec):
            k = i + c
            if k >= top:
                out[top] += a * sum(vec[c:])
                break
            out[k] += a * v
    return out


class _Reading:
    """The posteriors after a prefix of the public history; extended action by action."""

    __slots__ = ("bidder", "key", "post", "seen", "standing", "values")

    def __init__(self, key: tuple[object, ...]) -> None:
        self.key = key
        self.post: dict[tuple[str, int], list[float]] = {}
        #: The reader's raises valued from these posteriors (``reader._Table.value_raise``), by quantity, digit,
        #: copies held and stake, so that decisions at one point of a round by seats of different holdings (a
        #: search's particles) value each raise once, not once each.  Empty in a copy: it belongs to this history.
        self.values: dict[tuple[int, int, int, int], tuple[float, float, float]] = {}
        self.seen: tuple[Action, ...] = ()
        self.standing: Bid | None = None
        self.bidder: str | None = None

    def copy(self) -> _Reading:
        other = _Reading(self.key)
        other.post = dict(self.post)  # the vectors themselves are never changed in place
        other.seen, other.standing, other.bidder = self.seen, self.standing, self.bidder
        return other

    def _update(self, player: str, digit: int, lik: tuple[float, ...], prior: tuple[float, ...]) -> None:
        key = (player, digit)
        self.post[key] = _times(self.post.get(key, prior), lik)

    def extend(self, history: tuple[Action, ...], me: str, params: ReaderParams, model: _Model) -> None:
        standing, bidder = self.standing, self.bidder
        for action in history[len(self.seen) :]:
            actor = action.player
            if isinstance(action, MakeBid):
                bid = action.bid
                if actor == me and params.self_read > 0:
                    # What my bid tells the others (read as I read theirs): see ``self_read``.
                    target = min(bid.quantity, params.open_target if standing is None else params.raise_target)
                    self._update(me, bid.digit, model.bid[target], model.prior)
                if actor != me:
                    if standing is not None and bidder != actor and params.noraise_weight > 0:
                        self._update(actor, standing.digit, model.read_raise_over[standing.quantity], model.prior)
                    target = min(bid.quantity, params.open_target if standing is None else params.raise_target)
                    lik = model.open_bid[target] if standing is None else model.bid[target]
                    stacked = standing is not None and bidder != actor and bid.digit == standing.digit
                    if params.stack_read > 0 and standing is not None and stacked:
                        lik = model.stacked(target, bid.quantity - standing.quantity)
                    self._update(actor, bid.digit, lik, model.prior)
                standing, bidder = bid, actor
            elif isinstance(action, Challenge):
                if actor != me and standing is not None and params.challenge_weight > 0:
                    self._update(actor, standing.digit, model.read_challenge[standing.quantity], model.prior)
        self.standing, self.bidder = standing, bidder
        self.seen = history

"""``reader``: the strong computer player.

It reads the table and chooses by expected units.

**Reading.**  For every other player and every digit it keeps a posterior over how many copies of
that digit the player holds (0 to 8; the prior is Binomial(8, 1/10), digits treated as independent).
Each public action is evidence, applied as a likelihood:

* a bid on ``d`` (opening, raise or rebid) makes holding ``d`` likelier: each copy short of the
  holding a bidder "naturally" bids on (two for a raise, the quantity itself up to three for an
  opening) divides the likelihood by ``bid_ratio``, above a floor ``bid_floor`` for bluffs;
* a challenge of ``q × d`` makes holding ``d`` less likely, by how likely a player holding ``c``
  copies would have been to challenge (the opponent model below), softened by ``challenge_weight``;
* raising over ``q × d`` instead of challenging it is a mild sign of holding some ``d``.

The others' total of a digit is the convolution of their posteriors (capped at what the decision
needs, so it stays a handful of short vectors).

**Opponent model.**  A player holding ``c`` copies challenges ``q × d`` with probability
``σ(steep · (P(false | c) − P(their best raise is true)))``, where their best raise is taken to
need ``q − raise_shift`` copies of some digit among the others.  This is how likely the player's
*own* answer is; it drives both reading (above) and foresight (below).

**Choosing.**  Every option is valued in units, under the table's real payoffs:

* *Raise* to ``B``: the bid is counted only if every other player challenges it (in ``all`` mode
  at 3+ players; the next player in ``first`` mode or heads up).  The chance of that is the
  product of each one's challenge probability, and the count is valued *given* they all
  challenged (their challenges are evidence that they hold few).  Counted, the bidder wins
  ``m × stake`` from each of the ``n − 1`` others (``m`` from the size and sixes bonuses, +1 for a
  hero) or pays each one stake; with the skunk rule a bid on a digit nobody holds wins ``2n − 6``.
  With the rebid right, a bid challenged all around is worth the better of the count and the best
  rebid.  If someone raises over it instead, the bid is worth ``raised_value`` stakes.
* *Challenge*: the players still to answer must challenge too (each with their modelled
  probability, and again the count is valued given that); counted, a non-bidder wins one stake or
  pays ``m`` stakes.  With the rebid right the bidder may rebid instead of counting, which they do
  when their own odds are poor.  If a later player raises, the challenge is worth
  ``continue_value``.
* *Count* (challenged all around, with the rebid right): the count given everyone's challenges,
  against each possible rebid.

Stakes scale every payoff alike, so progressive stakes change no decision within a round; the
stake the final bid sets for the next round is symmetric between the players and is not valued.

**Mixing.**  The best option is played, except that with probability ``bluff_rate`` the reader bids
on a digit it holds at most one of (the best such bid, when it gives up no more than
``bluff_margin`` stakes per opponent), so its bids do not simply reveal its serial; with a
``temperature`` above zero it picks among near-best options by a softmax (the ``normal`` level).
All randomness comes from the rng it is handed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import cache

from ..bids import Bid
from ..odds import at_least, count_distribution
from ..round import Action, CallCount, Challenge, MakeBid, Phase
from ..rules import ChallengeMode
from ..view import SeatView
from .base import base_multiplier, bid_text, pct, raise_options, seats_after

__all__ = ["Reader", "ReaderParams"]

PRIOR: tuple[float, ...] = count_distribution(8)
_SIZES = range(9)


@dataclass(frozen=True, slots=True)
class ReaderParams:
    """The reader's dials (defaults: the tuned ``hard`` player)."""

    bid_floor: float = 0.15
    bid_ratio: float = 5.0
    raise_target: int = 2
    open_target: int = 3
    challenge_weight: float = 0.6
    noraise_weight: float = 0.3
    steep: float = 8.0
    raise_shift: float = 1.5
    raised_value: float = 0.0
    continue_value: float = 0.0
    rebid_value: float = 0.0
    max_jump: int = 4
    min_naive: float = 0.12
    bluff_rate: float = 0.10
    bluff_margin: float = 0.10
    temperature: float = 0.0


# -- cached tables ------------------------------------------------------------------------------
def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@cache
def _challenge_prob(n: int, q: int, steep: float, shift: float) -> tuple[float, ...]:
    """P(a player holding c copies challenges q × d), c = 0 .. 8 (the opponent model)."""
    k = 8 * (n - 1)
    lo = math.floor(shift)
    frac = shift - lo
    best_raise = (1 - frac) * at_least(q - lo, k) + frac * at_least(q - lo - 1, k)
    return tuple(_sigmoid(steep * ((1.0 - at_least(q - c, k)) - best_raise)) for c in _SIZES)


@cache
def _bid_likelihood(target: int, floor: float, ratio: float) -> tuple[float, ...]:
    return tuple(floor + (1 - floor) * ratio ** -max(0, target - c) for c in _SIZES)


@cache
def _soft(lik: tuple[float, ...], weight: float, invert: bool) -> tuple[float, ...]:
    """``1 − w + w·L`` (or with ``1 − L``): a likelihood softened toward no evidence."""
    return tuple(1 - weight + weight * ((1 - x) if invert else x) for x in lik)


def _times(vec: tuple[float, ...] | list[float], lik: tuple[float, ...]) -> list[float]:
    out = [a * b for a, b in zip(vec, lik, strict=True)]
    total = sum(out)
    if total <= 0.0:
        return list(vec)
    return [x / total for x in out]


def _convolve(acc: list[float], vec: list[float] | tuple[float, ...], cap: int) -> list[float]:
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


# -- one decision -------------------------------------------------------------------------------
@dataclass(slots=True)
class _Option:
    action: Action
    value: float  # expected units
    p_true: float  # P(bid made) as valued (given the count happens), or P(win) for a challenge/count
    p_count: float  # P(the count happens without a further raise)
    bluff: bool = False


class _Table:
    """The reader's picture of one decision: posteriors, then the value of every option."""

    def __init__(self, view: SeatView, params: ReaderParams) -> None:
        self.view = view
        self.params = params
        self.n = view.n
        self.me = view.me
        self.stake = view.stake
        self.counts = view.serial.counts
        self.others = seats_after(view.players, view.me)
        self.all_must = view.rules.challenge_mode is ChallengeMode.ALL and self.n > 2
        self.post: dict[tuple[str, int], list[float]] = {}
        self._read_history()

    # -- evidence ---------------------------------------------------------------------------------
    def vec(self, player: str, digit: int) -> list[float] | tuple[float, ...]:
        return self.post.get((player, digit), PRIOR)

    def _update(self, player: str, digit: int, lik: tuple[float, ...]) -> None:
        self.post[(player, digit)] = _times(self.vec(player, digit), lik)

    def _read_history(self) -> None:
        """Fold the public history into the posteriors.

        Repeated evidence of one kind about one player's digit is not independent (bidding sevens
        three times says little more than bidding them once), so for each player and digit only
        the strongest of each kind counts: the highest bid target, the lowest quantity they
        challenged, the highest quantity they raised over without challenging.  This also keeps
        a long history (a table of raise-by-one players) cheap to read.
        """
        p = self.params
        n = self.n
        me = self.me
        targets: dict[tuple[str, int], int] = {}
        challenged: dict[tuple[str, int], int] = {}
        raised_over: dict[tuple[str, int], int] = {}
        standing: Bid | None = None
        bidder: str | None = None
        for action in self.view.history:
            actor = action.player
            if isinstance(action, MakeBid):
                bid = action.bid
                if actor != me:
                    if standing is not None and bidder != actor:
                        key = (actor, standing.digit)
                        if raised_over.get(key, 0) < standing.quantity:
                            raised_over[key] = standing.quantity
                    target = min(bid.quantity, p.open_target if standing is None else p.raise_target)
                    key = (actor, bid.digit)
                    if targets.get(key, -1) < target:
                        targets[key] = target
                standing, bidder = bid, actor
            elif isinstance(action, Challenge) and actor != me and standing is not None:
                key = (actor, standing.digit)
                if challenged.get(key, 1 << 30) > standing.quantity:
                    challenged[key] = standing.quantity
        for key, target in targets.items():
            self._update(key[0], key[1], _bid_likelihood(target, p.bid_floor, p.bid_ratio))
        if p.challenge_weight > 0:
            for key, q in challenged.items():
                rho = _challenge_prob(n, q, p.steep, p.raise_shift)
                self._update(key[0], key[1], _soft(rho, p.challenge_weight, False))
        if p.noraise_weight > 0:
            for key, q in raised_over.items():
                rho = _challenge_prob(n, q, p.steep, p.raise_shift)
                self._update(key[0], key[1], _soft(rho, p.noraise_weight, True))

    # -- valuation ----------------------------------------------------------------------------------
    def _skunk_pays(self) -> int | None:
        if self.view.rules.skunk and self.n > 2:
            return 2 * self.n - 6
        return None

    def value_raise(self, quantity: int, digit: int, may_rebid: bool) -> tuple[float, float, float]:
        """(value if counted, P(made | counted), P(counted)) for my bid of ``quantity × digit``."""
        p = self.params
        n = self.n
        held = self.counts[digit]
        need = quantity - held
        cap = max(need, 1)
        rho = _challenge_prob(n, quantity, p.steep, p.raise_shift)
        answering = self.others if self.all_must else self.others[:1]
        p_count = 1.0
        dist: list[float] = [1.0]
        for j in self.others:
            v = self.vec(j, digit)
            if j in answering:
                w = [a * b for a, b in zip(v, rho, strict=True)]
                t = sum(w)
                p_count *= t
                if t > 0:
                    w = [x / t for x in w]
                if need > 0:
                    dist = _convolve(dist, w, cap)
            elif need > 0:
                dist = _convolve(dist, v, cap)
        skunk = self._skunk_pays() if held == 0 else None
        if need <= 0:
            p_made, p_zero = 1.0, 0.0
        else:
            p_made = dist[cap] if len(dist) > cap else 0.0
            p_zero = dist[0] if skunk is not None else 0.0
        m = base_multiplier(self.view, quantity, digit)
        if held == 0 and self.view.rules.hero_bonus:
            m += 1
        p_fail = 1.0 - p_made - p_zero
        units = m * p_made - p_fail + (skunk or 0) * p_zero
        return units * (n - 1) * self.stake, p_made, p_count

    def value_challenge(self) -> tuple[float, float, float]:
        """(value if counted, P(the standing bid fails | counted), P(counted)) for challenging it."""
        view = self.view
        standing = view.standing_bid
        bidder = view.bidder
        assert standing is not None and bidder is not None
        p = self.params
        n = self.n
        q, d = standing.quantity, standing.digit
        held = self.counts[d]
        remaining: list[str] = []
        if self.all_must:
            for j in self.others:
                if j == bidder:
                    break
                remaining.append(j)
        rho = _challenge_prob(n, q, p.steep, p.raise_shift)
        p_count = 1.0
        cap = max(q - held, 1)
        dist: list[float] = [1.0]
        for j in self.others:
            if j == bidder:
                continue
            v = self.vec(j, d)
            if j in remaining:
                w = [a * b for a, b in zip(v, rho, strict=True)]
                t = sum(w)
                p_count *= t
                if t > 0:
                    w = [x / t for x in w]
                v = w
            dist = _convolve(dist, v, cap)
        skunk = self._skunk_pays()
        base = base_multiplier(view, q, d)
        may_rebid = view.rules.rebid and not view.standing_is_rebid
        k = 8 * (n - 1)
        units = 0.0
        p_fail_total = 0.0
        for cb, pb in enumerate(self.vec(bidder, d)):
            if pb < 1e-12:
                continue
            need = q - held - cb  # what the other non-bidders must hold
            if need <= 0:
                p_made, p_zero = 1.0, 0.0
            else:
                idx = min(need, cap)
                p_made = math.fsum(dist[idx:]) if idx < len(dist) else 0.0
                p_zero = dist[0] if (skunk is not None and held == 0 and cb == 0) else 0.0
            p_fail = 1.0 - p_made - p_zero
            m = base + (1 if cb == 0 and view.rules.hero_bonus else 0)
            count_units = p_fail - m * p_made - (skunk or 0) * p_zero
            if may_rebid:
                # The bidder, challenged all around, counts when their own odds are good.
                counts = _sigmoid(p.steep * (at_least(q - cb, k) - 0.5))
                count_units = counts * count_units + (1 - counts) * p.rebid_value
            units += pb * count_units
            p_fail_total += pb * p_fail
        return units * self.stake, p_fail_total, p_count

    def value_count(self) -> tuple[float, float]:
        """(value, P(made)) of calling for the count on my own challenged bid."""
        standing = self.view.standing_bid
        assert standing is not None
        saved = self.all_must
        # Everyone has already challenged (that evidence is in the posteriors): nobody answers again.
        self.all_must = False
        try:
            value, p_made, _ = self._value_counted_now(standing.quantity, standing.digit)
        finally:
            self.all_must = saved
        return value, p_made

    def _value_counted_now(self, quantity: int, digit: int) -> tuple[float, float, float]:
        held = self.counts[digit]
        need = quantity - held
        cap = max(need, 1)
        dist: list[float] = [1.0]
        if need > 0:
            for j in self.others:
                dist = _convolve(dist, self.vec(j, digit), cap)
        skunk = self._skunk_pays() if held == 0 else None
        if need <= 0:
            p_made, p_zero = 1.0, 0.0
        else:
            p_made = dist[cap] if len(dist) > cap else 0.0
            p_zero = dist[0] if skunk is not None else 0.0
        m = base_multiplier(self.view, quantity, digit)
        if held == 0 and self.view.rules.hero_bonus:
            m += 1
        units = m * p_made - (1.0 - p_made - p_zero) + (skunk or 0) * p_zero
        return units * (self.n - 1) * self.stake, p_made, 1.0

    # -- the options --------------------------------------------------------------------------------
    def candidates(self) -> list[tuple[int, int]]:
        """Raises worth valuing: per digit the smallest, and jumps while the naive odds stay reasonable."""
        p = self.params
        view = self.view
        top = 8 * self.n
        k = 8 * (self.n - 1)
        out: list[tuple[int, int]] = []
        for quantity, digit in raise_options(view):
            held = self.counts[digit]
            out.append((quantity, digit))
            q = quantity + 1
            while q <= top and q - quantity <= p.max_jump and at_least(q - held, k) >= p.min_naive:
                out.append((q, digit))
                q += 1
        return out

    def options(self) -> list[_Option]:
        view = self.view
        p = self.params
        me = self.me
        rebid_phase = view.phase is Phase.REBID
        may_rebid_later = view.rules.rebid and not rebid_phase
        out: list[_Option] = []
        raises: list[tuple[int, int, float, float, float]] = []
        for quantity, digit in self.candidates():
            counted, p_made, p_count = self.value_raise(quantity, digit, may_rebid_later)
            raises.append((quantity, digit, counted, p_made, p_count))
        if may_rebid_later and raises:
            # Challenged all around, a bid may be replaced by a rebid above it: worth the best such.
            order = view.rules.rank_order
            ids = [Bid(q, d, order).id for q, d, *_ in raises]
            values = [pc * c + (1 - pc) * p.raised_value * self.stake for _, _, c, _, pc in raises]
            best_above = [-math.inf] * len(raises)
            ranked = sorted(range(len(raises)), key=lambda i: ids[i], reverse=True)
            running = -math.inf
            for i in ranked:
                best_above[i] = running
                running = max(running, values[i])
            raises = [(q, d, max(c, best_above[i]), pm, pc) for i, (q, d, c, pm, pc) in enumerate(raises)]
        for quantity, digit, counted, p_made, p_count in raises:
            value = p_count * counted + (1 - p_count) * p.raised_value * self.stake
            bid = Bid(quantity, digit, view.rules.rank_order)
            out.append(_Option(MakeBid(me, bid), value, p_made, p_count, self.counts[digit] <= 1))
        if view.legal.challenge:
            counted, p_fail, p_count = self.value_challenge()
            value = p_count * counted + (1 - p_count) * p.continue_value * self.stake
            out.append(_Option(Challenge(me), value, p_fail, p_count))
        if view.legal.call_count:
            value, p_made = self.value_count()
            out.append(_Option(CallCount(me), value, p_made, 1.0))
        return out


def _pick(options: list[_Option], params: ReaderParams, rng: random.Random, n: int, stake: int) -> _Option:
    best = max(options, key=lambda o: o.value)
    if params.bluff_rate > 0 and rng.random() < params.bluff_rate:
        floor = best.value - params.bluff_margin * (n - 1) * stake
        bluffs = [o for o in options if o.bluff and o.value >= floor and o is not best]
        if bluffs:
            return max(bluffs, key=lambda o: o.value)
    if params.temperature > 0:
        scale = params.temperature * (n - 1) * stake
        weights = [math.exp((o.value - best.value) / scale) for o in options]
        return options[_choice_index(weights, rng)]
    return best


def _choice_index(weights: list[float], rng: random.Random) -> int:
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


class Reader:
    """The strong computer player (see the module docstring)."""

    def __init__(self, params: ReaderParams | None = None, name: str = "reader") -> None:
        self.params = params if params is not None else ReaderParams()
        self.name = name

    def __repr__(self) -> str:
        return f"Reader({self.params!r}, name={self.name!r})"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        table = _Table(view, self.params)
        return _pick(table.options(), self.params, rng, view.n, view.stake).action

    def explain(self, view: SeatView) -> str:
        table = _Table(view, self.params)
        options = table.options()
        best = max(options, key=lambda o: o.value)
        parts: list[str] = []
        standing = view.standing_bid
        if standing is not None and view.bidder is not None:
            d = standing.digit
            expected = sum(c * x for c, x in enumerate(table.vec(view.bidder, d)))
            parts.append(
                f"The standing bid is {bid_text(standing)} by {view.bidder}; I hold {table.counts[d]} of them and "
                f"read {view.bidder} as holding about {expected:.1f}."
            )
        else:
            parts.append("I open the bidding.")
        challenge = next((o for o in options if not isinstance(o.action, MakeBid)), None)
        raises = [o for o in options if isinstance(o.action, MakeBid)]
        best_raise = max(raises, key=lambda o: o.value) if raises else None
        if challenge is not None:
            verb = "Challenging" if isinstance(challenge.action, Challenge) else "Calling for the count"
            parts.append(
                f"{verb} wins with probability {pct(challenge.p_true)} if it comes to the count "
                f"({pct(challenge.p_count)} that it does), worth {challenge.value:+.2f} units."
            )
        if best_raise is not None:
            assert isinstance(best_raise.action, MakeBid)
            parts.append(
                f"My best raise, {bid_text(best_raise.action.bid)}, is true with probability "
                f"{pct(best_raise.p_true)} if everyone challenges it ({pct(best_raise.p_count)} that they do), "
                f"worth {best_raise.value:+.2f} units."
            )
        if isinstance(best.action, MakeBid):
            parts.append(f"So I bid {bid_text(best.action.bid)}.")
        elif isinstance(best.action, Challenge):
            parts.append("So I challenge.")
        else:
            parts.append("So I call for the count.")
        return " ".join(parts)

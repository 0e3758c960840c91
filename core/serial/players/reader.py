"""``reader``: the strong computer player.

It reads the table and chooses by expected units.

**Reading** (``reading.py``): a posterior, for every other player and digit, over how many copies
they hold, updated by every public action as evidence.

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

**Mixing.**  The best option is played, except that with probability ``bluff_rate`` the reader
bids instead on a digit it holds at most one of, chosen uniformly among those that give up no more
than ``bluff_margin`` stakes per opponent, so its bids do not simply reveal its serial (in
self-play about one bid in six is on a digit it holds one or none of; the greedy ``binomial``
almost never does that).  With ``doubt_mix`` above zero, each decision after another player's
opening is made that often by a *doubting* reading (the opening read with the floor ``doubt_floor``,
``reading.py``), else by the ordinary one: a mixed strategy, so a player who bluffs its opening
cannot count on being believed, nor an honest opener on being doubted.  With ``doubt_hedge`` above
zero, the answer to another player's opening (the decision right after it) chooses *which* bid to make
by ``doubt_hedge`` parts its value under the doubting reading and the rest under the ordinary one
(whether to bid or challenge stays the ordinary reading's): where two bids are near each other under the
ordinary reading — heads up, raising the opening's digit on one copy or bidding a digit it holds two
of — it makes the one that a bluffed opening hurts least, at a small cost against an honest opener,
instead of paying the doubt's whole cost now and then as ``doubt_mix`` does.  With ``shade`` above zero a
bid it chose is made one copy lower (on the same digit, where that is still a raise) that often, so
an opening's quantity does not tell its holding exactly.  Its own *opening* can be mixed too: with
``open_one`` it opens instead, that often, one copy of a digit it holds (each such digit alike: a bid it
is sure of that tells little), with ``open_low`` / ``open_high`` the chosen opening (shaded or not) one copy
lower / higher on its digit (one draw splits the three shares, which sum to at most 1), so that, heads up,
the opening does not tell the other its count.  With ``answer_challenge`` above zero, answering the other's
raise on its own opening's digit, that share of the mass it would put on re-raising that digit goes to a
challenge instead.  With a ``temperature`` above zero it picks among all options by a softmax on their values
(the ``normal`` level).  All randomness comes from the rng it is handed.

**Tuning.**  The defaults were chosen with ``liars arena`` (and ``bench/arena.py``) against the
greedy baseline, against itself with other settings, and against a heavy bluffer; each dial was
kept only where it helped against all three.  Cost per decision is a few short convolutions per
candidate bid over cached tables; reading the history is incremental within a round.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass

from ..bids import Bid
from ..odds import at_least
from ..round import Action, CallCount, Challenge, MakeBid, Phase
from ..rules import ChallengeMode
from ..view import SeatView
from .base import base_multiplier, bid_text, choice_index, pct, raise_options, seats_after
from .reading import ReaderParams, Vector, _convolve, _model_for, _Reading

__all__ = ["Reader", "ReaderParams"]


RECENT_READINGS = 16  # readings a reader keeps by history (see ``Reader._recent``)


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

    def __init__(self, view: SeatView, params: ReaderParams, reading: _Reading) -> None:
        self.view = view
        self.params = params
        self.n = view.n
        self.me = view.me
        self.stake = view.stake
        self.counts = view.serial.counts
        self.others = seats_after(view.players, view.me)
        self.all_must = view.rules.challenge_mode is ChallengeMode.ALL and self.n > 2
        self.model = _model_for(params, view)
        self.post = reading.post
        self._values = reading.values

    def vec(self, player: str, digit: int) -> Vector:
        return self.post.get((player, digit), self.model.prior)

    # -- valuation ----------------------------------------------------------------------------------
    def _others_total(
        self, digit: int, cap: int, rho: tuple[float, ...], answering: list[str], skip: str | None = None
    ) -> tuple[list[float], float]:
        """The others' total of ``digit`` (capped at ``cap``), given that ``answering`` all challenge.

        Returns the distribution and the probability that they all do challenge.
        """
        p_count = 1.0
        dist: list[float] = [1.0]
        for j in self.others:
            if j == skip:
                continue
            v = self.vec(j, digit)
            if j in answering:
                w = [a * b for a, b in zip(v, rho, strict=True)]
                t = sum(w)
                p_count *= t
                if t > 0:
                    v = [x / t for x in w]
            if cap > 0:
                dist = _convolve(dist, v, cap)
        return dist, p_count

    def _bidder_units(self, quantity: int, digit: int, dist: list[float], cap: int) -> tuple[float, float]:
        """(units per opponent, P(made)) for my bid when the others' total is ``dist``."""
        held = self.counts[digit]
        need = quantity - held
        rules = self.view.rules
        if need <= 0:
            p_made, p_zero = 1.0, 0.0
        else:
            p_made = dist[cap] if len(dist) > cap else 0.0
            p_zero = dist[0] if held == 0 and rules.skunk and self.n > 2 else 0.0
        m = base_multiplier(self.view, quantity, digit)
        if held == 0 and rules.hero_bonus:
            m += 1
        skunk = 2 * self.n - 6
        return m * p_made - (1.0 - p_made - p_zero) + skunk * p_zero, p_made

    def value_raise(self, quantity: int, digit: int) -> tuple[float, float, float]:
        """(value if counted, P(made | counted), P(counted)) for my bid of ``quantity × digit``: from the posteriors,
        the copies of ``digit`` I hold and the stake alone, so computed once per reading (:attr:`_Reading.values`)."""
        key = (quantity, digit, self.counts[digit], self.stake)
        out = self._values.get(key)
        if out is None:
            out = self._values[key] = self._value_raise(quantity, digit)
        return out

    def _value_raise(self, quantity: int, digit: int) -> tuple[float, float, float]:
        need = quantity - self.counts[digit]
        cap = max(need, 0 if need <= 0 else 1)
        answering = self.others if self.all_must else self.others[:1]
        rho = self.model.challenge[quantity]
        w = self.params.self_read
        if w > 0 and self.n == 2:
            seen = self.model.challenge_seen(quantity, self.post.get((self.me, digit), self.model.prior))
            rho = tuple((1 - w) * a + w * b for a, b in zip(rho, seen, strict=True))
        dist, p_count = self._others_total(digit, cap, rho, answering)
        units, p_made = self._bidder_units(quantity, digit, dist, cap)
        return units * (self.n - 1) * self.stake, p_made, p_count

    def value_count(self) -> tuple[float, float]:
        """(value, P(made)) of calling for the count on my own bid, challenged all around.

        Everyone's challenges are already in the posteriors, so nobody is left to answer.
        """
        standing = self.view.standing_bid
        assert standing is not None
        q, d = standing.quantity, standing.digit
        need = q - self.counts[d]
        cap = max(need, 0 if need <= 0 else 1)
        dist, _ = self._others_total(d, cap, self.model.challenge[q], [])
        units, p_made = self._bidder_units(q, d, dist, cap)
        return units * (self.n - 1) * self.stake, p_made

    def value_challenge(self) -> tuple[float, float, float]:
        """(value if counted, P(the standing bid fails | counted), P(counted)) for challenging it."""
        view = self.view
        standing = view.standing_bid
        bidder = view.bidder
        assert standing is not None and bidder is not None
        rules = view.rules
        model = self.model
        q, d = standing.quantity, standing.digit
        held = self.counts[d]
        remaining: list[str] = []
        if self.all_must:
            for j in self.others:
                if j == bidder:
                    break
                remaining.append(j)
        cap = max(q - held, 1)
        dist, p_count = self._others_total(d, cap, model.challenge[q], remaining, skip=bidder)
        # tail[i] = P(the non-bidders other than me hold at least i), i = 0 .. cap
        tail = [0.0] * (cap + 2)
        for i in range(len(dist) - 1, -1, -1):
            tail[i] = tail[i + 1] + dist[i]
        for i in range(len(dist), cap + 1):
            tail[i] = 0.0
        skunk = 2 * self.n - 6 if rules.skunk and self.n > 2 else None
        base = base_multiplier(view, q, d)
        may_rebid = rules.rebid and not view.standing_is_rebid
        calls = model.counts_own[q]
        units = 0.0
        p_fail_total = 0.0
        for cb, pb in enumerate(self.vec(bidder, d)):
            if pb < 1e-12:
                continue
            need = q - held - cb  # what the other non-bidders must hold
            if need <= 0:
                p_made, p_zero = 1.0, 0.0
            else:
                p_made = tail[min(need, cap)]
                p_zero = dist[0] if (skunk is not None and held == 0 and cb == 0) else 0.0
            p_fail = 1.0 - p_made - p_zero
            m = base + (1 if cb == 0 and rules.hero_bonus else 0)
            count_units = p_fail - m * p_made - (skunk or 0) * p_zero
            if may_rebid:
                # Challenged all around, the bidder counts when their own odds are good, else rebids.
                count_units = calls[cb] * count_units + (1 - calls[cb]) * self.params.rebid_value
            units += pb * count_units
            p_fail_total += pb * p_fail
        return units * self.stake, p_fail_total, p_count

    # -- the options --------------------------------------------------------------------------------
    def candidates(self) -> list[tuple[int, int]]:
        """Raises worth valuing: per digit the smallest, and jumps while the naive odds stay reasonable."""
        p = self.params
        length, values = self.view.rules.serial_length, self.view.rules.digits
        top = length * self.n
        k = length * (self.n - 1)
        out: list[tuple[int, int]] = []
        for quantity, digit in raise_options(self.view):
            held = self.counts[digit]
            out.append((quantity, digit))
            q = quantity + 1
            while q <= top and q - quantity <= p.max_jump and at_least(q - held, k, values) >= p.min_naive:
                out.append((q, digit))
                q += 1
        return out

    def options(self) -> list[_Option]:
        view = self.view
        p = self.params
        me = self.me
        raised = p.raised_value * self.stake
        may_rebid_later = view.rules.rebid and view.phase is not Phase.REBID
        order = view.rules.rank_order
        raises: list[tuple[Bid, float, float, float]] = []
        for quantity, digit in self.candidates():
            counted, p_made, p_count = self.value_raise(quantity, digit)
            raises.append((Bid(quantity, digit, order), counted, p_made, p_count))
        if may_rebid_later and raises:
            # Challenged all around, a bid may still be replaced by a rebid above it: it is worth
            # the better of its count and the best rebid (valued as a raise from here).
            raises.sort(key=lambda r: r[0].id, reverse=True)
            running = -math.inf
            updated = []
            for bid, counted, p_made, p_count in raises:
                updated.append((bid, max(counted, running), p_made, p_count))
                running = max(running, p_count * counted + (1 - p_count) * raised)
            raises = updated
        out: list[_Option] = []
        for bid, counted, p_made, p_count in raises:
            value = p_count * counted + (1 - p_count) * raised
            out.append(_Option(MakeBid(me, bid), value, p_made, p_count, self.counts[bid.digit] <= p.bluff_hold))
        if view.legal.challenge:
            counted, p_fail, p_count = self.value_challenge()
            value = p_count * counted + (1 - p_count) * p.continue_value * self.stake
            out.append(_Option(Challenge(me), value, p_fail, p_count))
        if view.legal.call_count:
            value, p_made = self.value_count()
            out.append(_Option(CallCount(me), value, p_made, 1.0))
        return out


def _shifted(options: list[_Option], step: int) -> dict[Action, _Option]:
    """For each bid option, the option ``step`` copies away on the same digit, where there is one."""
    bids = {(o.action.bid.quantity, o.action.bid.digit): o for o in options if isinstance(o.action, MakeBid)}
    return {option.action: bids[(q + step, d)] for (q, d), option in bids.items() if (q + step, d) in bids}


def _lower(options: list[_Option]) -> dict[Action, _Option]:
    """For each bid option, the option one copy lower on the same digit, where there is one (``shade``)."""
    return _shifted(options, -1)


def _on_digit(action: Action, view: SeatView) -> bool:
    """Whether ``action`` raises the standing bid's own digit (``answer_challenge`` replaces such a re-raise)."""
    standing = view.standing_bid
    return isinstance(action, MakeBid) and standing is not None and action.bid.digit == standing.digit


def _held_ones(options: list[_Option]) -> list[_Option]:
    """The bids of one copy of a digit it holds (sure to be true): where ``open_one`` moves its opening."""
    return [o for o in options if isinstance(o.action, MakeBid) and o.action.bid.quantity == 1 and o.p_true >= 1.0]


_Move = list[_Option] | dict[Action, _Option]  # every target alike (a list), or the chosen bid's target (a map)


def _opening_moves(options: list[_Option], params: ReaderParams) -> list[tuple[_Move, float]]:
    """The opening's mixture, in the order one draw splits it: ``open_one`` (one copy of a digit it holds, every
    such bid alike: a list), then ``open_low`` and ``open_high`` (maps from the bid chosen to the one a copy lower /
    higher on its digit).  A move with nowhere to go leaves the chosen bid."""
    ones = _held_ones(options)
    moves: list[tuple[_Move, float]] = []
    if params.open_one > 0 and ones:
        moves.append((ones, params.open_one))
    for step, share in ((-1, params.open_low), (1, params.open_high)):
        if share > 0:
            moves.append((_shifted(options, step), share))
    return moves


def _pick(
    options: list[_Option], params: ReaderParams, rng: random.Random, n: int, stake: int, opening: bool = False
) -> _Option:
    best = max(options, key=lambda o: o.value)
    if params.bluff_rate > 0 and rng.random() < params.bluff_rate:
        floor = best.value - params.bluff_margin * (n - 1) * stake
        bluffs = [o for o in options if o.bluff and o.value >= floor and o is not best]
        if bluffs:
            if params.bluff_uniform:
                return bluffs[rng.randrange(len(bluffs))]
            return max(bluffs, key=lambda o: o.value)
    chosen = best
    if params.temperature > 0:
        scale = params.temperature * (n - 1) * stake
        weights = [math.exp((o.value - best.value) / scale) for o in options]
        chosen = options[choice_index(weights, rng)]
    if params.shade > 0:
        below = _lower(options).get(chosen.action)
        if below is not None and rng.random() < params.shade:
            chosen = below  # the opening's mixture applies to the shaded bid too, as in _pick_policy
    if opening and params.mixes_opening:
        u = rng.random()
        for moved, share in _opening_moves(options, params):
            if u < share:
                if isinstance(moved, list):
                    return moved[rng.randrange(len(moved))]
                return moved.get(chosen.action, chosen)
            u -= share
    return chosen


def _pick_policy(
    options: list[_Option], params: ReaderParams, n: int, stake: int, opening: bool = False
) -> list[tuple[Action, float]]:
    """The exact distribution :func:`_pick` draws from."""
    best = max(options, key=lambda o: o.value)
    if params.temperature > 0:
        scale = params.temperature * (n - 1) * stake
        weights = [math.exp((o.value - best.value) / scale) for o in options]
        total = sum(weights)
        base = [(o, w / total) for o, w in zip(options, weights, strict=True)]
    else:
        base = [(best, 1.0)]
    if params.shade > 0:
        lower = _lower(options)
        shaded: list[tuple[_Option, float]] = []
        for o, p in base:
            below = lower.get(o.action)
            if below is None:
                shaded.append((o, p))
            else:
                shaded += [(o, (1.0 - params.shade) * p), (below, params.shade * p)]
        base = shaded
    if opening and params.mixes_opening:
        moves = _opening_moves(options, params)
        spread: list[tuple[_Option, float]] = []
        for o, p in base:
            moved_share = 0.0
            for moved, share in moves:
                if isinstance(moved, list):
                    spread += [(target, share * p / len(moved)) for target in moved]
                    moved_share += share
                    continue
                target = moved.get(o.action)
                if target is not None:
                    spread.append((target, share * p))
                    moved_share += share
            stay = 1.0 - moved_share  # shares summing to 1 leave at most a float's error here, not a mass
            spread.append((o, p * stay if stay > 1e-12 else 0.0))
        base = spread
    bluffs: list[_Option] = []
    if params.bluff_rate > 0:
        floor = best.value - params.bluff_margin * (n - 1) * stake
        bluffs = [o for o in options if o.bluff and o.value >= floor and o is not best]
    keep = 1.0 - params.bluff_rate if bluffs else 1.0
    if bluffs and not params.bluff_uniform:
        bluffs = [max(bluffs, key=lambda o: o.value)]
    out: dict[Action, float] = {}
    for o, p in base:
        out[o.action] = out.get(o.action, 0.0) + keep * p
    for o in bluffs:
        out[o.action] = out.get(o.action, 0.0) + params.bluff_rate / len(bluffs)
    return [(action, p) for action, p in out.items() if p > 0]


class Reader:
    """The strong computer player (see the module docstring).

    It remembers its reading of the last history it saw, so the next decision in the same round
    reads only the new actions; that is a cache, not a memory: the result is the same as reading
    the whole history afresh.
    """

    def __init__(self, params: ReaderParams | None = None, name: str = "reader") -> None:
        self.params = params if params is not None else ReaderParams()
        self.name = name
        #: The readings of the last few points of a round it decided at, by (table, seat, history), the latest used
        #: last (the one the next history extends): a search's play-outs return to the same few points with
        #: different holdings (its answer, then its rebid), and a reading keeps the valuations that do not depend on
        #: the holding (:attr:`_Reading.values`).
        self._recent: dict[tuple[object, ...], _Reading] = {}
        p = self.params
        #: With ``doubt_mix`` or ``doubt_hedge``: the same player reading the other's opening with ``doubt_floor``
        #: (none where that is the ordinary reading: then no decision draws for it or is hedged).
        self._doubting = (
            Reader(dataclasses.replace(p, open_floor=p.doubt_floor, doubt_mix=0.0, doubt_hedge=0.0), name)
            if p.doubts
            else None
        )

    def _doubter(self, view: SeatView) -> Reader | None:
        """The doubting reading where it may differ from this one (someone else opened), else None."""
        history = view.history
        if self._doubting is None or not history or history[0].player == view.me:
            return None
        return self._doubting

    def __repr__(self) -> str:
        return f"Reader({self.params!r}, name={self.name!r})"

    def _table(self, view: SeatView) -> _Table:
        key = (view.rules, view.players, view.me)
        history = view.history
        seen = self._recent.pop((key, history), None)
        if seen is not None:  # the same point of a round again (a search's next particle): its valuations kept
            self._recent[(key, history)] = seen  # now the latest used
            return _Table(view, self.params, seen)
        last = next(reversed(self._recent.values()), None)
        if (
            last is not None
            and last.key == key
            and len(last.seen) <= len(history)
            and history[: len(last.seen)] == last.seen
        ):
            reading = last.copy()
        else:
            reading = _Reading(key)
        reading.extend(history, view.me, self.params, _model_for(self.params, view))
        if len(self._recent) >= RECENT_READINGS:
            del self._recent[next(iter(self._recent))]  # the least recently used
        self._recent[(key, history)] = reading
        return _Table(view, self.params, reading)

    def _challenging(self, view: SeatView) -> bool:
        """Whether ``answer_challenge`` mixes a challenge into this decision: the other raised my opening's digit."""
        if self.params.answer_challenge <= 0 or not view.legal.challenge or len(view.history) != 2:
            return False
        opening, answer = view.history
        return (
            opening.player == view.me
            and answer.player != view.me
            and isinstance(opening, MakeBid)
            and isinstance(answer, MakeBid)
            and answer.bid.digit == opening.bid.digit
        )

    def _hedging(self, view: SeatView) -> bool:
        """Whether ``doubt_hedge`` re-ranks this decision's bids: the answer to the other's opening."""
        return self.params.doubt_hedge > 0 and self._doubter(view) is not None and len(view.history) == 1

    def _options(self, view: SeatView, doubter: Reader | None) -> list[_Option]:
        """The options and their values; answering another's opening with ``doubt_hedge``, the bids re-ranked.

        Each bid is valued at the hedged blend of its two readings' values, all shifted alike so that the best
        bid is worth what the best bid was worth before: which bid to make changes; for a greedy pick
        (temperature 0, no bluff margin) whether to bid does not (a softmax or the bluff margin see every
        bid's value, so at a higher temperature it may move a little).
        Only the answer to the opening is hedged (the history is that one bid); later decisions are as before.
        """
        options = self._table(view).options()
        hedge = self.params.doubt_hedge
        if doubter is None or not self._hedging(view):
            return options
        doubted = {o.action: o.value for o in doubter._table(view).options()}
        blended = {
            o.action: (1 - hedge) * o.value + hedge * doubted.get(o.action, o.value)
            for o in options
            if isinstance(o.action, MakeBid)
        }
        if not blended:
            return options
        shift = max(o.value for o in options if o.action in blended) - max(blended.values())
        return [dataclasses.replace(o, value=blended[o.action] + shift) if o.action in blended else o for o in options]

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        doubter = self._doubter(view)
        if doubter is not None and self.params.doubt_mix > 0 and rng.random() < self.params.doubt_mix:
            return doubter.decide(view, rng)
        chosen = _pick(self._options(view, doubter), self.params, rng, view.n, view.stake, not view.history).action
        if self._challenging(view) and _on_digit(chosen, view) and rng.random() < self.params.answer_challenge:
            return Challenge(view.me)
        return chosen

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        """The exact distribution of :meth:`decide` over actions (its bluffs, softmax and doubt included): the actions
        it may play, each with its positive probability."""
        doubter = self._doubter(view)
        own = _pick_policy(self._options(view, doubter), self.params, view.n, view.stake, not view.history)
        if self._challenging(view):
            c = self.params.answer_challenge
            mixed: dict[Action, float] = {}
            for action, p in own:
                moved = c * p if _on_digit(action, view) else 0.0
                mixed[action] = mixed.get(action, 0.0) + p - moved
                if moved > 0:
                    mixed[Challenge(view.me)] = mixed.get(Challenge(view.me), 0.0) + moved
            own = list(mixed.items())
        if doubter is None or self.params.doubt_mix <= 0:
            return [(action, p) for action, p in own if p > 0]
        mix = self.params.doubt_mix
        out: dict[Action, float] = {}
        for weight, part in ((1.0 - mix, own), (mix, doubter.policy(view))):
            for action, p in part:
                out[action] = out.get(action, 0.0) + weight * p
        return [(action, p) for action, p in out.items() if p > 0]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        """The reading of the others (rounded posteriors): with the public state, all a decision depends on."""
        post = self._table(view).post
        key: tuple[object, ...] = tuple(sorted((k, tuple(round(x, 12) for x in vec)) for k, vec in post.items()))
        if self._challenging(view):
            key = (key, "answer_challenge")
        doubter = self._doubter(view)
        return key if doubter is None else (key, doubter.memo_key(view))

    def _opening_text(self, options: list[_Option], best: _Option) -> tuple[bool, str] | None:
        """How the opening's mixture moves the best bid, as the hint says it: (whether it always moves it, the
        sentence), naming only the dials that are on and move it, with their shares; None where none does.

        The hint is its holder's alone, so it may name the digits they hold."""
        p = self.params
        if not p.mixes_opening or not isinstance(best.action, MakeBid):
            return None
        moves: list[tuple[str, float]] = []
        ones = _held_ones(options)
        if p.open_one > 0 and ones and ones != [best]:
            names = [bid_text(o.action.bid) for o in ones if isinstance(o.action, MakeBid)]
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
            moves.append((f"open one copy of a digit I hold, each such digit alike ({listed})", p.open_one))
        for step, share, word in ((-1, p.open_low, "fewer"), (1, p.open_high, "more")):
            target = _shifted(options, step).get(best.action)
            if share > 0 and target is not None and isinstance(target.action, MakeBid):
                moves.append((f"open a copy {word} ({bid_text(target.action.bid)})", share))
        if not moves:
            return None
        always = sum(share for _, share in moves) >= 1.0 - 1e-9  # (a bid it holds may be among the ones it opens)
        if len(moves) == 1 and always:
            said = moves[0][0]
        else:
            shared = [f"{text} {pct(share)} of the time" for text, share in moves]
            said = shared[0] if len(shared) == 1 else ", ".join(shared[:-1]) + " and " + shared[-1]
        return always, f"I {said}, so that my opening does not tell my count."

    def explain(self, view: SeatView) -> str:
        table = self._table(view)
        doubter = self._doubter(view)
        options = self._options(view, doubter)
        best = max(options, key=lambda o: o.value)
        parts: list[str] = []
        standing = view.standing_bid
        if standing is not None and view.bidder == view.me:
            parts.append(
                f"My bid of {bid_text(standing)} has been challenged all around; I hold "
                f"{table.counts[standing.digit]} of them and may rebid once."
            )
        elif standing is not None and view.bidder is not None:
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
        if challenge is not None and isinstance(challenge.action, Challenge):
            parts.append(
                f"Challenging wins with probability {pct(challenge.p_true)} if it comes to the count "
                f"({pct(challenge.p_count)} that it does), worth {challenge.value:+.2f} units."
            )
        elif challenge is not None:
            parts.append(
                f"Calling for the count wins with probability {pct(challenge.p_true)}, "
                f"worth {challenge.value:+.2f} units."
            )
        if best_raise is not None:
            assert isinstance(best_raise.action, MakeBid)
            parts.append(
                f"My best raise, {bid_text(best_raise.action.bid)}, is true with probability "
                f"{pct(best_raise.p_true)} if it is challenged out ({pct(best_raise.p_count)} that it is), "
                f"worth {best_raise.value:+.2f} units."
            )
        opening = self._opening_text(options, best) if not view.history else None
        if opening is not None and isinstance(best.action, MakeBid):
            always, text = opening
            parts.append(text if always else f"So I bid {bid_text(best.action.bid)}. Rather than that, {text}")
        elif isinstance(best.action, MakeBid):
            parts.append(f"So I bid {bid_text(best.action.bid)}.")
        elif isinstance(best.action, Challenge):
            parts.append("So I challenge.")
        else:
            parts.append("So I call for the count.")
        if self.params.bluff_rate > 0 and any(o.bluff for o in raises):
            parts.append("Now and then I bluff instead, so that my bids do not give my serial away.")
        if self._challenging(view) and self.params.answer_challenge > 0:
            parts.append(f"Rather than raise my own digit again, {pct(self.params.answer_challenge)} of the time I "
                         "challenge, so that raising my opening's digit on a bluff does not pay.")
        if self._hedging(view):
            parts.append(
                f"I choose among bids weighing each {pct(self.params.doubt_hedge)} as if the opening were a "
                "likelier bluff, so that bluffing it does not pay."
            )
        if doubter is not None and self.params.doubt_mix > 0:
            parts.append(
                f"In {pct(self.params.doubt_mix)} of such decisions I read the opening as a likelier bluff "
                "instead, so that bluffing it does not pay."
            )
        return " ".join(parts)

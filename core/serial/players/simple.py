"""The baseline computer players: random, binomial, always-challenge, raise-by-one, and a noise wrapper.

``binomial`` is the greedy baseline a careful beginner plays: it judges every bid by its own serial
alone (exact binomial odds), raises with the bid most likely to be true, and challenges when the
standing bid is at least as likely to be false as its best raise is to be true.  It reads nothing
into what the others do.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..bids import Bid
from ..round import Action, CallCount, Challenge, MakeBid
from ..view import SeatView
from .base import (
    Strategy,
    bid_text,
    challenge_or_count,
    in_rebid,
    memo_key_of,
    naive_true,
    pct,
    policy_of,
    raise_bid,
    raise_options,
    sure_bid,
)

__all__ = ["AlwaysChallenge", "Binomial", "Noisy", "RaiseByOne", "RandomPlayer"]


def _standing_line(view: SeatView) -> str:
    if view.standing_bid is None:
        return "There is no bid yet, so I must open."
    bid = view.standing_bid
    p = naive_true(view, bid.quantity, bid.digit)
    held = view.serial.counts[bid.digit]
    return (
        f"Holding {held} of the {bid_text(bid).split(' ', 1)[1]} myself, the standing bid of {bid_text(bid)} "
        f"is true with probability {pct(p)} from my serial alone."
    )


@dataclass(slots=True)
class RandomPlayer:
    """Uniform over the legal actions (a raise to any legal bid, a challenge, or the count)."""

    name: str = "random"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        legal = view.legal
        action = legal[rng.randrange(len(legal))]
        if isinstance(action, MakeBid):
            return MakeBid(view.me, action.bid)
        return Challenge(view.me) if isinstance(action, Challenge) else CallCount(view.me)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        legal = view.legal
        p = 1.0 / len(legal)
        return [(a, p) for a in legal]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return ()

    def explain(self, view: SeatView) -> str:
        return (
            f"I pick uniformly at random among my {len(view.legal)} legal actions. "
            + _standing_line(view)
            + " I ignore that."
        )


@dataclass(slots=True)
class Binomial:
    """The greedy baseline: the most likely raise, or a challenge when that is at least as likely to win."""

    name: str = "binomial"

    def best_raise(self, view: SeatView) -> tuple[Bid, float] | None:
        """The legal raise most likely true from one's own serial (the higher bid among ties)."""
        counts = view.serial.counts
        order = view.rules.rank_order
        best: tuple[float, int] | None = None
        for quantity, digit in raise_options(view):
            held = counts[digit]
            # Any quantity up to what one holds is certain: bid all of it.
            q = held if held >= quantity else quantity
            p = naive_true(view, q, digit)
            key = (p, Bid(q, digit, order).id)
            if best is None or key > best:
                best = key
        if best is None:
            return None
        return Bid.from_id(best[1], order), best[0]

    def _choose(self, view: SeatView) -> tuple[Action, str]:
        best = self.best_raise(view)
        standing = view.standing_bid
        if standing is None:
            assert best is not None
            bid, p = best
            return MakeBid(view.me, bid), f"I open with {bid_text(bid)}, true with probability {pct(p)}."
        p_true = naive_true(view, standing.quantity, standing.digit)
        answer = challenge_or_count(view)
        assert answer is not None
        win_answer = p_true if in_rebid(view) else 1.0 - p_true
        verb = "call for the count" if in_rebid(view) else "challenge"
        if best is None or win_answer >= best[1]:
            why = f"My {verb} wins with probability {pct(win_answer)}"
            if best is not None:
                why += f", against {pct(best[1])} for my best raise, {bid_text(best[0])}"
            return answer, why + f", so I {verb}."
        bid, p = best
        return MakeBid(view.me, bid), (
            f"My best raise, {bid_text(bid)}, is true with probability {pct(p)}, better than the "
            f"{pct(win_answer)} my {verb} would win with, so I raise."
        )

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        return self._choose(view)[0]

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return [(self._choose(view)[0], 1.0)]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return ()

    def explain(self, view: SeatView) -> str:
        return _standing_line(view) + " " + self._choose(view)[1]


@dataclass(slots=True)
class AlwaysChallenge:
    """Challenges every bid; opens with the bid it is sure of; calls for the count when challenged all around."""

    name: str = "always-challenge"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        answer = challenge_or_count(view)
        return answer if answer is not None else sure_bid(view)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return [(self.decide(view, random.Random(0)), 1.0)]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return ()

    def explain(self, view: SeatView) -> str:
        answer = challenge_or_count(view)
        if answer is None:
            bid = sure_bid(view).bid
            p = naive_true(view, bid.quantity, bid.digit)
            return f"I must open, so I bid what I hold: {bid_text(bid)}, true with probability {pct(p)}."
        verb = "challenge" if isinstance(answer, Challenge) else "call for the count"
        return _standing_line(view) + f" I {verb} whatever the odds."


@dataclass(slots=True)
class RaiseByOne:
    """Always makes the smallest legal raise (a rebid too); challenges only when no raise is left."""

    name: str = "raise-by-one"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        ids = view.legal.raise_ids
        if ids:
            return MakeBid(view.me, Bid.from_id(ids[0], view.rules.rank_order))
        answer = challenge_or_count(view)
        assert answer is not None
        return answer

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return [(self.decide(view, random.Random(0)), 1.0)]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return ()

    def explain(self, view: SeatView) -> str:
        ids = view.legal.raise_ids
        if not ids:
            return _standing_line(view) + " No raise is left, so I challenge."
        bid = Bid.from_id(ids[0], view.rules.rank_order)
        p = naive_true(view, bid.quantity, bid.digit)
        return (
            _standing_line(view) + f" I raise by the smallest step whatever the odds: {bid_text(bid)}, "
            f"true with probability {pct(p)}."
        )


@dataclass(slots=True)
class Noisy:
    """Another strategy that, with probability ``noise``, makes a plausible mistake instead.

    A mistake is a challenge (or a call for the count) when one is allowed, else the smallest
    raise on a random digit, sometimes one higher: the slips a distracted person makes, never an
    absurd bid.
    """

    inner: Strategy
    noise: float
    name: str

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        if rng.random() >= self.noise:
            return self.inner.decide(view, rng)
        options = raise_options(view)
        answer = challenge_or_count(view)
        if answer is not None and (not options or rng.random() < 0.4):
            return answer
        quantity, digit = options[rng.randrange(len(options))]
        if rng.random() < 0.3 and quantity < view.rules.serial_length * view.n:
            quantity += 1
        return raise_bid(view, quantity, digit)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        """The exact mixture :meth:`decide` draws from (the inner strategy's, then the slips')."""
        out: dict[Action, float] = {}
        inner = policy_of(self.inner, view)
        for action, p in inner:
            out[action] = out.get(action, 0.0) + (1.0 - self.noise) * p
        options = raise_options(view)
        answer = challenge_or_count(view)
        p_answer = 0.0 if answer is None else (1.0 if not options else 0.4)
        if answer is not None and p_answer:
            out[answer] = out.get(answer, 0.0) + self.noise * p_answer
        top = view.rules.serial_length * view.n
        for quantity, digit in options:
            share = self.noise * (1.0 - p_answer) / len(options)
            bumped = 0.3 if quantity < top else 0.0
            for q, p in ((quantity, 1.0 - bumped), (quantity + 1, bumped)):
                if p:
                    action = raise_bid(view, q, digit)
                    out[action] = out.get(action, 0.0) + share * p
        return list(out.items())

    def memo_key(self, view: SeatView) -> tuple[object, ...] | None:
        return memo_key_of(self.inner, view)

    def explain(self, view: SeatView) -> str:
        slip = f" (Playing at this level I make a plausible slip {pct(self.noise)} of the time.)"
        return self.inner.explain(view) + slip

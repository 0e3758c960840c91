"""How a computer player plays the elimination format: any strategy, with the payoff it sees changed.

In the elimination a round pays nobody money: exactly one player leaves safe, and everyone else plays
on with the same chance of paying in the end whoever it was.  So a player's whole payoff for a round
is *do I leave now* (1) or *do I stay* (0), and it should prefer safety (leaving) over money.  The
adaptation, :func:`eliminating`, wraps whatever strategy a level maps to (no player class is special):

1. **One unit, no multipliers.**  The strategy sees the round under rules with every bonus (size,
   sixes, hero, skunk) and progressive stakes off, at a stake of one unit: a made bid is worth the
   same as a failed one is to its challenger, so no big multiplier lures it into a long shot.
2. **A challenge is only worth making first.**  Only the *first* challenger of a failing final bid
   leaves; a later challenge of the same bid can never make its maker leave this round, while a
   raise can (if it is made).  So where the strategy would join a challenge someone has already made,
   the player raises instead with its likeliest raise, when that is at least :data:`MIN_RAISE` likely
   to be true from its own serial; else it challenges as the strategy said.

Measured against the same strategy without the adaptation: ``liars arena --format elimination``
(README, "Elimination").
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Final

from ..players.base import Strategy, pct, policy_of, raise_bid
from ..players.simple import Binomial
from ..round import Action, Challenge
from ..view import SeatView

__all__ = ["MIN_RAISE", "Eliminating", "eliminating", "one_unit_view"]

MIN_RAISE: Final = 0.05
"""The least chance (from one's own serial) a raise must have to be made instead of a later challenge."""

def one_unit_view(view: SeatView) -> SeatView:
    """The round as a one-unit win or loss with no multipliers."""
    plain = dataclasses.replace(view.rules, stake=1, size_bonus=False, sixes_bonus=False, hero_bonus=False,
                                skunk=False, progressive_stakes=False)
    return dataclasses.replace(view, rules=plain, stake=1)


@dataclass(slots=True)
class Eliminating:
    """``inner`` playing for safety, not money (see the module's docstring)."""

    inner: Strategy
    min_raise: float = MIN_RAISE
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or f"{self.inner.name} (elimination)"

    def _instead(self, view: SeatView, action: Action) -> tuple[Action, str]:
        """The action to take in place of the strategy's ``action``, and why (empty: no change)."""
        if not isinstance(action, Challenge) or not view.challengers:
            return action, ""
        best = Binomial().best_raise(view)
        if best is None or best[1] < self.min_raise:
            return action, ""
        bid, p = best
        return raise_bid(view, bid.quantity, bid.digit), (
            f" But {len(view.challengers)} already challenged it, so my challenge cannot make me leave: "
            f"I raise to {bid} instead ({pct(p)} likely true), which can.")

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        plain = one_unit_view(view)
        return self._instead(plain, self.inner.decide(plain, rng))[0]

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        plain = one_unit_view(view)
        merged: dict[Action, float] = {}
        for action, p in policy_of(self.inner, plain):
            chosen = self._instead(plain, action)[0]
            merged[chosen] = merged.get(chosen, 0.0) + p
        return list(merged.items())

    def explain(self, view: SeatView) -> str:
        plain = one_unit_view(view)
        text = self.inner.explain(plain)
        why = self._instead(plain, self.inner.decide(plain, random.Random(0)))[1]
        return "Playing to leave safe (one unit a round, no multipliers). " + text + why


def eliminating(strategy: Strategy) -> Eliminating:
    """``strategy`` adapted to the elimination format."""
    return Eliminating(strategy)

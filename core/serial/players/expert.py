"""``expert``: real-time search from beliefs over the others' holdings, the others modelled as ``hard``.

Every decision starts from the :class:`~core.serial.view.SeatView` alone.  The player rebuilds the
round's public state (the players, the opener — the first bidder, or the seat to act before any bid
—, the stake, the rules, its own serial and the history), deals ``particles`` joint holdings for the
other seats, reweighs each by the probability that the *model* (``hard``: it assumes the others play
like the table's best computer player) would have taken every action they took, and then chooses as
the local best response does (:mod:`.search`, shared with ``liars exploit --approx``): each candidate
— the challenge or the count, and per digit the smallest raise — valued over the particles, looking
``lookahead`` of its own decisions ahead, every particle then played out with the others drawing from
the model and itself challenging at its next turn.

With ``types`` the model is a mixture of types inferred from the round: each particle is a holding *and*
a type (shipped: ``hard`` as it plays, ``hard`` with an honest opening — ``open_one`` 0 —, and the greedy
``binomial``, prior 1/3 each), the same reweighing over the other's actions infers which type it is
playing, and each particle's play-out draws from its own type.  Heads-up classic ``hard`` opens one copy
of a digit it holds, which tells nothing of its count; an honest opener's opening does, and the model
without the honest type read it as something ``hard`` never plays; ``binomial`` answers bids as ``hard``
does not.  Types that play alike at a table (the same dials: the two ``hard`` types everywhere but
heads-up classic today) are one.  The two ``hard`` types differ only in how they open, so at this seat's
decisions (the other's opening behind or never coming) each holding's two ``hard`` particles are merged
into one, ``binomial``'s kept apart.

Where ``hard`` plays a solved table (the small formats), ``expert`` plays that table too: the tables
are near-equilibrium, and a search aimed at a model of them would only make the player exploitable.
Off its turn (``first`` challenge mode lets anyone challenge at any moment) it answers as ``hard``.
At a table of more than ``max_players`` (default 2: heads up) it plays as ``hard`` too: there the
search was not shown stronger (it lost to four ``hard`` seats at 5 players) nor always under a second
(6 players, Salomon).

Pure and deterministic: the particles are dealt from a ``random.Random`` seeded by the round's fixed
parts as this seat sees them (rules, seats, opener, stake, its own serial), so a round's decisions
share one set of particles (where the others' joint hand classes are at most 100, every class with its
exact weight instead), and the play-outs draw from one seeded by the whole view; where it searches the
handed rng is not used (where it plays a table or as ``hard``, that strategy draws from it as usual).
The choice is a function of the view, so :meth:`Expert.policy` is exact.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence

from ..round import Action, MakeBid, Phase, Round
from ..view import SeatView
from .base import Strategy, action_text, bid_text, pct, policy_of
from .reading import ReaderParams
from .search import LocalBestResponse
from .trained import TrainedReader

__all__ = ["Expert"]

# joint holdings dealt for the others, by table size: each costs more to play out at a larger table (6 players and
# more: 4, so that a decision stays under a second there too: bench/players.py --expert)
PARTICLES = {2: 32, 3: 16, 4: 10, 5: 8}
MIN_PARTICLES = 4
LOOKAHEAD = 1  # own decisions searched: 1 = this one, then the default continuation
RAISES_PER_DIGIT = 1  # candidate raises per digit: the smallest
SEARCH_MAX_PLAYERS = 2  # it searches heads up only; at larger tables it plays as its model (README: the arenas)


class Expert:
    """Search from beliefs (see the module docstring); ``model`` is a factory of the strategy the others are
    assumed to play, with an optional ``table_for(view)`` saying where it plays a solved table; ``types``,
    factories with prior weights (summing to 1), the types the search infers among instead of ``model``
    alone (``model`` still plays the tables, off its turn and at larger tables)."""

    def __init__(
        self,
        model: Callable[[], Strategy],
        name: str = "expert",
        *,
        particles: int | None = None,
        lookahead: int = LOOKAHEAD,
        raises_per_digit: int = RAISES_PER_DIGIT,
        max_players: int | None = SEARCH_MAX_PLAYERS,
        types: Sequence[tuple[Callable[[], Strategy], float]] = (),
    ) -> None:
        if types and abs(sum(prior for _, prior in types) - 1.0) > 1e-9:
            raise ValueError(f"expert's type priors must sum to 1, not {sum(prior for _, prior in types):g}")
        self.name = name
        self._model_factory = model
        self.type_factories = list(types)
        self.model = model()
        self.particles = particles
        self.lookahead = lookahead
        self.raises_per_digit = raises_per_digit
        self.max_players = max_players

    def __repr__(self) -> str:
        return f"Expert({self.model.name!r}, particles={self.particles}, lookahead={self.lookahead})"

    def particles_for(self, n: int) -> int:
        """Joint holdings dealt for the others at a table of ``n``: fewer as each costs more to play out."""
        return self.particles if self.particles is not None else PARTICLES.get(n, MIN_PARTICLES)

    def searches_at(self, n: int) -> bool:
        """Whether it searches at a table of ``n`` (else it plays as its model)."""
        return self.max_players is None or n <= self.max_players

    def table(self, view: SeatView) -> Strategy | None:
        """The solved table the model plays here, if any (then ``expert`` plays it too)."""
        table_for = getattr(self.model, "table_for", None)
        out: Strategy | None = table_for(view) if table_for is not None else None
        return out

    def _defers(self, view: SeatView) -> Strategy | None:
        """Who decides instead of the search: the table where one fits, the model off this seat's turn."""
        table = self.table(view)
        if table is not None:
            return table
        if view.to_act != view.me or view.phase is Phase.OVER or not self.searches_at(view.n):
            return self.model
        return None

    def types(self, view: SeatView) -> list[tuple[Strategy, float]]:
        """The types the search infers among at this table, fresh, with their priors; types that play alike
        here (trained readers with equal dials) are merged, and one type left is none (``[]``: the model)."""
        merged: list[tuple[Strategy, float, object]] = []
        for factory, prior in self.type_factories:
            strategy = factory()
            key = _dials(strategy, view)
            for i, (kept, p, k) in enumerate(merged):
                if key is not None and k == key:
                    merged[i] = (kept, p + prior, k)
                    break
            else:
                merged.append((strategy, prior, key))
        return [(s, p) for s, p, _ in merged] if len(merged) > 1 else []

    def search(self, view: SeatView) -> tuple[LocalBestResponse, Round]:
        """The round rebuilt from the view, and the searcher with its belief after the history."""
        opener = view.history[0].player if view.history else view.to_act
        assert opener is not None
        # The others' serials here are placeholders (the seat's own, never read): the searcher deals its particles.
        serials = dict.fromkeys(view.players, view.serial)
        round_ = Round(view.rules, view.players, serials, opener, view.stake)
        fixed = f"expert:{view.rules!r}:{view.players}:{opener}:{view.stake}:{view.me}:{view.serial.digits}"
        types = self.types(view)
        lbr = LocalBestResponse(
            self._model_factory(), round_, view.me, random.Random(fixed),
            particles=self.particles_for(view.n), lookahead=self.lookahead,
            raises_per_digit=self.raises_per_digit, rollout=True, types=types,
        )
        for action in view.history:
            lbr.observe(action)
            round_.apply(action)
        groups = _groups_alike_past_opening(types, view)
        if groups:
            lbr.merge_types(groups)  # no other seat opens again this round: these types now play alike
        lbr.rng = random.Random(f"{fixed}:{view.history!r}")
        return lbr, round_

    def values(self, view: SeatView) -> list[tuple[Action, float]]:
        """Each candidate's expected units to this seat (the search's estimate), best first."""
        lbr, round_ = self.search(view)
        return sorted(lbr.values(round_), key=lambda av: -av[1])

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        other = self._defers(view)
        if other is not None:
            return other.decide(view, rng)
        return self.values(view)[0][0]

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        other = self._defers(view)
        if other is not None:
            return policy_of(other, view)
        return [(self.values(view)[0][0], 1.0)]

    def explain(self, view: SeatView) -> str:
        table = self.table(view)
        if table is not None:
            return (
                f"{table.explain(view)} (Expert plays the solved table here, as hard does: it is near-equilibrium, "
                "and a search aimed at a model of it would only make me exploitable.)"
            )
        if view.to_act != view.me:
            return self.model.explain(view)
        if not self.searches_at(view.n):
            return (
                f"{self.model.explain(view)} (Expert searches heads up only; at a table of {view.n} it plays as "
                f"{self.model.name}, which its search was not shown to beat there.)"
            )
        lbr, round_ = self.search(view)
        ranked = sorted(lbr.values(round_), key=lambda av: -av[1])
        (best, value), rest = ranked[0], ranked[1:]
        bid = best.bid if isinstance(best, MakeBid) else view.standing_bid
        belief = ""
        if bid is not None:
            true = sum(
                w for r, w in zip(lbr.replicas, lbr.weights, strict=True)
                if sum(serial.counts[bid.digit] for serial in r.serials.values()) >= bid.quantity
            )
            belief = f" I believe {bid_text(bid)} true with probability {pct(true)}."
        kinds = lbr.type_weights()
        if len(kinds) > 1:
            shares = ", ".join(f"{model.name} {pct(w)}" for model, w in kinds)
            model = f"each of {len(kinds)} kinds of player ({shares}, as I now believe)"
        else:
            model = self.model.name
        text = (
            f"I searched {lbr.holdings} possible holdings of the others, weighed by how likely "
            f"{model} would have played what they played, and {len(ranked)} options one decision ahead. "
            f"Best: {action_text(best)}, worth {value:+.2f} units to me"
        )
        if rest:
            second, v2 = rest[0]
            text += f"; next, {action_text(second)} at {v2:+.2f}"
        return text + "." + belief


def _dials(strategy: Strategy, view: SeatView) -> ReaderParams | None:
    """What a type plays from here, where it says (a trained reader's dials, or those of the reader a
    :class:`~.solved.WithSolved` holds), else ``None``: two types with equal dials play alike."""
    inner = getattr(strategy, "inner", strategy)
    return inner.params(view) if isinstance(inner, TrainedReader) else None


def _groups_alike_past_opening(types: list[tuple[Strategy, float]], view: SeatView) -> list[list[int]]:
    """The groups (indices into ``types``, two or more each) of trained readers whose dials differ only in how
    they open.  At a decision of this seat the others' opening is behind (the first action) or never comes
    (this seat opens), so from here each group plays alike: the search's play-outs need one particle per
    holding and group, not one per type.  Other types (e.g. ``binomial``) stay apart."""
    groups: dict[ReaderParams, list[int]] = {}
    for i, (strategy, _) in enumerate(types):
        d = _dials(strategy, view)
        if d is not None:  # the dials that move only the opening, set aside
            groups.setdefault(dataclasses.replace(d, open_one=0.0, open_low=0.0, open_high=0.0), []).append(i)
    return [g for g in groups.values() if len(g) > 1]

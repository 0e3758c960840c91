"""The card game's arena: computer players against each other over whole games, with the figures that judge them.

A game is a :class:`~core.cards.match.CardsEngine` played to its end (one player left), each round dealt
from a deck shuffled by one seeded ``random.Random``; every decision comes from the player's level
(:func:`core.cards.players.decide`) or a naive baseline, with its own seeded rng, so a run replays
from its seed.  The lineup (one name per seat) rotates by one seat each game, so every name sits in
every seat and opens equally often.  Per name: games won (share of the games it sat in, per seat it
holds) and units per game per seat, each with a 95 % interval (normal approximation over games); with
a ``clock`` (the CLI passes ``time.perf_counter``; ``core`` reads no clock of its own), the time of each
decision, in seconds, per name.

Names: the levels (``random``, ``easy``, ``normal``, ``hard``) and the baseline ``challenger``
("always challenge a declaration above a pair": under the gun it challenges anything above one pair
and takes the rest; holding the hand it declares the least legal raise, without discarding).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..figures import Interval
from .cards import shuffled_deck
from .declarations import Declaration
from .hands import WORST, HandType, all_values
from .match import CardsEngine
from .players import LEVELS, View, decide, view_of
from .round import Action, Challenge, Declare, Phase, Take
from .rules import Rules

__all__ = ["CARD_PLAYERS", "CardArenaError", "CardArenaResult", "CardStats", "run_card_arena"]

CARD_PLAYERS: tuple[str, ...] = (*LEVELS, "challenger")
MAX_ACTIONS = 20_000  # a game longer than this is a bug, not a long game


class CardArenaError(ValueError):
    """A lineup the arena cannot play (unknown name, too few seats, no games)."""


def challenger(view: View) -> Action:
    """The naive baseline: challenge any declaration above a pair, take the rest; declare the least raise."""
    me = view.me
    if view.phase is Phase.GUN:
        assert view.standing is not None
        if view.standing.type > HandType.PAIR or not view.may_take:
            return Challenge(me)
        return Take(me)
    floor = WORST if view.standing is None else view.standing.floor
    values = all_values(view.jokers)
    return Declare(me, Declaration.exactly(values[min(bisect_right(values, floor), len(values) - 1)]))


@dataclass
class CardStats:
    name: str
    seats: int
    wins: list[float] = field(default_factory=list)  # per game: share of this name's seats that won
    units: list[float] = field(default_factory=list)  # per game: units per seat
    seconds: list[float] = field(default_factory=list)  # each decision's time, when the run had a clock

    @property
    def won(self) -> Interval:
        """The share of its seats that won, per game, with its 95% interval."""
        return Interval.of(self.wins)

    @property
    def units_per_game(self) -> Interval:
        """Units per game per seat, with its 95% interval."""
        return Interval.of(self.units)


@dataclass
class CardArenaResult:
    rules: Rules
    players: int
    games: int
    seed: int
    lineup: tuple[str, ...]
    stats: dict[str, CardStats]
    rounds: int = 0
    actions: int = 0

    def edge(self, other: str) -> Interval:
        """The first name's units per game per seat minus ``other``'s, game by game, with its interval."""
        first = self.stats[self.lineup[0]].units
        return Interval.of([a - b for a, b in zip(first, self.stats[other].units, strict=True)])


def run_card_arena(
    lineup: Sequence[str], games: int, rules: Rules, seed: int = 1, clock: Callable[[], float] | None = None
) -> CardArenaResult:
    """Play ``games`` whole games with ``lineup`` (one name per seat), rotating the seats each game."""
    n = len(lineup)
    if n < 2:
        raise CardArenaError("the card arena seats at least 2 players")
    if games < 1:
        raise CardArenaError("play at least one game")
    unknown = [name for name in lineup if name not in CARD_PLAYERS]
    if unknown:
        raise CardArenaError(f"unknown card player {unknown[0]!r}; players are: {', '.join(CARD_PLAYERS)}")
    deal_rng = random.Random(f"cards-arena:{seed}")
    rngs = [random.Random(f"cards-arena:{seed}:{slot}") for slot in range(n)]
    seats = tuple(f"seat{i + 1}" for i in range(n))
    names = list(dict.fromkeys(lineup))
    result = CardArenaResult(rules, n, games, seed, tuple(lineup), {m: CardStats(m, lineup.count(m)) for m in names})
    for g in range(games):
        slot_of = {seats[i]: (i + g) % n for i in range(n)}
        match = CardsEngine(rules, seats)
        opener = seats[0]
        taken = 0
        while not match.over:
            deck = shuffled_deck(deal_rng, rules.jokers)
            salt = f"{deal_rng.getrandbits(64):016x}"  # seeds the reshuffles when the deck runs out, as a table's does
            round_ = match.start_round(deck, match.next_opener or opener, salt=salt)
            result.rounds += 1
            while not round_.is_over:
                who = round_.to_act
                assert who is not None
                slot = slot_of[who]
                view = view_of(round_, who)
                name = lineup[slot]
                start = clock() if clock is not None else 0.0
                action = challenger(view) if name == "challenger" else decide(view, name, rngs[slot])
                if clock is not None:
                    result.stats[name].seconds.append(clock() - start)
                match.apply(action)
                taken += 1
                if taken > MAX_ACTIONS:
                    raise CardArenaError(f"a game went past {MAX_ACTIONS} actions")
        result.actions += taken
        net = match.net()
        for m, st in result.stats.items():
            mine = [p for p in seats if lineup[slot_of[p]] == m]
            st.wins.append(sum(p == match.winner for p in mine) / len(mine))
            st.units.append(sum(net[p] for p in mine) / len(mine) / rules.stake)
    return result

"""Computer players for the card game: pure, seeded, fast.

A player sees a :class:`View` (:func:`view_of`): the public play of the hand now in play — who declared
what and how many cards each drew — plus what it saw itself: the hand when it holds it, and the hand it
passed on at each of its own declarations.  Every random choice comes from the ``random.Random`` it is
handed, so a seeded game replays exactly.

The reading (``normal``/``hard``): from the last hand it knows (or five unseen cards at the start of the
hand), it simulates each later turn — the taker discards the cards least useful to what they went on to
declare and draws as many from the unseen cards — and weights each simulated history by how likely it
makes each declaration.  A declaration the simulated hand holds counts 1; one it does not hold is a
bluff, and a bluff is rare where it gains nothing: it counts ``bluff`` times as likely, times
``unforced`` when the hand could have beaten the floor before it (a player who can tell the truth
mostly does — an opener always can), times ``jump`` when it lies more than ``window`` values above the
least legal raise (a bluffer says as little as it must; a big raise is mostly a hand that has it); and a
true declaration counts ``understate`` when it names a lower type than the hand holds (who holds three
of a kind says so, not "two pair").  (Weighting a history by the hands' mere chance of holding the
declarations, as this reading did before, put a true opening of "sevens over threes" at 12-20 %, and
``hard`` lost most of its challenges.)  That gives P(the standing declaration holds) and, for the same
hands, P(a taker could make a higher declaration true).  Under the gun it challenges when the challenge
is likelier to survive than the take (a bluff the next player lets pass counting as survival), passes
when both look bad.  Holding the hand, it picks the discard with the best chance of beating the standing
floor (a few dozen draws per candidate), then declares the truth — the whole value, or now and then a
vaguer truth — or, when it cannot, the least legal raise.

Levels: ``random`` (uniform over a few legal choices), ``easy`` (a short reading that believes a
declaration only as often as a hand would hold it by chance, one decision in four random), ``normal``
(the reading, shorter, one decision in twelve random), ``hard``.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import CARDS_BY_CODE, Card, full_deck, pretty
from .declarations import Declaration
from .hands import WORST, HandType, HandValue, all_values, evaluate_codes
from .round import Action, Challenge, Declare, Discard, Pass, Phase, Round, Take
from .text import hand_words, mention, value_words

__all__ = ["LEVELS", "Params", "View", "decide", "explain", "view_of"]

LEVELS = ("random", "easy", "normal", "hard")


@dataclass(frozen=True, slots=True)
class View:
    """What one player knows.  ``steps``: (player, declaration, drew, hand if it was this player's turn)."""

    me: str
    players: tuple[str, ...]
    phase: Phase
    to_act: str | None
    active: str
    standing: Declaration | None
    hand: tuple[Card, ...] | None
    may_discard: bool
    may_pass: bool
    may_take: bool
    jokers: int
    steps: tuple[tuple[str, Declaration, int | None, tuple[Card, ...] | None], ...]


def view_of(round_: Round, player: str) -> View:
    holds = round_.phase is Phase.DECLARE and round_.active == player
    return View(
        me=player,
        players=round_.players,
        phase=round_.phase,
        to_act=round_.to_act,
        active=round_.active,
        standing=round_.standing,
        hand=tuple(round_.hand) if holds else None,
        may_discard=holds and round_.may_discard,
        may_pass=player in round_.passes,
        may_take=round_.phase is Phase.GUN and round_.to_act == player and round_.can_raise,
        jokers=round_.jokers,
        steps=tuple((p, d, drew, hand if p == player else None) for p, d, drew, hand in round_.steps),
    )


@dataclass(frozen=True, slots=True)
class Params:
    samples: int = 120  # simulated histories for a reading
    draws: int = 24  # draws per discard candidate
    memory: int = 6  # turns simulated at most (older ones: a fresh random hand)
    bluff: float = 0.4  # weight of a history in which a declarer bluffed
    unforced: float = 0.1  # times that, when the declarer's hand could have beaten the floor before it
    jump: float = 0.1  # times that, when the declaration is more than ``window`` values above the least raise
    window: int = 3  # how far above the least raise a bluffer reaches
    understate: float = 0.1  # weight of a true declaration of a lower type than the hand's
    let_pass: float = 0.45  # chance the next player lets a bluff pass
    exact: float = 0.75  # chance to declare the whole value when telling the truth
    noise: float = 0.0  # chance of a random decision


_PARAMS = {
    "easy": Params(  # believes a declaration as often as a hand would hold it by chance
        samples=30, draws=8, memory=2, bluff=1.0, unforced=1.0, jump=1.0, understate=1.0, exact=0.3, noise=0.25
    ),
    "normal": Params(samples=60, draws=16, memory=4, noise=1 / 12),
    "hard": Params(),
}
_DECK = {j: tuple(c.code for c in full_deck(j)) for j in (0, 1, 2)}


# -- simulation ---------------------------------------------------------------------------------------
_SUIT_KINDS = (HandType.FLUSH, HandType.STRAIGHT_FLUSH)
_COLOUR_KINDS = (HandType.COLOUR_FLUSH, HandType.COLOUR_STRAIGHT_FLUSH)
_RUN_KINDS = (HandType.STRAIGHT, HandType.STRAIGHT_FLUSH, HandType.COLOUR_STRAIGHT_FLUSH, HandType.HIGH_CARD)
_WINDOWS = tuple(frozenset(range(t - 4, t + 1)) if t > 5 else frozenset((14, 2, 3, 4, 5)) for t in range(14, 4, -1))


def _scores(hand: Sequence[int], kind: HandType, ranks: tuple[int, ...]) -> list[float]:
    """How much each card of ``hand`` helps toward ``kind`` (higher: keep it); a joker most of all."""
    cards = [CARDS_BY_CODE[c] for c in hand]
    naturals = [c for c in cards if c.rank]
    if not naturals:
        return [1000.0] * len(cards)
    if kind in _SUIT_KINDS or kind in _COLOUR_KINDS:
        if kind in _SUIT_KINDS:
            keys = [c.suit for c in naturals]
            best: object = max(set(keys), key=lambda s: (keys.count(s), s))
            bonus = [50.0 * (c.suit == best) for c in cards]
        else:
            red = 2 * sum(c.red for c in naturals) >= len(naturals)
            bonus = [50.0 * (c.red == red) for c in cards]
    elif kind is HandType.STRAIGHT:
        present = {c.rank for c in naturals}
        window = max(_WINDOWS, key=lambda w: len(w & present))
        bonus = [50.0 * (c.rank in window) for c in cards]
    else:
        counts = {r: sum(1 for c in naturals if c.rank == r) for r in {c.rank for c in naturals}}
        head = ranks[:2]
        bonus = [
            40.0 * (counts.get(c.rank, 0) >= 2) + 30.0 * (c.rank in head) + 10.0 * counts.get(c.rank, 0) for c in cards
        ]
    return [1000.0 if c.rank == 0 else b + c.rank for c, b in zip(cards, bonus, strict=True)]


def _keep(hand: Sequence[int], kind: HandType, ranks: tuple[int, ...], k: int) -> list[int]:
    """The 5 - k cards of ``hand`` most useful toward ``kind``."""
    if k <= 0:
        return list(hand)
    scores = _scores(hand, kind, ranks)
    order = sorted(range(len(hand)), key=scores.__getitem__, reverse=True)
    if kind in _RUN_KINDS:  # a duplicate rank never helps these: it goes last
        seen: set[int] = set()
        firsts: list[int] = []
        rest: list[int] = []
        for i in order:
            rank = CARDS_BY_CODE[hand[i]].rank
            (rest if rank and rank in seen else firsts).append(i)
            seen.add(rank)
        order = firsts + rest
    return [hand[i] for i in order[: len(hand) - k]]


def _draw(pool: list[int], used: set[int], n: int, rng: random.Random) -> list[int]:
    out: list[int] = []
    size = len(pool)
    while len(out) < n:
        c = pool[rng.randrange(size)]
        if c not in used:
            used.add(c)
            out.append(c)
    return out


def _value(hand: Sequence[int]) -> HandValue:
    return evaluate_codes(tuple(sorted(hand)))


@dataclass(frozen=True, slots=True)
class Reading:
    holds: float  # P(the standing declaration holds)
    make: float  # P(a taker can make a higher declaration true)


def read(view: View, params: Params, rng: random.Random) -> Reading:
    """Simulate the hand's history (see the module's docstring)."""
    standing = view.standing
    steps = view.steps
    if standing is None or not steps:
        return Reading(1.0, 1.0)
    deck = _DECK[view.jokers]
    start = max(0, len(steps) - params.memory)
    known_codes: list[int] | None = None
    for i in range(len(steps) - 1, start - 1, -1):  # the last hand this player passed on, if recent
        mine = steps[i][3]
        if mine is not None:
            start, known_codes = i, [c.code for c in mine]
            break
    pool = list(deck)
    floor = standing.floor
    values = all_values(view.jokers)
    # per step: the floor it had to beat, and the weight of a bluff there (less for a raise far above the least)
    beaten = [WORST, *(d.floor for _, d, _, _ in steps[:-1])]
    odds = []
    for (_, decl, _, _), before in zip(steps, beaten, strict=True):
        far = bisect_left(values, decl.floor) - bisect_right(values, before) > params.window
        odds.append(params.bluff * (params.jump if far else 1.0))
    mass = held = make = 0.0
    for _ in range(params.samples):
        used: set[int] = set()
        if known_codes is not None:
            hand = list(known_codes)
            used.update(hand)
            weight = 1.0
        else:
            hand = _draw(pool, used, 5, rng)
            weight = _likelihood(_value(hand), start, steps, beaten, odds, params)
        for i in range(start + 1, len(steps)):
            k = steps[i][2] or 0
            if k:
                decl = steps[i][1]
                hand = _keep(hand, decl.type, decl.ranks, k) + _draw(pool, used, k, rng)
            weight *= _likelihood(_value(hand), i, steps, beaten, odds, params)
        value = _value(hand)
        mass += weight
        if value >= floor:
            held += weight
        if value > floor or _improves(hand, standing, pool, used, rng):
            make += weight
    return Reading(held / mass, make / mass)


def _likelihood(
    value: HandValue,
    i: int,
    steps: Sequence[tuple[str, Declaration, int | None, tuple[Card, ...] | None]],
    beaten: Sequence[HandValue],
    odds: Sequence[float],
    params: Params,
) -> float:
    """How likely step ``i``'s declaration is from a hand of ``value``: a truth, or a bluff (forced or not)."""
    declared = steps[i][1]
    if value >= declared.floor:
        return 1.0 if value.type == declared.type else params.understate
    return odds[i] * (params.unforced if value > beaten[i] else 1.0)


def _improves(hand: list[int], standing: Declaration, pool: list[int], used: set[int], rng: random.Random) -> bool:
    """One try: the taker keeps what helps the standing type and draws the rest."""
    scores = _scores(hand, standing.type, standing.ranks)
    k = sum(1 for s in scores if s < 30) or 1
    trial = _keep(hand, standing.type, standing.ranks, k) + _draw(pool, set(used), k, rng)
    return _value(trial) > standing.floor


def best_discard(view: View, params: Params, rng: random.Random) -> tuple[tuple[int, ...], float]:
    """The discard (card codes) most likely to beat the standing floor, and that chance."""
    assert view.hand is not None
    hand = [c.code for c in view.hand]
    floor = WORST if view.standing is None else view.standing.floor
    if _value(hand) > floor:
        return (), 1.0
    candidates: dict[tuple[int, ...], None] = {}
    kinds = [t for t in HandType if view.jokers or t is not HandType.FIVE_OF_A_KIND]
    target = view.standing.ranks if view.standing is not None else ()
    for kind in kinds:
        for k in range(1, 6):
            keep = _keep(hand, kind, target if view.standing and kind is view.standing.type else (), k)
            rest = list(hand)
            for c in keep:
                rest.remove(c)
            candidates[tuple(sorted(rest))] = None
    pool = [c for c in _DECK[view.jokers]]
    best: tuple[tuple[int, ...], float] = ((), 0.0)
    for discard in candidates:
        kept = list(hand)
        for c in discard:
            kept.remove(c)
        wins = 0
        for _ in range(params.draws):
            used = set(hand)
            if _value(kept + _draw(pool, used, len(discard), rng)) > floor:
                wins += 1
        p = wins / params.draws
        if p > best[1] + 1e-9:
            best = (discard, p)
    return best


def choose_declaration(view: View, params: Params, rng: random.Random) -> Declaration:
    assert view.hand is not None
    value = _value([c.code for c in view.hand])
    floor = WORST if view.standing is None else view.standing.floor
    values = all_values(view.jokers)
    if value > floor:
        if rng.random() < params.exact:
            return Declaration(value.type, value.ranks)
        truths = [Declaration(value.type, value.ranks[:n]) for n in range(len(value.ranks) + 1)]
        legal = [d for d in truths if d.floor > floor]
        return legal[rng.randrange(len(legal))]
    i = bisect_right(values, floor)
    step = 0 if rng.random() < 0.8 else rng.randrange(1, 4)
    return Declaration.exactly(values[min(i + step, len(values) - 1)])


# -- decisions ----------------------------------------------------------------------------------------
def _random_action(view: View, rng: random.Random) -> Action:
    me = view.me
    if view.phase is Phase.GUN:
        options: list[Action] = [Challenge(me)]
        if view.may_take:
            options.append(Take(me))
        if view.may_pass:
            options.append(Pass(me))
        return options[rng.randrange(len(options))]
    assert view.hand is not None
    if view.may_discard and rng.random() < 0.5:
        cards = tuple(c for c in view.hand if rng.random() < 0.4)
        return Discard(me, cards)
    floor = WORST if view.standing is None else view.standing.floor
    values = all_values(view.jokers)
    i = bisect_right(values, floor)
    return Declare(me, Declaration.exactly(values[min(i + rng.randrange(40), len(values) - 1)]))


def decide(view: View, level: str, rng: random.Random) -> Action:
    """The action of ``view.me`` (who must be the player to act) at this level."""
    if view.to_act != view.me:
        raise ValueError(f"{view.me} is not to act")
    if level == "random":
        return _random_action(view, rng)
    params = _PARAMS.get(level, _PARAMS["hard"])
    if params.noise and rng.random() < params.noise:
        return _random_action(view, rng)
    me = view.me
    if view.phase is Phase.GUN:
        reading = read(view, params, rng)
        take = reading.make + (1 - reading.make) * params.let_pass
        challenge = 1 - reading.holds
        if view.may_pass and max(take, challenge) < 0.45:
            return Pass(me)
        return Challenge(me) if challenge >= take or not view.may_take else Take(me)
    if view.may_discard:
        discard, _ = best_discard(view, params, rng)
        if discard:
            return Discard(me, tuple(CARDS_BY_CODE[c] for c in discard))
    return Declare(me, choose_declaration(view, params, rng))


def explain(view: View, rng: random.Random | None = None) -> str:
    """What the hard player would do in this seat, in the second person (the ``hint`` read)."""
    rng = rng or random.Random(0)
    params = _PARAMS["hard"]
    if view.to_act != view.me:
        return "It is not your turn: nothing to decide yet."
    if view.phase is Phase.GUN:
        assert view.standing is not None
        r = read(view, params, rng)
        take = r.make + (1 - r.make) * params.let_pass
        claim = f"{mention(view.active)}'s {view.standing.name()} (at least {view.standing.floor_text()})"
        odds = (
            f"From what was declared and drawn, {claim} looks true about {r.holds:.0%} of the time; "
            f"if you take the hand you could make a higher declaration true about {r.make:.0%} of the time."
        )
        if not view.may_take:
            return f"Nothing can beat {claim}: you could challenge it" + (" or pass." if view.may_pass else ".")
        if view.may_pass and max(take, 1 - r.holds) < 0.45:
            return f"You could pass (once a game): both choices look poor. {odds}"
        if 1 - r.holds >= take:
            return f"You could challenge: {odds}"
        return f"You could take the hand: {odds}"
    assert view.hand is not None
    codes = [c.code for c in view.hand]
    holding = f"You hold {hand_words(view.hand, _value(codes))}."
    if view.may_discard:
        discard, p = best_discard(view, params, rng)
        if discard:
            cards = [CARDS_BY_CODE[c] for c in discard]
            return (
                f"{holding} You could discard {pretty(cards)} and draw {len(cards)}: about {p:.0%} to hold "
                "something above the standing declaration."
            )
    d = choose_declaration(view, Params(exact=1.0), rng)
    value = _value(codes)
    if d.floor <= value:
        return f"{holding} You could declare {d.name()}: it is true ({value_words(value)})."
    return f"{holding} Nothing true beats the standing declaration: you could bluff with the least raise, {d.name()}."

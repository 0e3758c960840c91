"""Random legal games: one winner, a zero-sum ledger, and illegal actions that change nothing."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from core.cards.cards import full_deck, shuffled_deck
from core.cards.declarations import Declaration
from core.cards.hands import HandType
from core.cards.match import CardsEngine
from core.cards.players import decide, view_of
from core.cards.record import replay
from core.cards.round import Action, Challenge, Declare, Discard, Pass, Round, Take
from core.cards.rules import make_rules
from core.errors import GameError

NAMES = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]


def snapshot(m: CardsEngine) -> tuple[object, ...]:
    r = m.round
    inner: tuple[object, ...] = ()
    if r is not None:
        inner = (
            r.phase, r.to_act, r.active, r.standing, list(r.hand), list(r.deck), list(r.discards),
            sorted(r.passes), len(r.history), len(r.steps), r.may_discard, [list(d) for d in r.reshuffles],
        )
    return (list(m.out), sorted(m.passes), m.next_opener, m.winner, list(m.transfers), str(m.rounds), inner)


def random_action(r: Round, rng: random.Random) -> Action:
    """Any action at all, legal or not."""
    who = rng.choice([*r.players, "stranger"])
    kind = rng.randrange(5)
    if kind == 0:
        return Take(who)
    if kind == 1:
        return Challenge(who)
    if kind == 2:
        return Pass(who)
    if kind == 3:
        deck = full_deck(2)
        return Discard(who, tuple(rng.sample(deck, rng.randrange(6))))
    value = rng.randrange(20)
    ranks = tuple(rng.sample(range(2, 15), rng.randrange(3)))
    try:
        return Declare(who, Declaration(rng.choice(list(HandType)), ranks))
    except GameError:
        return Declare(who, Declaration.parse("pair" if value % 2 else "seven-six high"))


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(2, 8),
    jokers=st.sampled_from([0, 1, 2]),
    passing=st.booleans(),
    payout=st.sampled_from(["winner", "knockout"]),
    seed=st.integers(0, 2**32),
)
def test_random_legal_games_end_with_one_winner_and_a_zero_sum_ledger(
    n: int, jokers: int, passing: bool, payout: str, seed: int
) -> None:
    rng = random.Random(seed)
    rules = make_rules("standard", {"jokers": jokers, "pass": passing, "payout": payout, "stake": 2})
    players = NAMES[:n]
    levels = [rng.choice(["random", "random", "easy"]) for _ in players]
    m = CardsEngine(rules, players)
    opener = rng.choice(players)
    while not m.over:
        r = m.start_round(shuffled_deck(rng, jokers), m.next_opener or opener, salt=str(seed))
        steps = 0
        while not r.is_over:
            if rng.random() < 0.3:  # an illegal action changes nothing
                probe = random_action(r, rng)
                try:
                    m.check(probe)
                except GameError:
                    before = snapshot(m)
                    try:
                        m.apply(probe)
                    except GameError:
                        pass
                    else:
                        raise AssertionError(f"apply accepted what check refused: {probe}")
                    assert snapshot(m) == before
            who = r.to_act
            assert who is not None
            m.apply(decide(view_of(r, who), levels[players.index(who)], rng))
            steps += 1
            assert steps < 3000
    assert m.winner in players and len(m.live_players) == 1
    assert len(m.out) == n - 1 and set(m.out) | {m.winner} == set(players)
    net = m.net()
    assert sum(net.values()) == 0
    if payout == "winner":
        assert net[m.winner] == 2 * (n - 1)
        assert all(net[p] == -2 for p in players if p != m.winner)
    else:  # each knockout paid the challenge's winner at once
        assert [t.payer for t in m.transfers] == m.out and all(t.units == 2 for t in m.transfers)
    result = replay(m.record())
    assert result["winner"] == m.winner and result["net"] == net

"""Engine throughput: uniformly random complete 3-player rounds per second, in one process.

Each round gets fresh serials from a seeded ``random.Random`` (``deal_serial``, one per player); every
action is ``round.random_action(rng)``, uniform over exactly ``round.legal_actions()`` (one
``randrange`` draw, the same draw ``rng.choice(round.legal_actions())`` makes; tests/core/serial/
test_random_action.py checks the two agree), applied with ``round.apply`` (events and all); every
round is counted and scored.  ``--legal-actions`` plays ``rng.choice(round.legal_actions())``
instead, the way this bench measured before ``random_action`` existed.  Run::

    .venv/bin/python bench/engine.py [--preset classic|quick|salomon] [--seconds S] [--profile] [--legal-actions]

Not part of the test suite; the issue's target is 15,000 rounds/s under the classic rules.  The
rate per CPU second is printed too: on a shared machine it is the steadier figure.

``--openspiel`` also plays OpenSpiel's ``python_liars_poker`` in the same run (issue #24): with the 3
players it is asked for (:func:`openspiel_game`: stock, the game is 2-player whatever ``players``
says), serials of 8, 10 digits, uniformly random, deals included, driven through its fastest path
(its Python ``_legal_actions`` / ``_apply_action``), and prints the ratio per CPU second for the
reference engine and for the compiled self-play kernel (:mod:`core.serial.solve.fastplay`, the same
classic game, replayed against the reference by the tests), each also with the rebid right
(``classic+rebid``, ``compiled+rebid``: the rule OpenSpiel's game always plays).  Target: 5×.  They are
measured in turns (alternating batches) so a shared machine's load falls on all alike.  OpenSpiel is only for this
bench: ``.venv/bin/pip install '.[bench]'`` (open-spiel 2.0.2).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from core.serial import Round, deal_serial, make_rules

PLAYERS = ("ann", "bob", "cat")


def play_rounds(
    count: int, preset: str = "classic", seed: int = 1, via_legal: bool = False, rebid: bool | None = None
) -> tuple[int, int]:
    """Play ``count`` complete random rounds (the preset's rebid rule, or ``rebid`` when given); returns
    (rounds, actions) so the work is not optimised away."""
    rules = make_rules(preset) if rebid is None else make_rules(preset, rebid=rebid)
    rng = random.Random(seed)
    choice = rng.choice
    actions = 0
    for i in range(count):
        serials = {p: deal_serial(rng) for p in PLAYERS}
        round_ = Round(rules, PLAYERS, serials, PLAYERS[i % 3])
        apply = round_.apply
        if via_legal:
            legal = round_.legal_actions
            while not round_.is_over:
                apply(choice(legal()))
                actions += 1
        else:
            pick = round_.random_action
            while not round_.is_over:
                apply(pick(rng))
                actions += 1
        assert round_.outcome is not None
        assert sum(round_.outcome.net.values()) == 0
    return count, actions


Runner = Callable[[int, int], int]
"""``run(rounds, seed)`` plays ``rounds`` complete random rounds and returns the actions taken."""


def measure(runners: dict[str, tuple[Runner, int]], seconds: float) -> dict[str, tuple[float, float, float]]:
    """Per runner: (rounds per wall-clock second, rounds per CPU second, actions per round).

    The runners take turns, one batch each (``runners[name] = (run, batch)``, a batch being a tenth
    of a second or less), until each has run ``seconds``: on a machine shared with other work, the
    load then falls on every runner alike, and their ratio is steadier than the figures themselves.
    """
    totals = {name: [0, 0, 0.0, 0.0] for name in runners}  # rounds, actions, wall, CPU
    for run, _ in runners.values():
        run(200, 0)  # warm up caches and imports
    while min(t[2] for t in totals.values()) < seconds:
        for name, (run, batch) in runners.items():
            t = totals[name]
            wall, cpu = time.perf_counter(), time.process_time()
            t[1] += run(batch, int(t[0]) + 1)
            t[2] += time.perf_counter() - wall
            t[3] += time.process_time() - cpu
            t[0] += batch
    return {name: (r / w, r / c, a / r) for name, (r, a, w, c) in totals.items()}


def openspiel_game(players: int = 3) -> Any:
    """OpenSpiel's ``python_liars_poker`` with the players it is asked for (classic format: 8 digits of 10).

    Stock ``python_liars_poker`` builds one ``GameInfo`` for 2 players at import, so its
    ``num_players()`` is 2 whatever ``players`` says; this subclass rebuilds the game info per
    instance from the parameters, as OpenSpiel's own open pull request 1572 does.
    """
    import pyspiel
    from open_spiel.python.games import liars_poker as lp

    class PlayersLiarsPoker(lp.LiarsPoker):  # type: ignore[misc]
        def __init__(self, params: dict[str, int]) -> None:
            n, length, digits = params["players"], params["hand_length"], params["num_digits"]
            info = pyspiel.GameInfo(
                num_distinct_actions=length * digits * n + lp.BID_ACTION_OFFSET,
                max_chance_outcomes=length * digits,
                num_players=n,
                min_utility=-(n - 1),
                max_utility=n - 1,
                utility_sum=0.0,
                max_game_length=length * digits * n**2,
            )
            pyspiel.Game.__init__(self, lp._GAME_TYPE, info, params)
            self.hand_length, self.num_digits, self.deck = length, digits, lp._FULL_DECK[:digits]

    game = PlayersLiarsPoker({"players": players, "hand_length": 8, "num_digits": 10})
    assert game.num_players() == players and game.new_initial_state()._num_players == players
    return game


def openspiel_rounds(count: int, seed: int = 1, players: int = 3) -> int:
    """``count`` uniformly random rounds of OpenSpiel's game, driven through its fastest path: its own
    Python ``_legal_actions`` / ``_apply_action`` (no crossing into C++ per call), the deal included
    (one ``_apply_action`` per dealt digit, as its chance node does); returns the players' actions."""
    game = _OPENSPIEL.get(players) or _OPENSPIEL.setdefault(players, openspiel_game(players))
    rng = random.Random(seed)
    randrange = rng.randrange
    actions = 0
    for _ in range(count):
        state = game.new_initial_state()
        deck = state._deck
        apply = state._apply_action
        legal_actions = state._legal_actions
        for _ in range(players * 8):
            apply(deck[randrange(10)])
        while not state.is_terminal():
            legal = legal_actions(state._current_player)
            apply(legal[randrange(len(legal))])
            actions += 1
    return actions


_OPENSPIEL: dict[int, Any] = {}


def compiled_rounds(count: int, seed: int = 1, rebid: bool = False) -> int:
    """``count`` random classic rounds (with the rebid right if ``rebid``) through the compiled self-play
    kernel (:mod:`core.serial.solve.fastplay`)."""
    from core.serial.solve.fastplay import playouts

    return int(playouts(len(PLAYERS), count, seed, rebid=rebid)["actions"])


def openspiel_installed() -> bool:
    try:
        openspiel_rounds(1)
    except ImportError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None, help="one preset (default: all three)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--profile", action="store_true", help="cProfile 20,000 rounds instead")
    parser.add_argument(
        "--legal-actions", action="store_true", help="pick with rng.choice(legal_actions()) instead of random_action"
    )
    parser.add_argument("--openspiel", action="store_true", help="also measure OpenSpiel's python_liars_poker")
    args = parser.parse_args()
    presets = [args.preset] if args.preset else ["classic", "quick", "salomon"]
    if args.profile:
        for preset in presets:
            prof = cProfile.Profile()
            prof.runcall(play_rounds, 20_000, preset, 1, args.legal_actions)
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return
    if args.openspiel and not openspiel_installed():
        print("OpenSpiel is not installed: .venv/bin/pip install open-spiel==2.0.2 (for this bench only)")
        args.openspiel = False
    for preset in presets:
        ours = partial(_ours, preset=preset, via_legal=args.legal_actions)
        runners: dict[str, tuple[Runner, int]] = {preset: (ours, 1000)}
        if preset == "classic":
            runners["compiled"] = (compiled_rounds, 20_000)  # the self-play fast path, same game
            if args.openspiel:  # and the rule OpenSpiel's game plays: the rebid right
                with_rebid = partial(_ours, preset=preset, via_legal=args.legal_actions, rebid=True)
                runners["classic+rebid"] = (with_rebid, 1000)
                runners["compiled+rebid"] = (partial(compiled_rounds, rebid=True), 20_000)
                runners["openspiel"] = (openspiel_rounds, 150)  # measured in turns with the classic rounds
        figures = measure(runners, args.seconds)
        for name, (wall, cpu, per_round) in figures.items():
            print(f"{name:14s} {wall:9,.0f} rounds/s  ({cpu:,.0f} per CPU second; {per_round:.1f} actions a round)")
        if "openspiel" in figures:
            for name in (preset, "compiled", "classic+rebid", "compiled+rebid"):
                ratio = figures[name][1] / figures["openspiel"][1]
                print(f"{name} / openspiel: {ratio:.1f}x per CPU second (3 players each, in turns, same run; "
                      f"target ≥ 5x)")
    if args.openspiel and "classic" not in presets:
        print("(the OpenSpiel comparison runs with the classic preset)")


def _ours(rounds: int, seed: int, preset: str, via_legal: bool, rebid: bool | None = None) -> int:
    return play_rounds(rounds, preset, seed, via_legal, rebid)[1]


if __name__ == "__main__":
    main()

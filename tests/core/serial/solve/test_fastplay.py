"""The compiled random-playout kernel plays the reference engine's classic game: every traced round, replayed
through :class:`~core.serial.round.Round`, ends with the same outcome."""

from __future__ import annotations

import pytest

from core.serial.bids import Bid
from core.serial.round import Challenge, MakeBid, Round
from core.serial.rules import make_rules
from core.serial.serials import Serial
from core.serial.solve.fastplay import CHALLENGE, playouts


@pytest.mark.parametrize(("n", "length", "compiled"), [(2, 8, True), (3, 8, True), (5, 3, True), (3, 2, False)])
def test_every_traced_round_replays_to_the_same_outcome(n: int, length: int, compiled: bool) -> None:
    rounds = 300
    out = playouts(n, rounds, seed=7, length=length, trace=rounds, compiled=compiled)
    rules = make_rules("classic", serial_length=length)
    seats = tuple(f"s{i}" for i in range(n))
    replayed_actions = 0
    for r in range(rounds):
        serials = {p: Serial("".join(str(d) for d in out["deals"][r, i])) for i, p in enumerate(seats)}
        round_ = Round(rules, seats, serials, seats[r % n])
        for action_id in out["moves"][r]:
            if action_id == -2:
                break
            who = round_.to_act
            assert who is not None
            if action_id == CHALLENGE:
                round_.apply(Challenge(who))
            else:
                round_.apply(MakeBid(who, Bid.from_id(int(action_id), rules.rank_order)))
            replayed_actions += 1
        assert round_.outcome is not None, f"round {r} did not end where the kernel's did"
        assert [round_.outcome.net[p] for p in seats] == list(out["nets"][r])
    assert replayed_actions == out["actions"]


def test_the_compiled_and_plain_kernels_agree() -> None:
    a = playouts(3, 200, seed=3, compiled=True)
    b = playouts(3, 200, seed=3, compiled=False)
    assert (a["actions"], a["checksum"]) == (b["actions"], b["checksum"])


@pytest.mark.parametrize(("n", "rounds", "length", "trace"), [(1, 5, 8, 0), (13, 5, 8, 0), (3, 5, 9, 0), (3, 5, 8, 6)])
def test_bad_arguments_are_refused(n: int, rounds: int, length: int, trace: int) -> None:
    with pytest.raises(ValueError, match="2 to 12 seats"):
        playouts(n, rounds, length=length, trace=trace)

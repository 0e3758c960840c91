"""The compiled random-playout kernel plays the reference engine's classic game, with or without the rebid right:
every traced round, replayed through :class:`~core.serial.round.Round`, ends with the same outcome."""

from __future__ import annotations

import pytest

from core.serial.bids import Bid
from core.serial.round import CallCount, Challenge, MakeBid, Round
from core.serial.rules import make_rules
from core.serial.serials import Serial
from core.serial.solve.fastplay import CALL, CHALLENGE, playouts

# the numba kernels compile once per process: these files share one xdist worker (``--dist loadgroup``)
pytestmark = pytest.mark.xdist_group("numba")


@pytest.mark.parametrize(
    ("n", "length", "compiled", "rebid"),
    [(2, 8, True, False), (3, 8, True, False), (5, 3, True, False), (3, 2, False, False),
     (2, 8, True, True), (3, 8, True, True), (5, 3, True, True), (2, 1, True, True), (3, 2, False, True)],
)
def test_every_traced_round_replays_to_the_same_outcome(n: int, length: int, compiled: bool, rebid: bool) -> None:
    rounds = 300
    out = playouts(n, rounds, seed=7, length=length, trace=rounds, compiled=compiled, rebid=rebid)
    rules = make_rules("classic", serial_length=length, rebid=rebid)
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
            elif action_id == CALL:
                round_.apply(CallCount(who))
            else:
                round_.apply(MakeBid(who, Bid.from_id(int(action_id), rules.rank_order)))
            replayed_actions += 1
        assert round_.outcome is not None, f"round {r} did not end where the kernel's did"
        assert [round_.outcome.net[p] for p in seats] == list(out["nets"][r])
    assert replayed_actions == out["actions"]
    moves = out["moves"]
    rebids = sum(1 for r in range(rounds) for k in range(n - 1, moves.shape[1])
                 if moves[r, k] >= 0 and _all_around([int(m) for m in moves[r]], k, n))
    calls = int((moves == CALL).sum())
    assert (rebids > 0 and calls > 0) if rebid else (rebids == calls == 0)  # both of the bidder's options occur


def _all_around(moves: list[int], k: int, n: int) -> bool:
    """Whether the action at ``k`` follows n − 1 challenges in a row (so a bid there is the bidder's rebid)."""
    return all(moves[k - 1 - j] == CHALLENGE for j in range(n - 1))


@pytest.mark.parametrize("rebid", [False, True])
def test_the_compiled_and_plain_kernels_agree(rebid: bool) -> None:
    a = playouts(3, 200, seed=3, compiled=True, rebid=rebid)
    b = playouts(3, 200, seed=3, compiled=False, rebid=rebid)
    assert (a["actions"], a["checksum"]) == (b["actions"], b["checksum"])


@pytest.mark.parametrize(("n", "rounds", "length", "trace"), [(1, 5, 8, 0), (13, 5, 8, 0), (3, 5, 9, 0), (3, 5, 8, 6)])
def test_bad_arguments_are_refused(n: int, rounds: int, length: int, trace: int) -> None:
    with pytest.raises(ValueError, match="2 to 12 seats"):
        playouts(n, rounds, length=length, trace=trace)

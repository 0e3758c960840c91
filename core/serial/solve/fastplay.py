"""A compiled fast path for random self-play of the classic serial game (issue #24), beside the reference engine.

:class:`~core.serial.round.Round` is the reference: it checks every action, builds typed values and
events, and is what every table and tool plays.  Self-play that only needs outcomes (rollouts, the
engine bench) can use this kernel instead: the same game — classic payoffs (the bidder wins a stake
from each other seat when the count makes the bid, else pays each one), challenges *all around*, no
rebid right unless ``rebid`` (RULES.md: a bid challenged all around lets its bidder call for the
count or rebid over it; a rebid challenged all around is counted at once — the rule OpenSpiel's
game always plays), 1 to 10n × length bids ordered by quantity then rank (``zero-low``), uniformly
random legal actions (the challenge being one of them once a bid stands; the call one of the
bidder's once its bid is challenged all around), the deal of ``length`` uniform digits per seat —
written over integers so numba compiles it (:func:`kernel`; without numba it is the same function in
plain Python).  ``trace`` rounds are recorded (the deal's digits and the action ids, -1 for a
challenge, -3 for a call for the count) so a test can replay them through the reference engine and
compare every outcome (tests/core/serial/solve/test_fastplay.py).

Pure: its randomness is numpy's generator seeded by the caller; no clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["CALL", "CHALLENGE", "kernel", "playouts"]

CHALLENGE = -1
CALL = -3  # the bidder, challenged all around, calls for the count (with the rebid right)
IntArray = npt.NDArray[np.int64]


def _playouts(
    n: int,
    length: int,
    rounds: int,
    seed: int,
    trace: int,
    deals: IntArray,
    actions: IntArray,
    nets: IntArray,
    rebid: bool = False,
) -> tuple[int, int]:
    """Play ``rounds`` random classic rounds at ``n`` seats (with the rebid right if ``rebid``); returns
    (actions taken, checksum of the nets).

    The first ``trace`` rounds are written out: ``deals[r, seat, i]`` the digits, ``actions[r, k]`` the
    action ids in order (bid ids; ``CHALLENGE``; ``CALL``; -2 after the last), ``nets[r, seat]`` the units
    at stake 1.
    """
    np.random.seed(seed)
    max_id = length * n * 10 - 1
    counts = np.zeros(10, dtype=np.int64)
    taken = 0
    checksum = 0
    for r in range(rounds):
        counts[:] = 0
        for seat in range(n):
            for i in range(length):
                d = np.random.randint(10)
                counts[d] += 1
                if r < trace:
                    deals[r, seat, i] = d
        turn = r % n
        standing = -1
        bidder = -1
        challenges = 0
        rebidding = False  # the standing bid is a rebid: challenged all around, it is counted at once
        k = 0
        while True:
            all_around = challenges == n - 1  # the standing bid is challenged all around; its bidder is to act
            if all_around and (not rebid or rebidding):
                break  # counted at once: no rebid right, or the bid is itself a rebid
            if standing < 0:
                choice = np.random.randint(max_id + 1)
                raises = max_id + 1
            else:
                raises = max_id - standing
                choice = np.random.randint(raises + 1)
            if choice < raises:  # a raise, or (all around) the bidder's rebid over its own bid
                standing = choice if standing < 0 else standing + 1 + choice
                bidder = turn
                challenges = 0
                rebidding = all_around
                action = standing
            elif all_around:
                action = CALL
            else:
                challenges += 1
                action = CHALLENGE
            if r < trace:
                actions[r, k] = action
            k += 1
            if action == CALL:
                break
            turn = (turn + 1) % n
        taken += k
        quantity = standing // 10 + 1
        made = counts[standing % 10] >= quantity
        win = 1 if made else -1
        for seat in range(n):
            net = win * (n - 1) if seat == bidder else -win
            checksum += net * (seat + 1)
            if r < trace:
                nets[r, seat] = net
        if r < trace:
            actions[r, k] = -2
    return taken, checksum


_KERNEL: list[Callable[..., tuple[int, int]]] = []


def kernel(compiled: bool = True) -> Callable[..., tuple[int, int]]:
    """The playout kernel: compiled by numba when it is installed (and ``compiled``), else plain Python."""
    if not compiled:
        return _playouts
    if not _KERNEL:
        try:
            import numba  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            _KERNEL.append(_playouts)
        else:
            _KERNEL.append(numba.njit(cache=False)(_playouts))
    return _KERNEL[0]


def playouts(
    n: int, rounds: int, seed: int = 1, *, length: int = 8, trace: int = 0, compiled: bool = True, rebid: bool = False
) -> dict[str, Any]:
    """Run the kernel (with the rebid right if ``rebid``); returns the action count, the checksum and the traced
    rounds' arrays."""
    if not 2 <= n <= 12 or not 1 <= length <= 8 or rounds < 0 or not 0 <= trace <= rounds:
        raise ValueError("2 to 12 seats, serials of 1 to 8 digits, and no more traced rounds than rounds")
    deals = np.zeros((max(trace, 1), n, length), dtype=np.int64)
    actions = np.full((max(trace, 1), length * n * 10 * n + 2), -2, dtype=np.int64)
    nets = np.zeros((max(trace, 1), n), dtype=np.int64)
    taken, checksum = kernel(compiled)(n, length, rounds, seed, trace, deals, actions, nets, rebid)
    return {"actions": int(taken), "checksum": int(checksum), "deals": deals, "moves": actions, "nets": nets}

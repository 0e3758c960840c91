"""Small builders shared by the core tests (no fixtures, so nothing leaks into other test files)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import cast

from core.serial import Action, Bid, CallCount, Challenge, Event, MakeBid, Round, Rules, Serial

Step = tuple[str, str]


def serials(**digits: str) -> dict[str, Serial]:
    """``serials(p1="06742088", ...)`` -> {"p1": Serial("06742088"), ...}."""
    return {p: Serial.parse(d) for p, d in digits.items()}


def action(round_: Round, player: str, what: str) -> Action:
    """``"challenge"``, ``"count"`` or a bid as a person types it (``"3 zeros"``, ``"3x0"``)."""
    if what == "challenge":
        return Challenge(player)
    if what == "count":
        return CallCount(player)
    return MakeBid(player, Bid.parse(what, round_.rules.rank_order))


def play(round_: Round, steps: Iterable[Step]) -> list[Event]:
    """Apply ``(player, what)`` steps in order; returns every event they caused."""
    events: list[Event] = []
    for player, what in steps:
        events.extend(round_.apply(action(round_, player, what)))
    return events


def settle(
    rules: Rules,
    table: Mapping[str, str],
    bidder: str,
    bid: str,
    *,
    stake: int | None = None,
    players: Sequence[str] | None = None,
) -> Round:
    """The bidder opens with ``bid``; everyone else challenges in turn; with the rebid right the
    bidder calls for the count.  Returns the counted round."""
    seats = list(players or table)
    round_ = Round(rules, seats, serials(**table), bidder, stake)
    play(round_, [(bidder, bid)])
    while not round_.is_over:
        player = round_.to_act
        assert player is not None
        play(round_, [(player, "count" if player == bidder else "challenge")])
    return round_


def snapshot(round_: Round) -> tuple[object, ...]:
    """Everything observable about a round's state, to prove a failed action changed nothing."""
    legal = round_.legal_actions()
    return (
        round_.phase,
        round_.to_act,
        round_.standing_bid,
        round_.bidder,
        round_.challengers,
        round_.standing_is_rebid,
        tuple(round_.history),
        round_.outcome,
        round_.stake,
        legal.player,
        legal.raise_ids,
        legal.challenge,
        legal.call_count,
        tuple(p for p in round_.players if round_.can_challenge(p)),
    )


Reading = dict[tuple[str, int], tuple[float, ...]]


def readings(key: tuple[object, ...]) -> Reading:
    """A reader's memo key (``Reader.memo_key``) read as what it is without a doubter: sorted pairs of
    (player, digit) and the posterior on how many copies of the digit that player holds."""
    return dict(cast("tuple[tuple[tuple[str, int], tuple[float, ...]], ...]", key))

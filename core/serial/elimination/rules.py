"""Who leaves, who pays: the elimination format's decisions (RULES.md §1 "Elimination: who pays for dinner").

Each decided round exactly one player leaves the table safe: the final bidder if the bid is made (a
skunk counts as made), otherwise the first player who challenged the final bid.  A push (the skunk
at three players, multiplier 0) decides nothing and is played again with fresh serials.  When one
player is left, that player pays for dinner: with a stake, the stake to each other player.

Choices where RULES.md is silent (the project's rules; the README's "Elimination" section repeats them):

* **The replay of a push** is opened by the player who opened the pushed round (it is the same round
  played again), at the same players.
* **The opener after a decided round** follows the table's later-opener rule among those still in;
  when that names the player who just left (always, under ``final-bidder`` with a made bid, and under
  ``winner``), the next player clockwise still in opens.
* **Two players left**: the skunk rule does not apply at two (RULES.md), so no push is possible and
  every round decides.  At three a skunk is a push and is replayed; at four or more a skunk is made.
* **A final bid nobody challenged** cannot be counted under the rules; should a record hold one, the
  player after the bidder clockwise stands for the first challenger.
* **A player who leaves the table (or is kicked) while still in the game** walks out on dinner: at the
  next deal they become the payer and the game ends there; everyone else who played — those who left
  safe and those still in — is paid.  If several still in go at once, the first in seat order pays
  and the others walk out unpaid and paying nothing.  (A table cannot tell a kick from a leave; as
  in the card game, a forfeit is a forfeit.)  A player who has left safe may leave the table freely:
  they are still paid when the game ends.
* **Timeouts** are moves like any other (a challenge, the lowest opening bid, the count): a player who
  times out may still leave safe, and the game ends with one payer however many players time out.
* **SLIPS and the declared last hand** do not apply: ``format=elimination`` refuses ``serial_source=slips``
  and ``last_hand_double``, and ``last`` is refused at an elimination table.
* **The ledger**: only the payer's payments are written (none at ``stake=0``).  Each decided round is
  rated as a win for the player who left and a tie for the rest; a push is not rated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import GameError
from ..scoring import Outcome, Transfer

__all__ = ["LeftSafe", "NoLastHand", "dinner", "is_push", "leaver", "next_clockwise", "opener_after", "round_summary"]


class LeftSafe(GameError):
    """A player who has left the elimination safe tries to play on."""

    code = "left-safe"

    def __init__(self, player: str) -> None:
        # said to that player, who tried to play on
        super().__init__("you have left this game safe: the others play on for who pays for dinner", player=player)


class NoLastHand(GameError):
    code = "no-last-hand"

    def __init__(self) -> None:
        super().__init__("the elimination game has no last hand: it plays until one player is left")


def is_push(outcome: Outcome) -> bool:
    """A round that decides nothing: a skunk whose multiplier is 0 (three players)."""
    return outcome.skunk and outcome.multiplier == 0


def next_clockwise(ring: Sequence[str], player: str, among: Sequence[str]) -> str:
    """The first of ``among`` after ``player`` clockwise round ``ring`` (``player`` itself if it is among)."""
    start = ring.index(player)
    return next(p for p in (ring[(start + i) % len(ring)] for i in range(len(ring))) if p in among)


def leaver(outcome: Outcome, players: Sequence[str]) -> str | None:
    """Who leaves the table safe after this counted round among ``players``; None for a push."""
    if is_push(outcome):
        return None
    if outcome.made or outcome.skunk:
        return outcome.bidder
    if outcome.challengers:
        return outcome.challengers[0]
    after = [p for p in players if p != outcome.bidder]
    return next_clockwise(players, outcome.bidder, after)


def dinner(payer: str, payees: Sequence[str], stake: int) -> tuple[Transfer, ...]:
    """The payer pays each payee the stake (nothing at stake 0)."""
    if stake <= 0:
        return ()
    return tuple(Transfer(payer, p, stake) for p in payees if p != payer)


_MONEY_KEYS = ("transfers", "net", "stake", "next_stake", "multiplier", "multiplier_text", "bonuses")


def round_summary(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """A counted round's summary (``outcome_to_dict``) without its money: in the elimination no round pays."""
    return {k: v for k, v in outcome.items() if k not in _MONEY_KEYS}


def opener_after(ring: Sequence[str], round_opener: str, outcome: Outcome, leaves: str | None) -> str:
    """Who opens the round after this one: the pushed round's opener again (``leaves`` None), else the
    later-opener rule's choice, or the next player clockwise still in when that is the one who left."""
    if leaves is None:
        return round_opener
    return next_clockwise(ring, outcome.next_opener, [p for p in ring if p != leaves])

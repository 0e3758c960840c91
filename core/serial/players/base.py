"""The strategy interface and the table arithmetic every computer player shares.

A strategy sees one :class:`~core.view.SeatView` (the rules, the public history, its own serial) and
an injected :class:`random.Random`, and returns a legal :data:`~core.round.Action` for the seat to
act.  Strategies read nothing else and keep nothing that changes a decision (``reader`` caches its
reading of a history, which is only a cache): same view, same seeded rng, same action.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..bids import Bid, digit_name, digit_plural
from ..odds import at_least, pct  # pct: its players' figures, as the odds show them
from ..round import Action, CallCount, Challenge, MakeBid, Phase
from ..rules import RankOrder
from ..scoring import size_multiplier
from ..view import SeatView

__all__ = [
    "Strategy",
    "base_multiplier",
    "bid_text",
    "challenge_or_count",
    "in_rebid",
    "memo_key_of",
    "naive_true",
    "pct",
    "policy_of",
    "raise_bid",
    "raise_options",
    "seats_after",
    "sure_bid",
]


@runtime_checkable
class Strategy(Protocol):
    """A computer player.  ``decide`` must return one of ``view.legal`` (made out as ``view.me``)."""

    name: str

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """The action to take; deterministic for a given view and rng state."""
        ...

    def explain(self, view: SeatView) -> str:
        """One paragraph: the decision this strategy would make here, and the odds it saw."""
        ...


def policy_of(strategy: Strategy, view: SeatView) -> list[tuple[Action, float]]:
    """The exact distribution of ``strategy.decide(view, rng)`` over actions, as (action, probability) pairs.

    Every strategy of this package has a ``policy`` method that says it without drawing (the
    exploitability tools need the exact mixture); another strategy raises ``TypeError``.
    """
    policy = getattr(strategy, "policy", None)
    if policy is None:
        raise TypeError(f"{strategy.name} does not state its policy")
    out: list[tuple[Action, float]] = policy(view)
    return out


def memo_key_of(strategy: Strategy, view: SeatView) -> tuple[object, ...] | None:
    """What besides the public state (standing bid, bidder, phase, challengers) and its own serial the
    strategy's choices depend on, as a hashable key; ``None`` when that is the whole history.

    Two views with equal public state, equal serial and equal key get the same :func:`policy_of`,
    and so do their continuations under equal actions: a best-response search may merge them.
    """
    key = getattr(strategy, "memo_key", None)
    if key is None:
        return None
    out: tuple[object, ...] | None = key(view)
    return out


def bid_text(bid: Bid) -> str:
    name = digit_plural(bid.digit, bid.order) if bid.quantity != 1 else digit_name(bid.digit, bid.order)
    return f"{bid.quantity} {name}"


def choice_index(weights: Sequence[float], rng: random.Random) -> int:
    """An index drawn in proportion to ``weights`` (one ``rng.random()`` draw)."""
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


def action_text(action: Action) -> str:
    """An action in words: "bid 2 threes", "challenge", "call for the count"."""
    if isinstance(action, MakeBid):
        return f"bid {bid_text(action.bid)}"
    return "challenge" if isinstance(action, Challenge) else "call for the count"


def naive_true(view: SeatView, quantity: int, digit: int) -> float:
    """P(at least ``quantity`` copies of ``digit`` at the table) from one's own serial alone."""
    rules = view.rules
    return at_least(quantity - view.serial.counts[digit], rules.serial_length * (view.n - 1), rules.digits)


def raise_options(view: SeatView) -> list[tuple[int, int]]:
    """For each digit, the smallest legal raise on it, as ``(quantity, digit)``; digits with none are left out.

    The legal raises are ascending bid ids ``(q − 1) × 10 + rank``, so the smallest raise on a digit
    of rank ``r`` is the first id at or after the first legal one whose last decimal is ``r``.
    """
    ids = view.legal.raise_ids
    if not ids:
        return []
    start, last = ids[0], ids[-1]
    order = view.rules.rank_order
    out: list[tuple[int, int]] = []
    for digit in view.rules.digit_set:
        r = order.rank(digit)
        bid_id = start + (r - start % 10) % 10
        if bid_id <= last:
            out.append((bid_id // 10 + 1, digit))
    out.sort(key=lambda qd: qd[1])
    return out


def raise_bid(view: SeatView, quantity: int, digit: int) -> MakeBid:
    return MakeBid(view.me, Bid(quantity, digit, view.rules.rank_order))


def sure_bid(view: SeatView) -> MakeBid:
    """The opening a cautious player makes: the digit they hold most of (highest rank among ties), at that count."""
    counts = view.serial.counts
    order: RankOrder = view.rules.rank_order
    best = max(view.rules.digit_set, key=lambda d: (counts[d], order.rank(d)))
    quantity = max(1, counts[best])
    bid = Bid(quantity, best, order)
    if bid.id in view.legal.raise_ids:
        return MakeBid(view.me, bid)
    return MakeBid(view.me, Bid.from_id(view.legal.raise_ids[0], order))


def base_multiplier(view: SeatView, quantity: int, digit: int) -> int:
    """The size-and-sixes multiplier of a bid under the table's rules (hero and skunk apart)."""
    rules = view.rules
    m = size_multiplier(quantity, view.n) if rules.size_bonus else 1
    if rules.sixes_bonus and digit == 6:
        m *= 2
    return m


def challenge_or_count(view: SeatView) -> Action | None:
    """The non-bidding answer available here: a challenge, a call for the count, or None (the opener)."""
    if view.legal.challenge:
        return Challenge(view.me)
    if view.legal.call_count:
        return CallCount(view.me)
    return None


def in_rebid(view: SeatView) -> bool:
    return view.phase is Phase.REBID


def seats_after(players: Sequence[str], player: str) -> list[str]:
    """The other players in turn order, starting with the one after ``player``."""
    i = players.index(player)
    return [players[(i + k) % len(players)] for k in range(1, len(players))]

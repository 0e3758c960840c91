"""The count and the payout (RULES.md "The count and the payout", "Bonus bids", "Stakes across rounds")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .bids import Bid
from .rules import LaterOpener, Rules
from .serials import Serial

__all__ = ["Bonus", "Outcome", "Transfer", "score"]


@dataclass(frozen=True, slots=True)
class Transfer:
    payer: str
    payee: str
    units: int


@dataclass(frozen=True, slots=True)
class Bonus:
    """One reason for the multiplier: ``kind`` is size/sixes/hero/skunk; ``effect`` reads "×3" or "+1"."""

    kind: str
    label: str
    effect: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a counted round comes to.  ``net`` sums to zero; ``transfers`` are the payments."""

    bid: Bid
    bidder: str
    count: int
    made: bool
    skunk: bool
    multiplier: int
    bonuses: tuple[Bonus, ...]
    stake: int
    transfers: tuple[Transfer, ...]
    net: Mapping[str, int]
    next_stake: int
    next_opener: str
    serials: Mapping[str, Serial]
    challengers: tuple[str, ...]

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(p for p, v in self.net.items() if v > 0)

    def multiplier_text(self) -> str:
        """``×6 = n+5 (×3) and sixes (×2)``, or ``×1`` for a plain bid."""
        if not self.bonuses:
            return f"×{self.multiplier}"
        why = " and ".join(f"{b.label} ({b.effect})" for b in self.bonuses)
        return f"×{self.multiplier} = {why}"


def size_multiplier(quantity: int, n: int) -> int:
    """The n+3 rule: 1 + max(0, ⌊(q − n − 1) / 2⌋)."""
    return 1 + max(0, (quantity - n - 1) // 2)


def score(
    rules: Rules,
    players: Sequence[str],
    serials: Mapping[str, Serial],
    bid: Bid,
    bidder: str,
    stake: int,
    challengers: Sequence[str],
) -> Outcome:
    n = len(players)
    d, q = bid.digit, bid.quantity
    count = 0
    for p in players:
        count += serials[p].counts[d]
    held = serials[bidder].counts[d]
    made = count >= q

    size_m = 1 + max(0, (q - n - 1) // 2) if rules.size_bonus else 1  # size_multiplier(q, n)
    sixes_m = 2 if d == 6 and rules.sixes_bonus else 1
    bonuses: list[Bonus] = []
    if size_m > 1:
        bonuses.append(Bonus("size", f"n+{2 * size_m - 1}", f"×{size_m}"))
    if sixes_m > 1:
        bonuses.append(Bonus("sixes", "sixes", "×2"))
    multiplier = size_m * sixes_m

    skunk = count == 0 and n > 2 and rules.skunk
    others = [p for p in players if p != bidder]
    if skunk:
        multiplier = 2 * n - 6
        bonuses = [Bonus("skunk", "skunk", f"2n−6 = {multiplier}")]
        per = multiplier * stake  # what each other player pays the bidder (none at three players)
        transfers = [Transfer(p, bidder, per) for p in others] if multiplier else []
    elif made:
        if held == 0 and rules.hero_bonus:
            multiplier += 1
            bonuses.append(Bonus("hero", "hero", "+1"))
        per = multiplier * stake
        transfers = [Transfer(p, bidder, per) for p in others]
    else:
        per = -stake  # the bidder pays each other player
        transfers = [Transfer(bidder, p, stake) for p in others]
    # The transfers' sums, seat by seat: the bidder receives from (or pays) each of the others.
    net = {p: per * len(others) if p == bidder else -per for p in players}

    if rules.progressive_stakes:
        next_stake = rules.stake * (2 if held == 0 else size_m * sixes_m)
    else:
        next_stake = rules.stake
    if not (made or skunk) and challengers and rules.later_opener is LaterOpener.WINNER:
        next_opener = challengers[0]
    else:
        next_opener = bidder

    return Outcome(
        bid,
        bidder,
        count,
        made,
        skunk,
        multiplier,
        tuple(bonuses),
        stake,
        tuple(transfers),
        net,
        next_stake,
        next_opener,
        {p: serials[p] for p in players},
        tuple(challengers),
    )

"""Ledger arithmetic: periods and the fewest payments that settle a sheet."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

__all__ = ["fewest_payments", "period_of"]

EXACT_LIMIT = 16  # exact search over subsets up to this many non-zero balances


def period_of(timestamp: float) -> str:
    """The ledger period of a moment: its calendar month in UTC, ``YYYY-MM``."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return f"{moment.year:04d}-{moment.month:02d}"


def _settle_group(balances: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """Greedy within a zero-sum group: the largest debtor pays the largest creditor."""
    debtors = sorted(((-b, p) for p, b in balances if b < 0), reverse=True)
    creditors = sorted(((b, p) for p, b in balances if b > 0), reverse=True)
    out = []
    i = j = 0
    debt = [d for d, _ in debtors]
    cred = [c for c, _ in creditors]
    while i < len(debt) and j < len(cred):
        amount = min(debt[i], cred[j])
        out.append((debtors[i][1], creditors[j][1], amount))
        debt[i] -= amount
        cred[j] -= amount
        if debt[i] == 0:
            i += 1
        if cred[j] == 0:
            j += 1
    return out


def fewest_payments(balances: Mapping[str, int]) -> list[tuple[str, str, int]]:
    """(payer, payee, units) settling the balances with as few payments as possible.

    With k non-zero balances the minimum is k minus the largest number of disjoint zero-sum groups;
    found exactly by a search over subsets for k ≤ 16, greedily beyond that.
    """
    if sum(balances.values()) != 0:
        raise ValueError("balances do not sum to zero")
    items = sorted(((p, b) for p, b in balances.items() if b), key=lambda x: (x[1], x[0]))
    k = len(items)
    if k == 0:
        return []
    if k > EXACT_LIMIT:
        return _settle_group(items)
    full = (1 << k) - 1
    sums = [0] * (1 << k)
    for mask in range(1, 1 << k):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + items[low.bit_length() - 1][1]
    groups = [0] * (1 << k)
    for mask in range(1, 1 << k):
        best = 0
        m = mask
        while m:
            bit = m & -m
            best = max(best, groups[mask ^ bit])
            m ^= bit
        groups[mask] = best + (1 if sums[mask] == 0 else 0)
    # walk back to find the groups: peel elements off, cutting where a prefix sums to zero
    order = []
    mask = full
    while mask:
        m = mask
        while m:
            bit = m & -m
            if groups[mask ^ bit] + (1 if sums[mask] == 0 else 0) == groups[mask]:
                order.append(bit.bit_length() - 1)
                mask ^= bit
                break
            m ^= bit
    order.reverse()
    payments: list[tuple[str, str, int]] = []
    group: list[tuple[str, int]] = []
    running = 0
    for idx in order:
        group.append(items[idx])
        running += items[idx][1]
        if running == 0:
            payments += _settle_group(group)
            group = []
    return payments

"""A ledger or a sheet of a server of hundreds of players: every name and amount listed made a reply Slack refuses
(more than 50 blocks: the player saw nothing) and twenty-odd messages on Discord.  The top and the bottom are
listed, and the asker's own line; the rest are counted; the sums are the whole ledger's."""

from __future__ import annotations

import re

from bot import messages as M
from bot.ledger import fewest_payments


def _server(players: int) -> tuple[dict[str, int], dict[str, str]]:
    balances = {f"U{i:03d}": (players // 2 - i) * 7 for i in range(players)}
    balances["U000"] -= sum(balances.values())  # a ledger sums to 0
    names = {p: f"Player {p[1:]}" for p in balances}
    return balances, names


def _more(text: str, word: str) -> int:
    return sum(int(n) for n in re.findall(rf"… (\d+) more {word}", text))


def test_a_ledger_of_hundreds_lists_the_top_the_bottom_and_the_asker_and_counts_the_rest() -> None:
    balances, names = _server(400)
    viewer = "U201"  # in the middle: listed all the same
    text = M.ledger_text("2026-12", balances, balances, names, None, viewer=viewer)
    listed = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(listed) == M.MOST_LISTED + 1 and any(line.startswith("• Player 201:") for line in listed)
    assert len(listed) + _more(text, "player") == 400 and text.count("…") == 2  # (before and after the asker)
    assert text.endswith("Sum: 0 this period, 0 all time.")
    assert len(text) < 4_000, len(text)
    few, few_names = _server(M.MOST_LISTED)
    assert "…" not in M.ledger_text("2026-12", few, few, few_names, None, viewer="U001")  # all of them listed


def test_a_sheet_of_hundreds_lists_the_askers_payments_first() -> None:
    balances, names = _server(400)
    payments = fewest_payments(balances)
    assert len(payments) > M.MOST_LISTED
    viewer = "U390"
    own = [p for p in payments if viewer in p[:2]]
    assert own
    text = M.sheet_text("2026-12", False, balances, payments, names, None, viewer=viewer)
    shown = [line for line in text.splitlines() if " pays " in line]
    assert len(shown) == M.MOST_LISTED and len(shown) + _more(text, "payment") == len(payments)
    assert all(f"Player {viewer[1:]}" in line for line in shown[: len(own)])
    assert f"To settle ({len(payments)} payments):" in text

"""Every word the serial game says, platform-neutral: mentions as ``<@id>``, money as ``<$n>`` tokens.

Privacy: a serial appears only in :func:`serial_text`, which the game addresses to its holder, until
:func:`count_text` reveals them all with the fairness salt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..game import Control, units
from .bids import Bid, a_digit, digit_name, digit_plural
from .odds import at_least, pct, player_odds
from .round import Phase, Round
from .rules import ChallengeMode, RankOrder, Rules
from .scoring import Outcome
from .serials import Serial

__all__ = [
    "B_CHALLENGE",
    "B_COUNT",
    "B_HAND",
    "B_ODDS",
    "B_RAISE",
    "count_lines",
    "count_picture_words",
    "count_text",
    "deal_text",
    "describe",
    "fingers",
    "holding_summary",
    "mention",
    "odds_text",
    "panel_lines",
    "result_line",
    "salt_line",
    "serial_text",
    "turn_text",
]

FINGERS = ("✊", "☝️", "✌️", "🤟", "🖖", "🖐️")

B_CHALLENGE = Control("challenge", "Challenge", "danger", at_turn=True)
B_RAISE = Control("bid", "Raise…", "primary", form=True)  # opens the bid form
B_COUNT = Control("count", "Call the count", "success", at_turn=True)
B_HAND = Control("hand", "My serial", "secondary")  # the label its ``hand`` declaration carries (plugin.py)
B_ODDS = Control("odds", "Odds", "secondary")


def mention(player: str) -> str:
    return f"<@{player}>"


def fingers(count: int) -> str:
    if count == 0:
        return "✊ (none)"
    hands, rest = divmod(count, 5)
    return "🖐️" * hands + (FINGERS[rest] if rest else "")


def describe(rules: Rules) -> str:
    text = rules.describe()
    if rules.challenge_mode is ChallengeMode.FIRST:
        text += " Anyone but the bidder may challenge at any moment."
    return text


def panel_lines(r: Round, round_number: int, seats: str, note: str) -> tuple[list[str], tuple[Control, ...]]:
    """The table message's lines and buttons for the round under way (or just counted)."""
    head = f"🃏 **Round {round_number}** — stake {units(r.stake)}"  # the commitment: in the deal and the DMs
    lines = [head, f"Seats: {seats}"]
    if r.is_over:
        lines.append("Counted — see the result below.")
        return lines, ()
    bid = r.standing_bid
    if bid is None:
        lines.append(f"No bid yet. {mention(r.opener)} opens.")
    else:
        rebid = " (a rebid)" if r.standing_is_rebid else ""
        lines.append(f"Standing bid: **{bid}** by {mention(r.bidder or '')}{rebid}.")
        if r.challengers:
            lines.append("Challenged by: " + ", ".join(mention(c) for c in r.challengers))
    if note:
        lines.append(note)  # what just happened, then whose turn it is: the last line
    to_act = r.to_act or ""
    if r.phase is Phase.REBID:
        lines.append(f"{mention(to_act)} to act: challenged all around, call the count or rebid.")
        return lines, (B_COUNT, B_RAISE, B_HAND, B_ODDS)
    if bid is None:
        lines.append(f"{mention(to_act)} to act: make the opening bid.")
        return lines, (B_RAISE, B_HAND, B_ODDS)
    lines.append(f"{mention(to_act)} to act: raise or challenge.")
    return lines, (B_CHALLENGE, B_RAISE, B_HAND, B_ODDS)


def turn_text(r: Round, round_number: int) -> str:
    """A small new message that pings the player to act (edits of the table panel notify nobody)."""
    player = r.to_act or ""
    bid = r.standing_bid
    if r.phase is Phase.REBID:
        return f"🔔 {mention(player)}, your {bid} is challenged all around: call the count or rebid."
    if bid is None:
        return f"🔔 {mention(player)}, you open round {round_number}."
    return f"🔔 {mention(player)}, your turn: raise {bid} or challenge it."


def deal_text(r: Round, round_number: int, commitment: str) -> str:
    return (
        f"🃏 Round {round_number} dealt to {len(r.players)} players. Fairness commitment "
        f"(SHA-256 over the serials and a secret salt): `{commitment}`. "
        f"Serials are sent privately; {mention(r.opener)} opens."
    )


def serial_text(r: Round, player: str, round_number: int, commitment: str, reminder: bool = False) -> str:
    """The one text that carries a serial before the count: the game addresses it to its holder only."""
    serial = r.serials[player]
    what = "Reminder — your serial" if reminder else "Your serial"
    return (
        f"🔒 {what} for round {round_number} at <#table>: **{serial}**\n"
        f"Digits you hold: {holding_summary(serial, r)}.\n"
        f"Commitment: `{commitment}` — the salt is revealed at the count so you can check it."
    )


def holding_summary(serial: Serial, r: Round) -> str:
    order = r.rules.rank_order
    held = [(serial.counts[d], d) for d in order.digits_low_to_high if serial.counts[d]]
    return ", ".join(f"{c}× {d}" for c, d in sorted(held, key=lambda x: (-x[0], -order.rank(x[1]))))


def odds_text(r: Round, player: str) -> str:
    serial = r.serials[player]
    n = len(r.players)
    bid = r.standing_bid
    rules = r.rules
    order, top = rules.rank_order, rules.serial_length * n
    lines = [f"Your odds at {n} players (you hold {holding_summary(serial, r)}):"]
    table = player_odds(serial, n, digits=rules.digit_set, serial_length=rules.serial_length)
    for d, held, probs in sorted(table, key=lambda row: order.rank(row[0])):
        start = held + 1  # show the quantities around where the bidding is
        if bid is not None:
            start = max(start, bid.quantity)
        parts = " · ".join(f"≥{q}: {pct(probs[q - 1])}" for q in range(start, min(start + 3, top) + 1))
        lines.append(f"{digit_plural(d, order)} (hold {held}): {parts}")
    if bid is not None:
        held = serial.counts[bid.digit]
        p = bid_true(serial, n, bid, rules)
        lines.append(f"The standing bid {bid} is true with probability {pct(p, 1)} given your {held}.")
    return "\n".join(lines)


def bid_true(serial: Serial, n: int, bid: Bid, rules: Rules) -> float:
    """The chance a bid is true given one's own serial (the others' digits uniform over the format's)."""
    return at_least(bid.quantity - serial.counts[bid.digit], rules.serial_length * (n - 1), rules.digits)


def count_lines(outcome: Outcome, rules: Rules, last_challenger: str | None) -> list[str]:
    """The count's reveal: who bid what, how many there are, and every serial (any format's count)."""
    bid, bidder = outcome.bid, outcome.bidder
    order = rules.rank_order
    there = (f"There is **1** {digit_name(bid.digit, order)}" if outcome.count == 1
             else f"There are **{outcome.count}** {digit_plural(bid.digit, order)}")
    lines = [f"🧮 **The count** — {mention(bidder)} bid **{bid}**"
             + (f", last challenged by {mention(last_challenger)}" if last_challenger else "")
             + f". {there}: {fingers(outcome.count)}"]
    for p, serial in outcome.serials.items():
        lines.append(f"• {mention(p)}: `{serial}` ({serial.counts[bid.digit]})")
    return lines


def salt_line(salt: str, commitment: str) -> str:
    return f"Salt: `{salt}` — check: sha256 of the commitment JSON is `{commitment}`."


def count_text(outcome: Outcome, rules: Rules, salt: str, commitment: str, last_challenger: str | None) -> str:
    bid, bidder = outcome.bid, outcome.bidder
    order = rules.rank_order
    lines = count_lines(outcome, rules, last_challenger)
    if outcome.skunk:
        verdict = (f"Skunk! Nobody holds {a_digit(bid.digit, order)}: {mention(bidder)} wins "
                   f"{outcome.multiplier_text()}.")
    elif outcome.made:
        verdict = f"The bid is made: {mention(bidder)} wins {outcome.multiplier_text()}."
    else:
        verdict = f"The bid fails: {mention(bidder)} pays everyone."
    lines.append(verdict)
    if outcome.transfers:
        lines.append("Payments: " + "; ".join(
            f"{mention(t.payer)} → {mention(t.payee)} {units(t.units)}" for t in outcome.transfers))
    else:
        lines.append("No money changes hands (a push).")
    lines.append(salt_line(salt, commitment))
    return "\n".join(lines)


# -- the count's picture (adapters/pictures/count.py lays these words out and names nothing itself) ----
def _quantity(q: int, digit: int, order: RankOrder) -> str:
    return f"{q} {digit_name(digit, order) if q == 1 else digit_plural(digit, order)}"


def result_line(outcome: Mapping[str, Any], order: RankOrder = RankOrder.ZERO_LOW) -> str:
    """``5 zeros against a bid of 6 — not made`` (``made``, ``skunk``), from a stored outcome."""
    bid = outcome["final_bid"]
    count, q, d = int(outcome["count"]), int(bid["quantity"]), int(bid["digit"])
    if outcome.get("skunk"):
        verdict = "skunk"
    else:
        verdict = "made" if outcome["made"] else "not made"
    return f"{_quantity(count, d, order)} against a bid of {q} — {verdict}"


def count_picture_words(outcome: Mapping[str, Any], order: RankOrder, round_number: int | None) -> dict[str, str]:
    """Every word the count picture draws, for a stored outcome at a table with this digit order: each a
    template whose ``{bidder}``, ``{last}`` (the last challenger), ``{payer}``, ``{payees}``, ``{payers}``,
    ``{payee}`` (display names) and ``{units}`` the picture fills in."""
    bid = outcome["final_bid"]
    q, d = int(bid["quantity"]), int(bid["digit"])
    multiplier = str(outcome.get("multiplier_text") or f"×{outcome.get('multiplier', 1)}")
    return {
        "title": "The count" + (f" — round {round_number}" if round_number is not None else ""),
        "final_bid": f"Final bid: {_quantity(q, d, order)} by {{bidder}}",
        "last": ", challenged last by {last}",
        "held": digit_plural(d, order),  # the column of each bill's copies of the digit
        "net": "net",
        "bidder": "bidder",
        "result": result_line(outcome, order),
        # a failed bid pays one stake whatever its size (RULES): no multiplier to show
        "multiplier": (f"Multiplier {multiplier}" if outcome.get("made") or outcome.get("skunk")
                       else "No multiplier: a failed bid pays one stake"),
        "pays": "{payer} pays {units} to {payees}",
        "pays_each": "{payer} pays {units} each to {payees}",
        "paid": "{payers} pays {payee} {units}",
        "paid_each": "{payers} pay {payee} {units} each",
        "no_payments": "No payments: a push.",
    }

"""Every word the bot says, written once.  Adapters only render these messages.

Privacy rule: a serial appears only in a message addressed to its holder (``to=holder``) until the
count; :func:`count_message` reveals all of them, with the fairness salt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.serial import Bid, ChallengeMode, Outcome, Phase, Round, Serial, digit_name, digit_plural
from core.serial.odds import at_least, player_odds

from .model import Button, Message
from .table import ENDED, LOBBY, TableState

FINGERS = ("✊", "☝️", "✌️", "🤟", "🖖", "🖐️")

B_JOIN = Button("join", "Join", "primary")
B_LEAVE = Button("leave", "Leave", "secondary")
B_DEAL = Button("deal", "Deal", "success")
B_CHALLENGE = Button("challenge", "Challenge", "danger")
B_RAISE = Button("raise", "Raise…", "primary")
B_COUNT = Button("count", "Call the count", "success")
B_HAND = Button("hand", "My serial", "secondary")
B_ODDS = Button("odds", "Odds", "secondary")


def mention(player: str) -> str:
    return f"<@{player}>"


def units(n: int, settings: Mapping[str, Any] | None = None) -> str:
    """``3 units ($3.00)`` — money is integers: ``unit_value`` is in minor units (cents)."""
    text = f"{n} unit{'s' if abs(n) != 1 else ''}"
    if settings and settings.get("unit_value"):
        minor = n * int(settings["unit_value"])
        sign = "-" if minor < 0 else ""
        whole, cents = divmod(abs(minor), 100)
        text += f" ({sign}{settings.get('currency', '$')}{whole:,}.{cents:02d})"
    return text


def signed_units(n: int, settings: Mapping[str, Any] | None = None) -> str:
    return ("+" if n > 0 else "") + units(n, settings)


def fingers(count: int) -> str:
    if count == 0:
        return "✊ (none)"
    hands, rest = divmod(count, 5)
    return "🖐️" * hands + (FINGERS[rest] if rest else "")


def table_message(table: TableState, text: str, kind: str, **kw: Any) -> Message:
    return Message(key=table.key, text=text, kind=kind, names=dict(table.names), humans=table.humans, **kw)


def seat_list(table: TableState) -> str:
    parts = []
    for p in table.seats:
        tag = " (host)" if p == table.host else ""
        if table.is_computer(p):
            tag += " 🤖"
        if p in table.pending_leave:
            tag += " (leaving)"
        parts.append(f"{mention(p)}{tag}")
    return ", ".join(parts)


def lobby_message(table: TableState, fresh: bool = False) -> Message:
    if table.status == ENDED:
        return table_message(table, f"🃏 This table is closed. {table.ended_reason}".strip(), "lobby", panel="lobby")
    text = (
        f"🃏 **Liar's Poker** — {mention(table.host)} opened a table ({table.rules.preset}, "
        f"stake {units(table.rules.stake)}, up to {table.seat_limit} seats).\n"
        f"Seated ({len(table.seats)}/{table.seat_limit}): {seat_list(table)}\n"
        + ("Press **Join** to sit down; the host presses **Deal** to start." if table.status == LOBBY
           else "Play is under way.")
    )
    buttons = (B_JOIN, B_LEAVE, B_DEAL) if table.status == LOBBY else ()
    return table_message(table, text, "lobby", panel="lobby", fresh=fresh, buttons=buttons)


def table_panel(table: TableState, fresh: bool = False, note: str = "") -> Message:
    """The table message, edited in place as the round goes."""
    r = table.round
    assert r is not None
    log = table.current_log
    head = f"🃏 **Round {table.round_number}** — stake {units(r.stake)}"
    if log is not None:
        head += f" · commitment `{log.commitment[:16]}…`"
    lines = [head, f"Seats: {seat_list(table)}"]
    if r.is_over:
        lines.append("Counted — see the result below.")
        return table_message(table, "\n".join(lines), "table", panel="table", fresh=fresh)
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
        lines.append(f"{mention(to_act)}, you have been challenged all around: call the count or rebid.")
        buttons: tuple[Button, ...] = (B_COUNT, B_RAISE, B_HAND, B_ODDS)
    elif bid is None:
        lines.append(f"Your turn, {mention(to_act)}: make the opening bid.")
        buttons = (B_RAISE, B_HAND, B_ODDS)
    else:
        lines.append(f"Your turn, {mention(to_act)}: raise or challenge.")
        buttons = (B_CHALLENGE, B_RAISE, B_HAND, B_ODDS)
    return table_message(table, "\n".join(lines), "table", panel="table", fresh=fresh, buttons=buttons,
                         data={"to_act": to_act, "phase": r.phase.value, "note": note})


def turn_message(table: TableState) -> Message:
    """A small new message that pings the player to act (edits of the table panel notify nobody)."""
    r = table.live_round
    assert r is not None and r.to_act is not None
    player = r.to_act
    bid = r.standing_bid
    if r.phase is Phase.REBID:
        text = f"🔔 {mention(player)}, your {bid} is challenged all around: call the count or rebid."
    elif bid is None:
        text = f"🔔 {mention(player)}, you open round {table.round_number}."
    else:
        text = f"🔔 {mention(player)}, your turn: raise {bid} or challenge it."
    return table_message(table, text, "turn", panel="turn", replace=True, data={"to_act": player})


def deal_announcement(table: TableState) -> Message:
    r = table.round
    log = table.current_log
    assert r is not None and log is not None
    return table_message(
        table,
        f"🃏 Round {table.round_number} dealt to {len(r.players)} players. Fairness commitment "
        f"(SHA-256 over the serials and a secret salt): `{log.commitment}`. "
        f"Serials are sent privately; {mention(r.opener)} opens.",
        "deal",
    )


def serial_message(table: TableState, player: str, reminder: bool = False) -> Message:
    """The one message that carries a serial before the count: addressed to its holder only."""
    r = table.round
    log = table.current_log
    assert r is not None and log is not None
    serial = r.serials[player]
    text = (
        f"🔒 Your serial for round {table.round_number} at <#{table.key.channel_id}>: **{serial}**\n"
        f"Digits you hold: {holding_summary(serial, r)}.\n"
        f"Commitment: `{log.commitment}` — the salt is revealed at the count so you can check it."
    )
    if reminder:
        text = text.replace("🔒 Your serial", "🔒 Reminder — your serial", 1)
    return table_message(table, text, "serial", to=player, data={"serial": str(serial)})


def holding_summary(serial: Serial, r: Round) -> str:
    order = r.rules.rank_order
    held = [(serial.counts[d], d) for d in order.digits_low_to_high if serial.counts[d]]
    return ", ".join(f"{c}× {d}" for c, d in sorted(held, key=lambda x: (-x[0], -order.rank(x[1]))))


def odds_text(table: TableState, player: str) -> str:
    r = table.round
    assert r is not None
    serial = r.serials[player]
    n = len(r.players)
    bid = r.standing_bid
    order = r.rules.rank_order
    lines = [f"Your odds at {n} players (you hold {holding_summary(serial, r)}):"]
    rows = player_odds(serial, n)
    for d, held, probs in sorted(rows, key=lambda row: order.rank(row[0])):
        # show the quantities around where the bidding is
        start = held + 1
        if bid is not None:
            start = max(start, bid.quantity)
        qs = [q for q in range(start, min(start + 3, 8 * n) + 1)]
        parts = " · ".join(f"≥{q}: {probs[q - 1]:.0%}" for q in qs)
        lines.append(f"{digit_plural(d, order)} (hold {held}): {parts}")
    if bid is not None:
        held = serial.counts[bid.digit]
        p = probs_for(serial, n, bid)
        lines.append(f"The standing bid {bid} is true with probability {p:.1%} given your {held}.")
    return "\n".join(lines)


def probs_for(serial: Serial, n: int, bid: Bid) -> float:
    return at_least(bid.quantity - serial.counts[bid.digit], 8 * (n - 1))


def count_message(table: TableState, outcome: Outcome, settings: Mapping[str, Any]) -> Message:
    log = table.current_log
    assert log is not None
    bid, bidder = outcome.bid, outcome.bidder
    order = table.rules.rank_order
    there = (f"There is **1** {digit_name(bid.digit, order)}" if outcome.count == 1
             else f"There are **{outcome.count}** {digit_plural(bid.digit, order)}")
    lines = [f"🧮 **The count** — {mention(bidder)} bid **{bid}**. {there}: {fingers(outcome.count)}"]
    for p, serial in outcome.serials.items():
        lines.append(f"• {mention(p)}: `{serial}` ({serial.counts[bid.digit]})")
    if outcome.skunk:
        verdict = (f"Skunk! Nobody holds a {digit_name(bid.digit, order)}: {mention(bidder)} wins "
                   f"{outcome.multiplier_text()}.")
    elif outcome.made:
        verdict = f"The bid is made: {mention(bidder)} wins {outcome.multiplier_text()}."
    else:
        verdict = f"The bid fails: {mention(bidder)} pays everyone."
    lines.append(verdict)
    if outcome.transfers:
        lines.append(
            "Payments: "
            + "; ".join(
                f"{mention(t.payer)} → {mention(t.payee)} {units(t.units, settings)}" for t in outcome.transfers
            )
        )
    else:
        lines.append("No money changes hands (a push).")
    lines.append(f"Salt: `{log.salt}` — check: sha256 of the commitment JSON is `{log.commitment}`.")
    return table_message(table, "\n".join(lines), "count", data={"outcome": True})


def closed_message(table: TableState, reason: str) -> Message:
    return table_message(table, f"🃏 The table is closed: {reason}", "end")


def rules_text(table_rules: Any) -> str:
    text: str = table_rules.describe()
    if getattr(table_rules, "challenge_mode", None) is ChallengeMode.FIRST:
        text += " Anyone but the bidder may challenge at any moment."
    return text

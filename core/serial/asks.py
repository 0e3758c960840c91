"""What one player asks of the serial game privately: the Raise… form (the legal bids as a two-step
choice, quantity then digit), their odds, and a hint from the hard computer player."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..errors import ActionParseError, NotYourTurn, RoundOver, UnknownPlayer, quoted
from ..game import Form, FormField
from . import text as T
from .bids import digit_name, digit_plural
from .players import Strategy, get_strategy
from .round import Round
from .rules import RankOrder
from .view import seat_view

__all__ = ["advice", "private_read", "raise_form"]

# A strategy explains itself in the first person ("So I bid 4 zeros"); a hint advises the player.
_ADVICE = (
    (re.compile(r"\bSo I (bid|challenge|call|raise)\b"), r"You could \1"),
    (re.compile(r"\bI open with\b"), "You could open with"),
    (re.compile(r"\bI am\b"), "you are"),
    (re.compile(r"\bI\b"), "you"),
    (re.compile(r"\bMy\b"), "Your"),
    (re.compile(r"\bmy\b"), "your"),
    (re.compile(r"\bme\b"), "you"),
    (re.compile(r"(^|[.!?:] |\()you\b"), r"\1You"),
)


def advice(explained: str) -> str:
    """The hard player's first-person reasoning as advice to the person in its seat."""
    for pattern, repl in _ADVICE:
        explained = pattern.sub(repl, explained)
    return explained


def raise_form(round_: Round | None, player: str, players: Sequence[str], order: RankOrder) -> Form:
    """Quantities low to high, each with the digits (highest first) that beat the standing bid."""
    if round_ is None:
        return Form("bid", "Raise", refusal="No round is under way at this table.")
    if player not in players:
        refusal: str | None = "You are not seated at this table."
    elif round_.to_act != player:
        refusal = f"It is not your turn: {T.mention(round_.to_act or '')} is to act."
    else:
        refusal = None
    legal = round_.legal_actions().bids() if refusal is None else []
    by_quantity: dict[int, list[int]] = {}
    for bid in legal:  # low to high; the form lists digits highest first
        by_quantity.setdefault(bid.quantity, []).insert(0, bid.digit)
    quantities = sorted(by_quantity)  # every legal one: a platform shows what its menus hold (Discord 25, Slack 100)
    standing = round_.standing_bid
    intro = f"Standing bid: **{standing}**. Your bid must beat it." if standing is not None else \
        "No bid yet: make the opening bid."
    if refusal is None and not quantities:
        refusal = "There is no higher bid to make: challenge instead."
    return Form(
        "bid", "Raise",
        (FormField("quantity", "How many", tuple((str(q), str(q)) for q in quantities)),
         FormField("digit", "Of which digit", depends_on="quantity", options_by={
             str(q): tuple((str(d), f"{(digit_name if q == 1 else digit_plural)(d, order)} ({d})")
                           for d in by_quantity[q])  # "Bid 1 four", "Bid 2 fours", as a bid reads
             for q in quantities})),
        refusal=refusal, intro=intro, submit="Bid {quantity} {digit}")


def private_read(round_: Round | None, player: str, players: Sequence[str], verb: str,
                 adapt: Callable[[Strategy], Strategy] | None = None) -> str:
    """``odds`` (the player's odds for each digit) or ``hint`` (what the hard player would do, and why);
    ``adapt``: how the table's format changes the hard player (the elimination's, say)."""
    if round_ is None:
        raise RoundOver("no round is under way")
    if player not in players:
        raise UnknownPlayer(player)
    if verb == "odds":
        return T.odds_text(round_, player)
    if verb == "hint":
        if round_.to_act != player:
            raise NotYourTurn(player, round_.to_act or "")
        strategy = get_strategy("hard")
        said = (adapt(strategy) if adapt is not None else strategy).explain(seat_view(round_, player))
        for p in sorted(round_.players, key=len, reverse=True):  # the strategy speaks of seat ids
            said = re.sub(rf"(?<![\w<@]){re.escape(p)}(?!\w)", T.mention(p), said)
        return f"💡 {advice(said)}"
    raise ActionParseError(f"{quoted(verb)} is not something this game can show")

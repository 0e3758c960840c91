"""Every word the elimination format says (mentions as ``<@id>``, money as ``<$n>`` tokens)."""

from __future__ import annotations

from collections.abc import Sequence

from ...game import units
from .. import text as T
from ..bids import a_digit
from ..rules import Rules
from ..scoring import Outcome, Transfer

__all__ = ["end_text", "panel_head", "picture_words", "result_text", "standing_lines"]


def names(players: Sequence[str]) -> str:
    """Players as mentions, in the order given ("nobody" for none)."""
    return ", ".join(T.mention(p) for p in players) if players else "nobody"


def standing_lines(still_in: Sequence[str], safe: Sequence[str]) -> list[str]:
    """Who is still in and who has left safe (in the order they left)."""
    return [f"Still in ({len(still_in)}): {names(still_in)}", f"Left safe: {names(safe)}"]


def picture_words(words: dict[str, str], leaves: str | None, *, last: bool = False) -> dict[str, str]:
    """The count picture's words at an elimination: no round pays, so no multiplier line; a decided round
    names who leaves safe (``{leaves}``, the picture's display name), and only a push says it is one.  ``last``:
    the round that leaves one player in, who pays for dinner (the picture shows what to whom)."""
    money = ("One player is left, and pays for dinner." if last
             else "No money moves until one player is left, who pays for dinner.")
    return {**words, "multiplier": money,
            "no_payments": "{leaves} leaves safe." if leaves is not None
            else "A push: nobody leaves, and the round is played again."}


def panel_head(round_number: int, still_in: int) -> str:
    return f"🍽️ **Round {round_number}** — elimination: {still_in} still in, the last one left pays for dinner"


def dinner_text(payer: str, transfers: Sequence[Transfer], stake: int, *, walked_out: bool = False) -> str:
    """Who pays for dinner, and what to whom.  ``walked_out``: the payer left the table while still in (the
    others still in are paid as those who left safe are: they were not "left" behind)."""
    why = "walked out and" if walked_out else "is the last one left and"
    if not transfers:
        return f"🍽️ {T.mention(payer)} {why} **pays for dinner**."
    payees = [t.payee for t in transfers]
    each = "to each of " if len(payees) > 1 else "to "
    return f"🍽️ {T.mention(payer)} {why} **pays for dinner**: {units(stake)} {each}{names(payees)}."


def result_text(outcome: Outcome, rules: Rules, salt: str, commitment: str, last_challenger: str | None,
                leaves: str | None, still_in: Sequence[str]) -> str:
    """The count, then who leaves safe (or that the round is replayed), then who is still in."""
    lines = T.count_lines(outcome, rules, last_challenger)
    bidder = T.mention(outcome.bidder)
    if leaves is None:
        lines.append(f"Skunk! Nobody holds {a_digit(outcome.bid.digit, rules.rank_order)}: at three players "
                     "that is a push — nobody leaves, and the round is played again with fresh serials.")
    elif outcome.skunk:
        lines.append(f"Skunk! Nobody holds {a_digit(outcome.bid.digit, rules.rank_order)}: the bid counts as "
                     f"made, and {bidder} **leaves safe**.")
    elif outcome.made:
        lines.append(f"The bid is made: {bidder} **leaves safe**.")
    else:
        lines.append(f"The bid fails: {T.mention(leaves)} challenged it first and **leaves safe**.")
    lines.append(f"Still in: {names(still_in)}.")
    lines.append(T.salt_line(salt, commitment))
    return "\n".join(lines)


def end_text(payer: str) -> str:
    """Why the table is over: who pays (the amounts are in the dinner's own message)."""
    return f"the elimination is over: {T.mention(payer)} pays for dinner."


def walked_text(walked: Sequence[str], payer: str) -> str:
    others = [p for p in walked if p != payer]
    also = ""
    if len(others) == 1:
        also = f" ({names(others)} walked out too, and neither pays nor is paid)"
    elif others:
        also = f" ({names(others)} walked out too, and neither pay nor are paid)"
    return f"🚪 {T.mention(payer)} left the table while still in the game and so pays for dinner{also}."

"""Every word the card game says: platform-neutral text, players mentioned as ``<@id>``.

Nothing here ever names the cards of a hand in a public line before a challenge shows it: hands appear
only in :func:`private_hand` (for its holder) and :func:`challenge_text` (the reveal).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card, pretty
from .declarations import Declaration, with_article
from .hands import HandValue
from .match import Transfer
from .round import Challenged, Declared, Discarded, Passed, ThrownIn

__all__ = [
    "PICTURE_WORDS",
    "abandoned_text",
    "challenge_text",
    "deal_text",
    "declared_text",
    "discarded_text",
    "end_text",
    "hand_words",
    "mention",
    "passed_text",
    "private_hand",
    "thrown_in_text",
    "took_text",
    "transfers_text",
    "units",
    "value_words",
]

# Every word the challenge picture draws (adapters/pictures/challenge.py lays them out and names nothing
# itself): templates whose {active}, {challenger}, {out} (display names), {declared} and {value} (the
# declaration and the hand's value in words) the picture fills in; "joker" is drawn on a joker's face.
PICTURE_WORDS: dict[str, str] = {
    "title": "Challenge: {challenger} calls {active}",
    "claim": "{active} declared “{declared}”",
    "floor": "floor:",
    "floor_note": "the lowest hand that tells the truth",
    "shows": "{active} shows:",
    "value": "The hand is {value}",
    "holds": "It holds",
    "fails": "It does not hold",
    "out": " — {out} is out",
    "wrong": "{challenger} was wrong to challenge.",
    "right": "{challenger} was right to challenge.",
    "joker": "JOKER",
}


def mention(player: str) -> str:
    return f"<@{player}>"


def units(n: int) -> str:
    return f"{n} unit{'s' if n != 1 else ''}"


def value_words(value: HandValue) -> str:
    """A hand's value in words: ``a pair of sevens with queen-six-two kickers``, ``two pair, …``."""
    words = Declaration(value.type, value.ranks).name()
    if words.startswith(("two pair", "three", "four", "five", "full house")):
        return words
    return with_article(words)  # "an ace-king-… high", "a pair of aces"


def hand_words(cards: Sequence[Card], value: HandValue) -> str:
    return f"{pretty(cards)} ({value_words(value)})"


def deal_text(round_no: int, opener: str, commitment: str) -> str:
    return (
        f"Round {round_no}: a fresh deck is shuffled (commitment `{commitment}`). "
        f"{mention(opener)} draws five cards and declares."
    )


def private_hand(cards: Sequence[Card], value: HandValue, *, may_discard: bool) -> str:
    tail = " You may discard and draw once, then declare." if may_discard else " Declare what it holds (or bluff)."
    return f"Your hand at <#table>: {hand_words(cards, value)}.{tail}"  # which table: one may play at several


def passed_on_hand(cards: Sequence[Card], value: HandValue) -> str:
    """What the player who declared last holds, asked for (``hand``) while the next player decides."""
    return f"The hand you passed on at <#table>: {hand_words(cards, value)}. The next move is not yours."


def declared_text(event: Declared) -> str:
    who = mention(event.player)
    if event.took:
        head = f"{who} kept all five and declares" if not event.drew else f"{who} drew {event.drew} and declares"
    else:
        head = f"{who} declares"
    d = event.declaration
    return f"{head} **{d.name()}** (at least {d.floor_text()}). {mention(event.next_to_act)} is under the gun."


def took_text(player: str) -> str:
    return f"{mention(player)} took the hand."


def discarded_text(event: Discarded) -> str:
    text = f"{mention(event.player)} discarded {event.count} and drew {event.count}."
    if event.reshuffled:
        text += " The deck ran out: the discards were shuffled into a new deck."
    return text


def passed_text(event: Passed) -> str:
    text = f"{mention(event.player)} passes (their one pass this game)."
    if event.next_to_act is not None:
        text += f" {mention(event.next_to_act)} is under the gun."
    return text


def thrown_in_text(event: ThrownIn) -> str:
    return (
        f"Everyone else passed: the hand is thrown in. {mention(event.player)} draws five new cards and declares "
        "again from the bottom."
    )


def challenge_text(event: Challenged, next_opener: str | None) -> str:
    d = event.declaration
    verdict = (
        f"It is as good as declared: {mention(event.challenger)} is out."
        if event.holds
        else f"It is not as declared: {mention(event.active)} is out."
    )
    text = (
        f"{mention(event.challenger)} challenges {mention(event.active)}'s **{d.name()}** (at least "
        f"{d.floor_text()}). The hand: {hand_words(event.hand, event.value)}. {verdict}"
    )
    if next_opener is not None:
        text += f" {mention(next_opener)} opens the next round."
    return text


def salt_line(salt: str, commitment: str) -> str:
    """The round's shuffle revealed at its challenge: with the deck (in ``export``) anyone can check it."""
    return (f"Salt: `{salt}` — check: sha256 of the JSON {{\"deck\": the round's shuffled deck (in `export`), "
            f"\"salt\"}} is the commitment `{commitment}`.")


def transfers_text(transfers: Sequence[Transfer]) -> str:
    return " ".join(f"{mention(t.payer)} pays {mention(t.payee)} {units(t.units)}." for t in transfers)


def abandoned_text(payout: str) -> str:
    """The end of a game everyone still in it left at once: no winner."""
    paid = "what each challenge paid stands" if payout == "knockout" else "nobody pays"
    return f"Everyone still in the game has left the table: the game ends with no winner, and {paid}."


def end_text(winner: str, transfers: Sequence[Transfer]) -> str:
    text = f"{mention(winner)} is the last player standing and wins the game!"
    if transfers:
        text += " " + transfers_text(transfers)
    return text

"""The conformance scripts: hand-written ones for each kind of command, and a seeded generator.

A script names seats, not platform ids; its dynamic steps read the table's state (identical on every
surface, each dealt from the same seed) to choose a card to discard or the number to guess.
"""

from __future__ import annotations

import random

from bot.model import TableKey
from bot.service import Service
from core.cards.declarations import Declaration
from core.cards.round import Round as CardsRound
from core.serial.bids import digit_plural
from core.serial.elimination import EliminationMatch
from core.serial.rules import RankOrder
from tests.conformance.guess import GuessMatch
from tests.conformance.surfaces import Item, Script, Step
from tests.typed import cards_round


def lobby(*start_words: str) -> tuple[Item, ...]:
    """Seat 0 opens (with these words), seat 1 joins by command, seat 2 by button, seat 0 deals by button."""
    return (Step(0, "start", start_words), Step(1, "join"), Step(2, "join", via="button"),
            Step(0, "deal", via="button"))


def bid(q: int, d: int, via: str, order: RankOrder = RankOrder.ZERO_LOW, who: int | str = "turn") -> Step:
    """A bid by options (``quantity``/``digit``, ints) whose words are the digits; by text in words."""
    if via == "text":
        return Step(who, "bid", (str(q), digit_plural(d, order)), via="text")
    return Step(who, "bid", (str(q), str(d)), {"quantity": q, "digit": d}, via=via)


def every_digit(order: RankOrder, via: str) -> Script:
    """Each digit 0-9 as a bid, in the rank order's order, at one quantity; then a raise and the count."""
    digits = sorted(range(10), key=order.rank)
    steps: list[Item] = [*lobby(f"rank-order={order.value}")]
    steps += [bid(2, d, via, order) for d in digits]
    steps += [bid(3, digits[0], via, order), Step("turn", "challenge", via="button"), Step("turn", "challenge")]
    return Script(f"digits-{order.value}-{via}", seed=11, items=tuple(steps))


def _round(service: Service, key: TableKey) -> CardsRound:
    return cards_round(service.table(key))


def declare_least(via: str) -> Item:
    def step(service: Service, key: TableKey) -> Step:
        least: Declaration = _round(service, key).least_raise()
        if via == "form":
            holder = _round(service, key).to_act
            assert holder is not None
            table = service.table(key)
            assert table is not None and table.match is not None
            form = table.match.form(holder, "declare")  # the form's choices, as the service draws them
            kind, _ = form.fields[0].options[0]
            ranks, _ = form.fields[1].options_by[kind][0]
            chosen = Declaration.from_json({"type": kind, "ranks": [] if ranks == "any" else ranks.split("-")})
            return Step("turn", "declare", tuple(chosen.name().split()), {"type": kind, "ranks": ranks}, via="form")
        return Step("turn", "declare", tuple(least.name().split()))
    return step


def discard_two(service: Service, key: TableKey) -> Step:
    """The first two cards as people type them: the rank's letter and the suit's symbol (``T♥``: it was refused),
    then the suit as Slack sends an emoji typed in a command (``7:hearts:``)."""
    hand = _round(service, key).hand
    first, second = str(hand[0]), str(hand[1])
    symbol = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[first[-1]]
    shortcode = {"C": ":clubs:", "D": ":diamonds:", "H": ":hearts:", "S": ":spades:"}[second[-1]]
    return Step("turn", "discard", (first[:-1] + symbol, second[:-1] + shortcode))


def card_game() -> Script:
    """Every move of the card game: declare by text, bare text and form, take (button), discard, pass,
    challenge; and its refusals: out of turn, an unknown card, a declaration that is not one.  Declarations as
    people write them: "T high" (ten high, which the terminal once took for `take`), "2 pair" (two pair, once
    read as a pair of twos)."""
    steps: list[Item] = [
        *lobby("game=cards", "pass=on"),
        Step("turn", "declare", ("flibber",)),  # not a declaration
        Step("turn", "declare", ("T", "high"), via="bare"),
        Step("other", "take"),  # out of turn
        Step("turn", "take", via="button"),
        Step("turn", "discard", ("ZZ",)),  # not a card
        discard_two,
        Step("turn", "declare", ("pair", "of", "3s")),
        Step("turn", "pass", via="button"),
        Step("turn", "take"),
        Step("turn", "declare", ("2", "pair")),  # above a pair of threes only as two pair
        Step("turn", "take", via="button"),
        declare_least("form"),
        Step("turn", "challenge"),
    ]
    return Script("cards", seed=5, items=tuple(steps))


def table_and_books() -> Script:
    """Every table command and every report, with the refusals they give."""
    steps: list[Item] = [
        Step(1, "rules"), Step(1, "help"), Step(0, "status"),
        Step(0, "start", ("stake=2",)), Step(0, "start"),  # a second table here is refused
        Step(1, "join"), Step(1, "join"), Step(2, "join", via="button"),
        Step(1, "deal"),  # only the host deals
        Step(0, "config"), Step(1, "config", ("turn_timeout=120",)), Step(0, "config", ("turn_timeout=120",)),
        Step(0, "kick", ("@2",)), Step(0, "join"), Step(2, "join"),
        Step(0, "deal", via="button"),
        Step(2, "hand"), Step(1, "hand", via="button"), Step(1, "odds"), Step("turn", "hint"), Step(0, "status"),
        Step(0, "rules"), Step(1, "help"), Step(1, "help", ("bid",)), Step(1, "help", ("cards",)),
        Step(1, "help", ("flibber",)), Step(2, "end"), Step(1, "leave"), Step(1, "last"), Step(0, "last"),
        bid(1, 5, "text"), Step("turn", "challenge"), Step("turn", "count"), Step("turn", "challenge"),
        Step(0, "ledger"), Step(1, "sheet"), Step(1, "sheet", ("1999-13",)),
        Step(2, "stats"), Step(2, "stats", ("@0",)),
        Step(1, "leaderboard"), Step(1, "leaderboard", ("all", "money")), Step(1, "leaderboard", ("flibber",)),
        Step(0, "history"), Step(1, "export"),
        Step(0, "end"),  # the last hand closed the table
    ]
    return Script("table-and-books", seed=3, items=tuple(steps))


def bad_input() -> Script:
    """Wrong turn, a bid that does not raise, garbage, quantity 0, a player not seated, no table."""
    steps: list[Item] = [
        Step(1, "bid", ("1", "5")), Step(1, "challenge"),  # no table
        Step(0, "start"), Step(1, "join"), Step(0, "deal", via="button"),  # seat 2 never joins
        bid(3, 7, "options"),
        Step("other", "bid", ("4", "1")),  # out of turn
        Step("turn", "bid", ("3", "6")), bid(2, 9, "text"),  # do not raise (a form offers only raises)
        Step("turn", "bid", ("flibber",)), Step("turn", "bid", ("flibber",), via="bare"),
        Step("turn", "bid", ("0", "5")), Step("turn", "bid", ("five",)),
        Step(2, "bid", ("9", "9")), Step(2, "hand"),  # not seated
        Step("turn", "count"),  # no count to call
        Step("turn", "declare", ("two", "pair")),  # another game's move
        bid(4, 7, "options"), Step("turn", "challenge"),
    ]
    return Script("bad-input", seed=7, items=tuple(steps))


def generated(seed: int) -> Script:
    """A seeded random session: bids that raise or not, by the player to act or another, by text, by
    words, bare in the terminal; challenges by button or command; calls for the count."""
    rng = random.Random(seed)
    order = rng.choice(list(RankOrder))
    steps: list[Item] = [*lobby(f"rank-order={order.value}", rng.choice(["rebid=on", "rebid=off"]))]
    quantity = 1
    for _ in range(rng.randrange(8, 16)):
        roll = rng.random()
        who: int | str = "other" if rng.random() < 0.15 else "turn"
        if roll < 0.6:
            quantity = max(1, quantity + rng.choice([-1, 0, 0, 1, 1, 2]))
            digit = rng.randrange(10)
            via = rng.choice(["text", "words", "bare"])
            if via == "text":
                steps.append(bid(quantity, digit, "text", order, who))
            else:
                steps.append(Step(who, "bid", (str(quantity), str(digit)), via="bare" if via == "bare" else "text"))
        elif roll < 0.9:
            steps.append(Step(who, "challenge", via=rng.choice(["text", "button"])))
        else:
            steps.append(Step(who, "count"))
    return Script(f"generated-{seed}", seed=seed, items=tuple(steps))


def guess_game() -> Script:
    """The made-up third game through every surface: its verb by text, options, form and bare text."""
    def the_number(service: Service, key: TableKey) -> Step:
        table = service.table(key)
        assert table is not None and isinstance(table.match, GuessMatch)
        secret = table.match.secret
        assert secret is not None  # dealt
        return Step("turn", "guess", (str(secret),), {"number": secret}, via="options")

    steps: list[Item] = [
        *lobby("game=guess"),
        Step(1, "help"), Step(1, "rules"),
        # (no guess out of range: Discord's client sends no number outside its option's range, which the fake
        # Discord now holds its tests to)
        Step("other", "guess", ("3",)),  # out of turn
        Step("turn", "bid", ("3", "7")),  # another game's move
        Step("turn", "guess", ("1",), {"number": 1}, via="options"),
        Step("turn", "guess", ("20",), {"number": 20}, via="form"),
        Step("turn", "guess", ("2",), via="bare"),
        the_number,
        Step(0, "history"), Step(0, "end"),
    ]
    return Script("guess", seed=13, items=tuple(steps))


def serial_by_form_and_options() -> Script:
    """The serial game by its Raise… form (Discord's selects, Slack's modal) and by options, at both ends of
    the bids: the least (one zero, the form's first choice), one more than every serial holds (3 × 8 + 1:
    refused), the largest (24 nines); `start` and `config` with their options typed (Discord's integers)."""
    steps: list[Item] = [
        Step(0, "start", ("classic", "stake=2", "seats=3"), {"preset": "classic", "stake": 2, "seats": 3},
             via="options"),
        Step(1, "join"), Step(2, "join", via="button"), Step(0, "deal", via="button"),
        Step("turn", "bid", ("1", "0"), {"quantity": 1, "digit": 0}, via="form"),
        Step("turn", "bid", ("1", "9"), {"quantity": 1, "digit": 9}, via="options"),
        Step("turn", "bid", ("2", "7’s")),  # a phone's apostrophe
        Step("turn", "bid", ("twenty", "five", "zeros")),  # three serials hold 24 digits
        Step("turn", "bid", ("24", "9"), {"quantity": 24, "digit": 9}, via="form"),
        Step("turn", "bid", ("24", "9")),  # nothing is higher
        Step("turn", "challenge", via="button"), Step("turn", "challenge"),
        Step(1, "config", ("turn_timeout=90",), {"turn_timeout": 90}, via="options"),  # not an admin
        Step(0, "config", ("preset=salomon", "stake=3", "unit_value=0.25", "currency=EUR", "turn_timeout=90"),
             {"preset": "salomon", "stake": 3, "unit_value": "0.25", "currency": "EUR", "turn_timeout": 90},
             via="options"),
        Step(0, "config"), Step(0, "status"), Step(0, "end"),
    ]
    return Script("serial-forms", seed=17, items=tuple(steps))


def _seat_of(service: Service, key: TableKey, player: str) -> int:
    table = service.table(key)
    assert table is not None
    return list(table.seats).index(player)  # seats in the order they were taken: the surface's people


def elimination() -> Script:
    """Who pays for dinner, start to payer: `last` refused, a round decides who leaves safe, the safe player's
    bid refused, the two left play it out; the books after."""
    def safe_player_bids(service: Service, key: TableKey) -> Step:
        table = service.table(key)
        assert table is not None and isinstance(table.match, EliminationMatch)
        return Step(_seat_of(service, key, table.match.safe[0]), "bid", ("9", "9"))

    steps: list[Item] = [
        Step(0, "start", ("format=elimination", "stake=2"), {"format": "elimination", "stake": 2}, via="options"),
        Step(1, "join"), Step(2, "join", via="button"), Step(0, "deal", via="button"),
        Step(0, "last"),  # an elimination has no last round: it ends at its payer
        bid(1, 0, "options"), Step("turn", "challenge", via="button"), Step("turn", "challenge"),
        safe_player_bids,
        bid(1, 0, "text"), Step("turn", "challenge", via="button"),
        Step(0, "ledger"), Step(1, "history"), Step(2, "stats"),
    ]
    return Script("elimination", seed=19, items=tuple(steps))


def discard_by_form(service: Service, key: TableKey) -> Step:
    """Discard… by its form (Discord's toggles, Slack's checkboxes): the last card, and every joker — two alike,
    which the form tells apart as ``JK`` and ``JK#2`` and the terminal takes as typed, ``JK JK``."""
    hand = [str(card) for card in _round(service, key).hand]
    chosen = [i for i, card in enumerate(hand) if card == "JK"]
    assert len(chosen) == 2, hand  # the script's seed deals both jokers to this hand
    chosen.append(len(hand) - 1)
    values = [f"{hand[i]}#{hand[:i].count(hand[i]) + 1}" if hand[:i].count(hand[i]) else hand[i] for i in chosen]
    return Step("turn", "discard", tuple(hand[i] for i in chosen), {"cards": " ".join(values)}, via="form")


def cards_wild_and_thrown_in() -> Script:
    """The card game's wild preset (two jokers, one pass each) with `start`'s options typed: a hand every other
    player passes is thrown in (its declarer draws five new cards and declares again); a pass is refused to one
    who has passed; Discard… by form; every card of a wild hand typed back (jokers included) is refused once
    the discard is used."""
    def every_card(service: Service, key: TableKey) -> Step:
        return Step("turn", "discard", tuple(str(c) for c in _round(service, key).hand))

    steps: list[Item] = [
        Step(0, "start", ("cards", "wild", "stake=2"), {"game": "cards", "preset": "wild", "stake": 2},
             via="options"),
        Step(1, "join"), Step(2, "join", via="button"), Step(0, "deal", via="button"),
        Step("turn", "declare", ("T", "high")),
        Step("turn", "pass", via="button"), Step("turn", "pass"),  # thrown in
        Step("turn", "declare", ("J", "high")),
        Step("turn", "pass"),  # this player has passed once this game
        Step("turn", "take", via="button"),
        discard_by_form,
        every_card,  # the discard is used
        declare_least("text"),
        Step("turn", "challenge"),
    ]
    return Script("cards-wild", seed=4, items=tuple(steps))


def twelve_seats() -> Script:
    """A full table: twelve people, each bidding once (quantities up to 12; the Raise… form's first 25 of 96
    quantities on Discord), then the largest bid (96 nines: every digit of twelve serials), and eleven
    challenges bring the count."""
    steps: list[Item] = [
        Step(0, "start", ("seats=12",), {"seats": 12}, via="options"),
        *(Step(i, "join", via="button" if i % 2 else "text") for i in range(1, 12)),
        Step(11, "join"),  # already seated
        Step(0, "deal", via="button"),
    ]
    for q in range(1, 12):
        via = ("form", "options", "text")[q % 3]
        steps.append(Step("turn", "bid", (str(q), "0"), {"quantity": q, "digit": 0}, via=via))
    steps += [Step("turn", "bid", ("97", "0")), Step("turn", "bid", ("96", "9"))]
    steps += [Step("turn", "challenge", via="button" if i % 2 else "text") for i in range(11)]
    steps += [Step(0, "history"), Step(0, "end")]
    return Script("twelve-seats", seed=29, items=tuple(steps))


def words_people_send() -> Script:
    """Options as people send them where a surface offers them or the other commands take them: the format every
    game plays (`rounds`) for the card game, which has no other; a preset only one game has (`wild`) naming its
    game; a list of admins with a space after its comma (Slack's mention picker leaves one); a report's words
    named, as `start` and `config` take theirs."""
    steps: list[Item] = [
        Step(0, "start", ("game=cards", "format=elimination"), {"game": "cards", "format": "elimination"},
             via="options"),  # the card game has no elimination
        Step(0, "start", ("game=cards", "format=rounds"), {"game": "cards", "format": "rounds"}, via="options"),
        Step(0, "end"),
        Step(0, "start", ("wild",), {"preset": "wild"}, via="options"),
        Step(0, "status"), Step(0, "end"),
        Step(1, "config", ("turn_timeout=120",)),  # not an admin yet
        Step(0, "config", ("admins=@1,", "@2")),
        Step(1, "config", ("turn_timeout=120",)), Step(2, "config", ("lobby_timeout=120",)),
        Step(0, "leaderboard", ("game=cards",)), Step(0, "leaderboard", ("by=money", "period=all")),
    ]
    return Script("words-people-send", seed=31, items=tuple(steps))

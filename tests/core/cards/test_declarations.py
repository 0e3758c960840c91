"""Declarations: the parser, the spoken form, floors (against enumeration), order and legality."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cards.cards import JOKER, Card, full_deck
from core.cards.declarations import Declaration
from core.cards.errors import DeclarationParseError, ImpossibleDeclaration
from core.cards.hands import RANK_COUNT, WORST, HandType, HandValue, evaluate, values_of
from core.errors import ActionParseError, GameError

T = HandType


@pytest.mark.parametrize(
    ("text", "kind", "ranks"),
    [
        ("two pair", T.TWO_PAIR, ()),
        ("sevens over threes", T.TWO_PAIR, (7, 3)),
        ("two pair, sevens over threes", T.TWO_PAIR, (7, 3)),
        ("sevens over threes with a jack kicker", T.TWO_PAIR, (7, 3, 11)),
        ("king-ten high", T.HIGH_CARD, (13, 10)),
        ("king high", T.HIGH_CARD, (13,)),
        ("7-6 high", T.HIGH_CARD, (7, 6)),
        ("pair of aces", T.PAIR, (14,)),
        ("pair", T.PAIR, ()),
        ("trip fours", T.THREE_OF_A_KIND, (4,)),
        ("three of a kind", T.THREE_OF_A_KIND, ()),
        ("full house eights over fours", T.FULL_HOUSE, (8, 4)),
        ("eights full of fours", T.FULL_HOUSE, (8, 4)),
        ("straight to the nine", T.STRAIGHT, (9,)),
        ("nine-high straight", T.STRAIGHT, (9,)),
        ("straight", T.STRAIGHT, ()),
        ("red flush", T.COLOUR_FLUSH, ()),
        ("black flush", T.COLOUR_FLUSH, ()),
        ("colour flush", T.COLOUR_FLUSH, ()),
        ("color flush", T.COLOUR_FLUSH, ()),
        ("flush", T.FLUSH, ()),
        ("ace-high flush", T.FLUSH, (14,)),
        ("royal flush", T.STRAIGHT_FLUSH, (14,)),
        ("four of a kind", T.FOUR_OF_A_KIND, ()),
        ("four jacks", T.FOUR_OF_A_KIND, (11,)),
        ("five of a kind", T.FIVE_OF_A_KIND, ()),
        ("straight flush to the 9", T.STRAIGHT_FLUSH, (9,)),
        ("Seven-Six High", T.HIGH_CARD, (7, 6)),
        ("three fours with ace-king kickers", T.THREE_OF_A_KIND, (4, 14, 13)),
        ("pair of 10s", T.PAIR, (10,)),
        ("red straight flush to the ten", T.COLOUR_STRAIGHT_FLUSH, (10,)),
        ("a-k high", T.HIGH_CARD, (14, 13)),
        ("quad kings", T.FOUR_OF_A_KIND, (13,)),
        ("five aces", T.FIVE_OF_A_KIND, (14,)),
        ("2 pair", T.TWO_PAIR, ()),  # two pair, as written: not a pair of twos
        ("2 pairs, sevens over threes", T.TWO_PAIR, (7, 3)),
        ("pair of 2s", T.PAIR, (2,)),
        ("3 of a kind", T.THREE_OF_A_KIND, ()),
        ("4 of a kind", T.FOUR_OF_A_KIND, ()),
        ("5 of a kind", T.FIVE_OF_A_KIND, ()),
        ("red royal flush", T.COLOUR_STRAIGHT_FLUSH, (14,)),
        ("black straight flush to the ace", T.COLOUR_STRAIGHT_FLUSH, (14,)),
        # the letter A is the ace, as K, Q, J and T are theirs (it was dropped as an article: "A K high" went
        # out as king high); before a hand or a rank spelled out, "a" is still the article
        ("pair of A", T.PAIR, (14,)),
        ("straight to the A", T.STRAIGHT, (14,)),
        ("A K high", T.HIGH_CARD, (14, 13)),
        ("two pair A over K", T.TWO_PAIR, (14, 13)),
        ("full house A over K", T.FULL_HOUSE, (14, 13)),
        ("flush, A high", T.FLUSH, (14,)),
        ("pair of 7s with an A kicker", T.PAIR, (7, 14)),
        ("a pair of aces", T.PAIR, (14,)),
        ("a king high", T.HIGH_CARD, (13,)),
        ("a high card", T.HIGH_CARD, ()),  # the type (it read ace high, a far bigger claim)
        ("A high card", T.HIGH_CARD, ()),
        ("a high card, ace high", T.HIGH_CARD, (14,)),
        ("A high", T.HIGH_CARD, (14,)),
        ("I have a pair of sixes", T.PAIR, (6,)),
        ("a red flush", T.COLOUR_FLUSH, ()),
        ("a straight to the nine", T.STRAIGHT, (9,)),
        ("sevens over threes with a jack kicker", T.TWO_PAIR, (7, 3, 11)),
        ("pair of Ks", T.PAIR, (13,)),
        ("pair of As", T.PAIR, (14,)),
        ("pair of 7's", T.PAIR, (7,)),
        ("Js over Ts", T.TWO_PAIR, (11, 10)),
        # ...and before a rank written in digits "a" is the article (it read "a 7 high" as ace-seven high)
        ("a 7 high", T.HIGH_CARD, (7,)),
        ("a 3 of a kind", T.THREE_OF_A_KIND, ()),
        ("a 2 pair", T.TWO_PAIR, ()),
        ("a 7 high flush", T.FLUSH, (7,)),
        ("a 10 high straight", T.STRAIGHT, (10,)),
        ("a 7s full of 3s", T.FULL_HOUSE, (7, 3)),
        ("I have a 7 high", T.HIGH_CARD, (7,)),
        # ...but after a hand's words "A 8" is ace and eight (the article reading put "two pair A 8" at eights up)
        ("two pair A 8", T.TWO_PAIR, (14, 8)),
        ("two pair, A 8", T.TWO_PAIR, (14, 8)),
        ("full house A 3", T.FULL_HOUSE, (14, 3)),
        ("pair of A, 7 kicker", T.PAIR, (14, 7)),
        # (session 31) one kicker after a rank and "a" is that kicker, not the ace and it ("ace-nine kickers")
        ("pair of 7s, a 9 kicker", T.PAIR, (7, 9)),
        ("pair of kings, a q kicker", T.PAIR, (13, 12)),
        ("three kings, a j kicker", T.THREE_OF_A_KIND, (13, 11)),
        ("pair of 7s a 10 kicker", T.PAIR, (7, 10)),
        ("pair of 7s, A 9 kickers", T.PAIR, (7, 14, 9)),  # two kickers: the ace and the nine
        # a second rank in the plural after a pair is a second pair, not a kicker
        ("pair of aces and eights", T.TWO_PAIR, (14, 8)),
        ("a pair of eights and aces", T.TWO_PAIR, (14, 8)),
        ("pair of aces with eights", T.TWO_PAIR, (14, 8)),
        ("pair of aces with an eight kicker", T.PAIR, (14, 8)),
        # "at least" in the player's words is theirs; only the table's echoed floor is dropped
        ("I have at least a pair of kings", T.PAIR, (13,)),
        ("pair of kings — at least K-K-4-3-2", T.PAIR, (13,)),
        ("A 8 high", T.HIGH_CARD, (14, 8)),  # "a 8" is no article ("an 8"): the ace, as in "A T high"
        ("flush, A 9 high", T.FLUSH, (14, 9)),
        ("high card A 10", T.HIGH_CARD, (14, 10)),
        ("pair of 10s, A 5 kickers", T.PAIR, (10, 14, 5)),
        # (session 32) "a kicker" in lower case names no rank: it was read as an ace kicker (a bigger claim)
        ("pair of kings with a kicker", T.PAIR, (13,)),
        ("pair of kings, a kicker", T.PAIR, (13,)),
        ("Pair of Kings with a Kicker", T.PAIR, (13,)),
        ("three aces with a kicker", T.THREE_OF_A_KIND, (14,)),
        ("pair of kings with A kicker", T.PAIR, (13, 14)),  # the capital: the ace
        ("pair of kings with an A kicker", T.PAIR, (13, 14)),
        # how many kickers, not a rank ("no hand is pair of sevens with a three kicker")
        ("pair of sevens with three kickers", T.PAIR, (7,)),
        ("three sevens with 2 kickers", T.THREE_OF_A_KIND, (7,)),
        ("two pair, kings and fours with one kicker", T.TWO_PAIR, (13, 4)),
        ("pair of sevens with a king and two kickers", T.PAIR, (7, 13)),
        # (session 37's review) kickers named in a list before the count count too
        ("pair of sevens with king, queen and one kicker", T.PAIR, (7, 13, 12)),
        ("pair of sevens with a king, a queen and one kicker", T.PAIR, (7, 13, 12)),
        ("pair of sevens with king and queen and one kicker", T.PAIR, (7, 13, 12)),
        ("pair of sevens, king and two kickers", T.PAIR, (7, 13)),
        ("pair of sevens with two kickers, king and queen", T.PAIR, (7, 13, 12)),  # the count says the list
        ("pair of aces with one kicker, a king", T.PAIR, (14, 13)),
        ("pair of aces with a four kicker", T.PAIR, (14, 4)),  # one kicker named: the four (A-A-4-3-2)
        ("one pair", T.PAIR, ()),  # poker's name ("I don't know the word 'one'")
        ("one pair of kings", T.PAIR, (13,)),
    ],
)
def test_the_parser_reads_what_people_type(text: str, kind: HandType, ranks: tuple[int, ...]) -> None:
    assert Declaration.parse(text) == Declaration(kind, ranks)


@pytest.mark.parametrize(
    ("text", "kind", "ranks"),
    [  # two groups said one by one: each was read as the first group with the second's rank a kicker
        ("three kings and a pair of queens", T.FULL_HOUSE, (13, 12)),
        ("a pair of queens and three kings", T.FULL_HOUSE, (13, 12)),
        ("three sevens and two fours", T.FULL_HOUSE, (7, 4)),
        ("two fours and three sevens", T.FULL_HOUSE, (7, 4)),
        ("two kings and two queens", T.TWO_PAIR, (13, 12)),
        ("two queens and two kings", T.TWO_PAIR, (13, 12)),
        ("a pair of aces and a pair of eights", T.TWO_PAIR, (14, 8)),
        ("full house, three kings and two queens", T.FULL_HOUSE, (13, 12)),
        ("three of a kind, three sevens", T.THREE_OF_A_KIND, (7,)),  # one group said twice
        ("four kings and an ace", T.FOUR_OF_A_KIND, (13, 14)),
        ("full house, two queens and three kings", T.FULL_HOUSE, (13, 12)),  # the kind said too: the same hand
        ("two pair, two queens and two kings", T.TWO_PAIR, (13, 12)),
        ("A full of fours", T.FULL_HOUSE, (14, 4)),  # the ace, not the article
        ("a full house", T.FULL_HOUSE, ()),
    ],
)
def test_two_groups_said_one_by_one_make_the_hand_they_make(text: str, kind: HandType,
                                                            ranks: tuple[int, ...]) -> None:
    assert Declaration.parse(text) == Declaration(kind, ranks)


@pytest.mark.parametrize(
    ("text", "kind", "ranks"),
    [  # each refused, or read as another claim, before (a review found them)
        ("flush with two aces", T.FLUSH, (14, 14)),  # was "flush, ace high": A-6-4-3-2, not A-A-… (a joker's)
        ("red flush with two kings", T.COLOUR_FLUSH, (13, 13)),
        ("two pair 3s and 7s", T.TWO_PAIR, (7, 3)),  # in either order where no "over" says which is higher
        ("3 fours", T.THREE_OF_A_KIND, (4,)),  # a count in figures, before a rank said in the plural
        ("4 nines", T.FOUR_OF_A_KIND, (9,)),
        ("2 aces", T.PAIR, (14,)),
        ("3 kings and 2 queens", T.FULL_HOUSE, (13, 12)),
        ("queens up", T.TWO_PAIR, (12,)),
        ("seven–six high", T.HIGH_CARD, (7, 6)),  # an en dash
        ("seven—six high", T.HIGH_CARD, (7, 6)),  # an em dash, as phones write "--": it was cut there
        ("two pair, sevens over threes — at least 7-7-3-3-2", T.TWO_PAIR, (7, 3)),  # the table's echo, still
        ("pair of sevens with a king kicker", T.PAIR, (7, 13)),
        ("three of a kind with kings", T.THREE_OF_A_KIND, (13,)),  # "with kings": the three, not a kicker
        ("pair of 7s with a K kicker", T.PAIR, (7, 13)),  # "a" before a rank's letter: the article (was A-K)
        ("three 7s with a Q kicker", T.THREE_OF_A_KIND, (7, 12)),
        ("a pair of 7s and a K kicker", T.PAIR, (7, 13)),
        ("pair of kings with A kicker", T.PAIR, (13, 14)),  # the ace, said by its letter
        # after "and", "a" before a figure is the article, as after "with" (it was the ace: a bigger claim)
        ("three 7s and a 9 kicker", T.THREE_OF_A_KIND, (7, 9)),
        ("pair of jacks and a 10", T.PAIR, (11, 10)),
        ("pair of jacks with a 9 and a 7", T.PAIR, (11, 9, 7)),  # (refused: "nine-ace-seven kickers")
        # a capital A opening a list of kickers is the ace, as "with A-Q-J" is (it was dropped: a smaller claim)
        ("pair of tens with A K J", T.PAIR, (10, 14, 13, 11)),
        ("three kings with A Q kickers", T.THREE_OF_A_KIND, (13, 14, 12)),
        ("pair of 9s with A 10 8", T.PAIR, (9, 14, 10, 8)),
        ("pair of kings and A Q J", T.PAIR, (13, 14, 12, 11)),
        ("PAIR OF KINGS WITH A Q KICKER", T.PAIR, (13, 12)),  # shouted: no word's case tells anything
        ("Three Sevens With A 9 Kicker", T.THREE_OF_A_KIND, (7, 9)),  # nor every word capitalised
        ("Pair Of Queens With A J Kicker", T.PAIR, (12, 11)),
        ("pair of kings with A 9 kicker", T.PAIR, (13, 9)),  # one kicker: "A" is its article
        ("three sevens with A K J", T.THREE_OF_A_KIND, (7, 13, 11)),  # three kickers make no hand: the article
        ("pair of jacks with A Q kickers", T.PAIR, (11, 14, 12)),
        ("two pair, aces and kings and a queen", T.TWO_PAIR, (14, 13, 12)),  # a kicker after both pairs
        # "and a" names a kicker only after a plural, in a hand that has kickers: these read as before
        ("full house, kings and a queen", T.FULL_HOUSE, (13, 12)),
        ("a full house, aces and an eight", T.FULL_HOUSE, (14, 8)),
        ("three kings and a queen full house", T.FULL_HOUSE, (13, 12)),
        ("straight and a king high", T.STRAIGHT, (13,)),
        ("a king pair and a queen pair", T.TWO_PAIR, (13, 12)),
        ("two pair: a king and a seven", T.TWO_PAIR, (13, 7)),
        ("two pair, K and a Q", T.TWO_PAIR, (13, 12)),
        ("pair of aces and a king", T.PAIR, (14, 13)),
        # a lower-case "a" after a rank, before another, is the article (the ace: a bigger claim, or too many ranks)
        ("pair of 7s, a 9", T.PAIR, (7, 9)),
        ("three queens, a 5", T.THREE_OF_A_KIND, (12, 5)),
        ("pair of kings, a Q", T.PAIR, (13, 12)),
        ("a pair of 4s, a 9 and a seven", T.PAIR, (4, 9, 7)),
        ("three 7s, a 9 and a 5", T.THREE_OF_A_KIND, (7, 9, 5)),
        ("two sixes, a Q, a 5 and a four", T.PAIR, (6, 12, 5, 4)),
        ("pair of threes, an A, a 10 and a two", T.PAIR, (3, 14, 10, 2)),
        ("pair of 7s A 9", T.PAIR, (7, 14, 9)),  # a capital A: the ace
        ("pair of 7s, a 8", T.PAIR, (7, 14, 8)),  # "a 8" is no English: the ace
        # a capital A opening a list of kickers in words (it was dropped); one word after it: the article
        ("pair of tens with A, king and jack", T.PAIR, (10, 14, 13, 11)),
        ("pair of tens with A king jack", T.PAIR, (10, 14, 13, 11)),
        ("pair of tens with A king", T.PAIR, (10, 13)),
    ],
)
def test_what_people_type_is_read_as_they_mean_it(text: str, kind: HandType, ranks: tuple[int, ...]) -> None:
    assert Declaration.parse(text) == Declaration(kind, ranks)


@pytest.mark.parametrize(
    "text",
    ["pair with a king kicker", "pair, ace kicker", "two pair, jack kicker", "two pair with an ace",
     "three of a kind with an ace kicker", "four of a kind with a king kicker",
     # "and a king" after two pair: a kicker, as "with a king" is (it was read as a second pair, kings: a bigger claim)
     "two pair and a king", "two pair, aces and a king", "two pair, kings and an ace", "aces up and a king",
     "2 pair aces and a king"],
)
def test_a_kicker_said_without_the_groups_rank_is_refused(text: str) -> None:
    """ "pair with a king kicker" was read as a pair of kings (floor K-K-4-3-2): a bigger claim than was made."""
    with pytest.raises(DeclarationParseError, match="before its kicker"):
        Declaration.parse(text)


@pytest.mark.parametrize(
    "text", ["five of a kind with an ace kicker", "five of a kind, king kicker", "full house with a king kicker",
             "straight with a king kicker", "straight flush, ace kicker"],
)
def test_a_kicker_of_a_hand_that_has_none_is_refused(text: str) -> None:
    """ "five of a kind with an ace kicker" was five aces, "full house with a king kicker" kings full."""
    with pytest.raises(DeclarationParseError, match="has no kicker"):
        Declaration.parse(text)


@pytest.mark.parametrize(
    ("text", "held"),
    [("pair of sevens with two kickers", "a pair has three kickers, not 'two': like 'pair of sevens with three "
      "kickers'"),
     ("pair of sevens with 4 kickers", "a pair has three kickers, not '4'"),
     ("three sevens with one kicker", "a three of a kind has two kickers, not 'one'"),
     ("three sevens with a king and three kickers", "a three of a kind has two kickers, not 'three'"),
     ("two pair, kings and fours with two kickers", "a two pair has one kicker, not 'two'"),
     ("four aces with 2 kickers", "a four of a kind has one kicker, not '2'"),
     ("full house, kings full of twos with two kickers", "a full house has no kicker")],
)
def test_a_count_of_kickers_the_hand_does_not_have_is_refused(text: str, held: str) -> None:
    """(session 37) "pair of sevens with two kickers" was taken as a pair of sevens: the count was skipped."""
    with pytest.raises(DeclarationParseError) as refused:
        Declaration.parse(text)
    assert str(refused.value).startswith(held), refused.value


@pytest.mark.parametrize("text", ["three pair", "four pairs", "full of fours", "three kings and four queens",
                                  "a pair of aces and three kings and two queens"])
def test_a_count_that_makes_no_hand_is_refused(text: str) -> None:
    """ "three pair" was a pair of threes, "full of fours" fours full."""
    with pytest.raises(DeclarationParseError):
        Declaration.parse(text)


def test_the_structured_form() -> None:
    d = Declaration.from_json({"type": "two-pair", "ranks": ["7", "3", "J"]})
    assert d == Declaration(T.TWO_PAIR, (7, 3, 11))
    assert d.to_dict() == {"type": "two-pair", "ranks": ["7", "3", "J"]}
    assert Declaration.from_json({"type": "pair", "ranks": ["10"]}) == Declaration(T.PAIR, (10,))
    assert Declaration.from_json("king high") == Declaration(T.HIGH_CARD, (13,))


@pytest.mark.parametrize(
    "text", ["", "a big hand", "two pair and a flush", "red pair", "sevens over banana", "7 8 9", "x" * 5000,
             "pair of " + "y" * 5000]
)
def test_text_that_is_no_declaration_is_refused_with_a_message(text: str) -> None:
    with pytest.raises(DeclarationParseError) as info:
        Declaration.parse(text)
    assert isinstance(info.value, ActionParseError) and 0 < len(str(info.value)) < 250


@pytest.mark.parametrize(
    "text",
    ["sevens over sevens", "pair of fours with a four kicker", "threes over sevens", "straight to the four",
     "four aces with an ace kicker", "king-king high"],
)
def test_a_declaration_no_hand_satisfies_is_refused(text: str) -> None:
    with pytest.raises(ImpossibleDeclaration) as info:
        Declaration.parse(text)
    assert isinstance(info.value, GameError)


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("two pair", "two pair — at least 3-3-2-2-4"),
        ("sevens over threes", "two pair, sevens over threes — at least 7-7-3-3-2"),
        ("king high", "king high — at least K-5-4-3-2"),
        ("seven-six high", "seven-six high — at least 7-6-4-3-2"),
        ("colour flush", "colour flush — at least 5-4-3-2-2 of one colour"),
        ("straight", "straight — at least 5-4-3-2-A"),
        ("three of a kind", "three of a kind — at least 2-2-2-4-3"),
        ("royal flush", "royal flush — at least A-K-Q-J-10 of one suit"),
        ("five of a kind", "five of a kind — at least 2-2-2-2-JK"),
        ("ace-ace high flush", "flush, ace-ace high — at least A-JK-6-3-2 of one suit"),  # a joker where it plays
        ("ace-ace-jack high flush", "flush, ace-ace-jack high — at least A-JK-J-3-2 of one suit"),
    ],
)
def test_str_speaks_the_declaration_with_its_floor(text: str, spoken: str) -> None:
    assert str(Declaration.parse(text)) == spoken


def test_the_seeds_floors() -> None:
    assert Declaration.parse("two pair").floor == HandValue(T.TWO_PAIR, (3, 2, 4))
    assert Declaration.parse("sevens over threes").floor == HandValue(T.TWO_PAIR, (7, 3, 2))
    # Bart may say anything but threes over twos after Annie's "two pair"
    two_pair = Declaration.parse("two pair")
    assert not Declaration(T.TWO_PAIR, (3, 2)).beats(two_pair)
    assert Declaration(T.TWO_PAIR, (3, 2, 5)).beats(two_pair)
    assert Declaration(T.TWO_PAIR, (4,)).beats(two_pair)
    assert Declaration.parse("sevens over threes with a jack kicker").beats(Declaration.parse("sevens over threes"))
    assert Declaration.parse("three of a kind").beats(Declaration.parse("aces over kings with a queen kicker"))
    assert Declaration.parse("king-ten high").beats(Declaration.parse("king high"))
    assert not Declaration.parse("queen-jack high").beats(Declaration.parse("king-ten high"))


def test_seven_six_high_is_the_lowest_opening() -> None:
    assert Declaration.parse("seven-six high").beats(None)
    assert not Declaration.parse("seven high").beats(None)
    assert not Declaration(T.HIGH_CARD, (7, 5, 4, 3, 2)).beats(None)
    assert Declaration.parse("seven-six high").floor > WORST


def _all_declarations() -> list[Declaration]:
    out: list[Declaration] = []
    for kind in HandType:
        prefixes = {v[:n] for v in values_of(kind) for n in range(RANK_COUNT[kind] + 1)}
        out.extend(Declaration(kind, p) for p in prefixes)
    return out


ALL = _all_declarations()
declarations = st.sampled_from(ALL)


@settings(max_examples=300, deadline=None)
@given(declarations)
def test_str_round_trips(d: Declaration) -> None:
    assert Declaration.parse(str(d)) == d
    assert Declaration.parse(d.name()) == d
    assert Declaration.from_json(d.to_dict()) == d


@settings(max_examples=300, deadline=None)
@given(declarations, declarations)
def test_declaration_order_is_total_and_agrees_with_floors(a: Declaration, b: Declaration) -> None:
    assert (a < b) + (a == b) + (a > b) == 1
    if a.floor < b.floor:
        assert a < b and b.beats(a) and not a.beats(b)
    if a.floor == b.floor:
        assert not a.beats(b) and not b.beats(a)


@settings(max_examples=300, deadline=None)
@given(declarations, st.lists(st.sampled_from(full_deck(2)), min_size=5, max_size=5))
def test_a_hand_holds_a_declaration_iff_its_value_reaches_the_floor(d: Declaration, cards: list[Card]) -> None:
    if cards.count(JOKER) > 2 or len({c for c in cards if not c.is_joker}) != sum(not c.is_joker for c in cards):
        return
    value = evaluate(cards)
    assert d.held_by(value) == (value >= d.floor)
    assert d.held_by(d.floor)  # the floor itself satisfies the declaration
    assert d.floor.type is d.type and d.floor.ranks[: len(d.ranks)] == d.ranks


def _enumerated(ranks: tuple[int, ...], jokers: int) -> set[HandValue]:
    deck = [c for c in full_deck(0) if c.rank in ranks] + [JOKER] * jokers
    return {evaluate(list(h)) for h in set(combinations(deck, 5))}


@pytest.mark.parametrize(("ranks", "jokers"), [((2, 3, 4, 5, 6, 14), 0), ((2, 3, 4, 5, 14), 1)])
def test_floors_are_the_lowest_hands_by_enumeration(ranks: tuple[int, ...], jokers: int) -> None:
    """Every value of every hand drawn from a small deck; each declaration whose floor lies in that
    deck must have it as the lowest such value of its type and prefix."""
    values = _enumerated(ranks, jokers)
    allowed = set(ranks)
    checked = 0
    for d in ALL:
        floor_cards = d.floor_cards
        if any(c.rank not in allowed and not c.is_joker for c in floor_cards) or (
            sum(c.is_joker for c in floor_cards) > jokers
        ):
            continue
        matching = [v for v in values if v.type is d.type and v.ranks[: len(d.ranks)] == d.ranks]
        assert matching and min(matching) == d.floor, d
        checked += 1
    assert checked > 100


def test_joker_only_declarations_are_marked() -> None:
    assert Declaration.parse("five of a kind").needs_joker
    assert Declaration(T.FLUSH, (14, 14)).needs_joker
    assert not Declaration.parse("ace-high flush").needs_joker
    assert [Declaration(T.FLUSH, r).jokers_needed for r in [(14,), (14, 14), (14, 14, 14)]] == [0, 1, 2]
    assert Declaration.parse("five of a kind").jokers_needed == 1


@pytest.mark.parametrize("end", ["?", "!", ".", "…", "?!"])
@pytest.mark.parametrize("text", ["two pair", "pair of kings", "three sevens", "aces over kings", "a high card"])
def test_a_declaration_ending_in_a_question_or_a_phones_ellipsis_is_the_same(text: str, end: str) -> None:
    """"two pair?" was "I don't know the word 'pair?'", though "pair of kings!" was read."""
    assert Declaration.parse(text + end) == Declaration.parse(text)

"""Bids: frozen values, totally ordered under a rank order; a parser for what people type."""

from __future__ import annotations

import itertools

import pytest

from core.serial import Bid, BidParseError, GameError, RankOrder, digit_name, digit_plural

ZL, ZH, AH = RankOrder.ZERO_LOW, RankOrder.ZERO_HIGH, RankOrder.ACES_HIGH


@pytest.mark.parametrize(
    ("text", "quantity", "digit"),
    [
        ("5 7", 5, 7),
        ("5x7", 5, 7),
        ("5 x 7", 5, 7),
        ("5×7", 5, 7),
        ("5X7", 5, 7),
        ("5 7s", 5, 7),
        ("5 7's", 5, 7),
        ("5 sevens", 5, 7),
        ("five sevens", 5, 7),
        ("FIVE Sevens", 5, 7),
        ("  five   sevens. ", 5, 7),
        ("six 6s", 6, 6),
        ("six sixes", 6, 6),
        ("2 zeros", 2, 0),
        ("2 zeroes", 2, 0),
        ("7 tens", 7, 0),
        ("seven Tens", 7, 0),
        ("3 aces", 3, 1),
        ("3 ACES", 3, 1),
        ("one nine", 1, 9),
        ("a nine", 1, 9),
        ("ten tens", 10, 0),
        ("twenty-one threes", 21, 3),
        ("12 of 4s", 12, 4),
        # as phones type them: a curly apostrophe, dashes for hyphens, a question mark; two words for a number
        ("2 7’s", 2, 7),
        ("2 7‘s", 2, 7),
        ("5x7’s", 5, 7),
        ("twenty–five sevens", 25, 7),
        ("twenty—five sevens", 25, 7),
        ("twenty‑five sevens", 25, 7),
        ("twenty five sevens", 25, 7),
        ("5 nines?", 5, 9),
        ("5 x7", 5, 7),  # a space on one side of the x ("can't read 'x7' as a digit")
        ("5x 7", 5, 7),
        ("5 * 7s", 5, 7),
        ("5x sevens", 5, 7),  # "can't read 'sevens' as a digit"... of "5x"
        ("5 × zeros", 5, 0),
        ("10X 0s", 10, 0),
    ],
)
def test_parse_reads_what_people_type(text: str, quantity: int, digit: int) -> None:
    bid = Bid.parse(text)
    assert (bid.quantity, bid.digit) == (quantity, digit)


@pytest.mark.parametrize("order", list(RankOrder))
def test_parse_keeps_the_tables_rank_order(order: RankOrder) -> None:
    assert Bid.parse("7 tens", order) == Bid(7, 0, order)
    assert Bid.parse("3 aces", order).order is order


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "57",
        "5",
        "sevens",
        "five",
        "0 7",
        "zero sevens",
        "5 77",
        "5 sevenz",
        "-1 7",
        "5 -7",
        "5 7 8",
        "5 sevens please",
        "hello world",
        "7 eleven",
        "1.5 7",
        "² 7",  # a "digit" to str.isdigit() that int() refuses
        "٣ 7",  # Arabic-Indic three: int() reads it, but the digit itself is ASCII only, so is the quantity
        "１ 7",  # a full-width one
        "1" * 5000 + " 7",  # longer than int()'s digit limit
        "challenge",
        "5x",
        "2*3*4",  # three numbers (was "can't read '3*4' as a digit")
        "5xsevens",
        "5 xylophones",
        "x7",
        "twenty zero sevens",  # no number: "twenty" and "zero" are two
        "twenty ten sevens",
        "five twenty sevens",
        "5 7’’s",
        "twenty a sevens",  # "a" is one, but not a number's second word
        "twenty single sevens",
    ],
)
def test_parse_rejects_anything_else_with_bid_parse_error(text: str) -> None:
    with pytest.raises(BidParseError) as err:
        Bid.parse(text)
    if text in ("2*3*4", "5xsevens", "5 xylophones"):  # named whole, or by the word that is no digit
        assert repr(text) in str(err.value) or "'xylophones'" in str(err.value), str(err.value)
    assert isinstance(err.value, ValueError) and isinstance(err.value, GameError)
    assert err.value.code == "bad-bid"
    assert 0 < len(str(err.value)) < 200  # what was typed is quoted back cut to 40 characters


@pytest.mark.parametrize(
    ("bid", "text"),
    [
        (Bid(3, 0, ZL), "3 zeros"),
        (Bid(1, 0, ZL), "1 zero"),
        (Bid(2, 1, ZL), "2 ones"),
        (Bid(1, 7, ZL), "1 seven"),
        (Bid(6, 6, ZL), "6 sixes"),
        (Bid(7, 0, ZH), "7 tens"),
        (Bid(1, 0, ZH), "1 ten"),
        (Bid(2, 1, ZH), "2 ones"),
        (Bid(3, 1, AH), "3 aces"),
        (Bid(1, 1, AH), "1 ace"),
        (Bid(4, 0, AH), "4 tens"),
        (Bid(4, 9, AH), "4 nines"),
    ],
)
def test_str_speaks_the_tables_naming(bid: Bid, text: str) -> None:
    assert str(bid) == text
    assert Bid.parse(text, bid.order) == bid


def test_digit_names() -> None:
    assert [digit_name(d, ZL) for d in (0, 1)] == ["zero", "one"]
    assert [digit_name(d, ZH) for d in (0, 1)] == ["ten", "one"]
    assert [digit_name(d, AH) for d in (0, 1)] == ["ten", "ace"]
    assert digit_plural(6, ZL) == "sixes" and digit_plural(1, AH) == "aces" and digit_plural(0, ZH) == "tens"


# -- order --------------------------------------------------------------------------------------
def test_a_higher_quantity_beats_any_digit() -> None:
    assert Bid(4, 3) > Bid(3, 9)  # "Four 3s" beats "Three 9s"
    assert Bid(4, 0, ZL) > Bid(3, 9, ZL)


def test_same_quantity_higher_rank_beats() -> None:
    assert Bid(3, 9) > Bid(3, 7)  # "Three 9s" beats "Three 7s"
    assert not Bid(3, 7) > Bid(3, 7)
    assert Bid(3, 7) >= Bid(3, 7) and Bid(3, 7) <= Bid(3, 7)


def test_zero_is_low_only_under_zero_low() -> None:
    assert Bid(3, 0, ZL) < Bid(3, 1, ZL)
    assert Bid(3, 0, ZH) > Bid(3, 9, ZH)
    assert Bid(3, 1, ZH) < Bid(3, 2, ZH)


def test_aces_high_puts_one_above_ten_above_nine() -> None:
    assert Bid(3, 1, AH) > Bid(3, 0, AH) > Bid(3, 9, AH) > Bid(3, 2, AH)
    assert Bid(4, 2, AH) > Bid(3, 1, AH)


@pytest.mark.parametrize("order", list(RankOrder))
def test_every_bid_has_a_dense_id_that_is_its_place_in_the_order(order: RankOrder) -> None:
    bids = [Bid(q, d, order) for q in range(1, 97) for d in order.digits_low_to_high]
    assert [b.id for b in bids] == list(range(len(bids)))
    assert all(a < b for a, b in itertools.pairwise(bids))
    assert sorted(reversed(bids)) == bids
    assert all(Bid.from_id(b.id, order) == b for b in bids)
    assert Bid.from_id(5000, order) == Bid(501, order.digits_low_to_high[0], order)


def test_bids_under_different_orders_do_not_compare() -> None:
    with pytest.raises(TypeError):
        _ = Bid(3, 0, ZL) < Bid(3, 0, ZH)
    assert Bid(3, 0, ZL) != Bid(3, 0, ZH)


def test_bids_do_not_compare_with_other_types() -> None:
    with pytest.raises(TypeError):
        _ = Bid(3, 5) < 3
    with pytest.raises(TypeError):
        _ = Bid(3, 5) >= (3, 5)
    assert Bid(3, 5) != (3, 5)


# -- value semantics ------------------------------------------------------------------------------
def test_bids_are_frozen() -> None:
    bid = Bid(3, 5)
    with pytest.raises(AttributeError):
        bid.quantity = 4
    with pytest.raises(AttributeError):
        bid.id = 0
    assert bid == Bid(3, 5) and bid.id == Bid(3, 5).id


def test_equal_bids_hash_equal() -> None:
    assert len({Bid(3, 5), Bid(3, 5), Bid.parse("three fives"), Bid(3, 6)}) == 2


@pytest.mark.parametrize(("quantity", "digit"), [(0, 5), (-1, 5), (3, 10), (3, -1)])
def test_a_bid_value_needs_a_positive_quantity_and_a_digit(quantity: int, digit: int) -> None:
    with pytest.raises(BidParseError):
        Bid(quantity, digit)


def test_bid_record_form() -> None:
    assert Bid(5, 7).as_list() == [5, 7]
    assert repr(Bid(5, 7, ZH)) == "Bid(5, 7, 'zero-high')"


@pytest.mark.parametrize("end", ["?", "!", ".", "…", "...", "?!"])
@pytest.mark.parametrize("text", ["5 sevens", "1 zero", "16 nines", "3x4"])
def test_a_bid_ending_in_a_question_or_a_phones_ellipsis_is_the_same_bid(text: str, end: str) -> None:
    """"5 sevens…" (a phone's "...") was "can't read 'sevens…' as a digit"."""
    assert Bid.parse(text + end) == Bid.parse(text)

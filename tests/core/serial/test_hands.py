"""Hand classes (:mod:`core.serial.hands`): checked against every serial of small formats, dealt out in full."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from core.serial import Serial, make_rules
from core.serial.hands import HandClasses, hand_classes, hand_order


@pytest.mark.parametrize(("digits", "length"), [(2, 2), (3, 2), (3, 3), (4, 4), (5, 5), (6, 3)])
def test_the_classes_and_weights_are_those_of_every_serial_dealt_out(digits: int, length: int) -> None:
    classes = HandClasses(make_rules("classic", digits=digits, serial_length=length))
    assert classes.size == math.comb(length + digits - 1, digits - 1)
    tally = Counter(
        classes.hand_of(Serial("".join(map(str, s))))
        for s in itertools.product(classes.digits, repeat=length)
    )
    assert set(tally) == set(range(classes.size))
    assert classes.weights == pytest.approx([tally[h] / digits**length for h in range(classes.size)], abs=1e-15)
    for h, serial in enumerate(classes.serials):  # each representative is of its own class
        assert classes.hand_of(serial) == h and len(serial.digits) == length


def test_the_order_is_descending_and_shared() -> None:
    hands = hand_classes(3, 3)
    assert hands[0] == (3, 0, 0) and hands[-1] == (0, 0, 3)
    assert list(hands) == sorted(hands, reverse=True)
    order = hand_order(3, 3)
    assert [order[h] for h in hands] == list(range(len(hands)))
    order[hands[0]] = 99  # each caller gets its own dict
    assert hand_order(3, 3)[hands[0]] == 0

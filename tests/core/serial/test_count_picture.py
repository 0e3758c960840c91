"""The count's picture data says the table's digit order, so the picture names the digits as the table
does ("tens", "aces") without reading it back from English text."""

from __future__ import annotations

from typing import Any

import pytest

from core.game import SayKind
from core.serial import Serial, make_rules
from core.serial.fairness import commitment
from core.serial.plugin import SERIAL
from core.serial.rules import RankOrder

SALT = "5a17"


def _count_picture(order: RankOrder, **options: Any) -> dict[str, Any]:
    players = ["p1", "p2"]
    match = SERIAL.new_match(make_rules("classic", rank_order=order.value, **options), players, host="p1")
    serials = {"p1": str(Serial.parse("10000000")), "p2": str(Serial.parse("20000000"))}
    match.apply_deal({"serials": serials, "opener": "p1", "stake": 1, "salt": SALT,
                      "commitment": commitment(players, serials, SALT)})
    match.apply(match.parse("p1", "bid", ["2", "0"], {}))
    step = match.apply(match.parse("p2", "challenge", [], {}))
    [result] = [say for say in step.says if say.kind == SayKind.RESULT]
    assert result.picture is not None
    return dict(result.picture)


@pytest.mark.parametrize("order", list(RankOrder))
@pytest.mark.parametrize("fmt", ["classic", "elimination"])
def test_the_count_picture_carries_the_tables_rank_order(order: RankOrder, fmt: str) -> None:
    options = {"format": "elimination"} if fmt == "elimination" else {}
    picture = _count_picture(order, **options)
    assert picture["game"] == "serial" and picture["rank_order"] == order.value
    assert picture["record"]["outcome"]["final_bid"] == {"player": "p1", "quantity": 2, "digit": 0}

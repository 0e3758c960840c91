"""The count's picture data carries the game's words, which name the digits as the table does ("tens",
"aces"): the picture only lays them out."""

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
    assert picture["game"] == "serial"
    ten = {RankOrder.ZERO_LOW: "zero", RankOrder.ZERO_HIGH: "ten", RankOrder.ACES_HIGH: "ten"}[order]
    assert picture["words"]["held"] == f"{ten}s"
    assert picture["words"]["final_bid"] == f"Final bid: 2 {ten}s by {{bidder}}"
    assert picture["words"]["result"] == f"14 {ten}s against a bid of 2 — made"  # 10000000 and 20000000
    assert picture["words"]["title"] == "The count — round 1"
    assert picture["record"]["outcome"]["final_bid"] == {"player": "p1", "quantity": 2, "digit": 0}

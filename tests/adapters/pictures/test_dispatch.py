"""``adapters.pictures.render``: every picture a message can carry, drawn from the data the service
sends (the games' and the reports' shapes), equal to the goldens drawn from the same data directly."""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from adapters import pictures
from adapters.console.app import ConsoleNotifier
from adapters.pictures.samples import challenge_example, count_example, count_picture_example, names_example
from bot.model import Message, MessageKind, TableKey
from core.serial.rules import RankOrder
from core.serial.text import count_picture_words
from tests.adapters.pictures.cases import CASES, golden_path, ledger_nets, matches

KEY = TableKey("local", "local", "terminal")


def test_the_count_from_the_games_picture_data_matches_its_golden() -> None:
    png = pictures.render(count_picture_example(), {p: n for p, n in names_example().items() if p != "p4"})
    assert matches(png, golden_path("count").read_bytes())
    assert pictures.filename(count_picture_example()) == "count-1.png"


def test_names_fill_in_what_the_cards_picture_leaves_as_ids() -> None:
    data = challenge_example()
    data["names"] = {"dirk": "dirk", "ellie": "ellie"}  # the game knows ids only
    png = pictures.render(data, {"dirk": "Dirk", "ellie": "Ellie"})
    assert matches(png, golden_path("challenge").read_bytes())
    assert not matches(pictures.render(data), golden_path("challenge").read_bytes())


def test_charts_from_the_reports_data_match_their_goldens() -> None:
    nets = {"chart": "nets", "nets": ledger_nets()}
    assert matches(pictures.render(nets, names_example()), CASES["nets"]())
    assert pictures.kind(nets) == "nets" and pictures.filename(nets) == "nets.png"


@pytest.mark.parametrize("bad", [{}, {"game": "serial"}, {"chart": "pie"}, {"floor": []}])
def test_an_unknown_picture_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        pictures.render(bad)


async def test_the_console_writes_the_picture_next_to_the_database_and_prints_its_path(tmp_path: Path) -> None:
    out = io.StringIO()
    notifier = ConsoleNotifier(out, "you", tmp_path, "liars")
    names = {p: n for p, n in names_example().items() if p != "p4"}
    await notifier.deliver([Message(KEY, "The count", MessageKind.RESULT, names=names,
                                    picture=count_picture_example())])
    await notifier.deliver([Message(KEY, "The count again", MessageKind.RESULT, names=names,
                                    picture=count_picture_example())])
    first, second = tmp_path / "liars-count-1.png", tmp_path / "liars-count-1-2.png"
    assert f"The count\n🖼  Picture: {first}\n\n" in out.getvalue() and f"Picture: {second}" in out.getvalue()
    assert matches(first.read_bytes(), golden_path("count").read_bytes())


async def test_the_console_prints_the_text_alone_when_a_picture_fails(tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    out = io.StringIO()
    notifier = ConsoleNotifier(out, "you", tmp_path)
    broken = Message(KEY, "Nets", MessageKind.INFO, picture={"chart": "nets", "nets": {"a": "many"}})
    with caplog.at_level(logging.WARNING, logger="adapters.console"):
        await notifier.deliver([broken])
    assert out.getvalue() == "Nets\n\n" and os.listdir(tmp_path) == []
    [warning] = [r for r in caplog.records if r.name.startswith("adapters.console")]
    assert warning.levelno == logging.WARNING and "many" not in warning.getMessage()


def test_the_count_names_digits_in_the_order_the_game_says() -> None:
    """The game's words name its digits: the same count at a zero-high table says "tens" (its header and
    result line), so it is drawn differently; it is drawn as render_count draws it."""
    words = count_picture_words(count_example()["outcome"], RankOrder.ZERO_HIGH, 1)
    low, high = count_picture_example(), {**count_picture_example(), "words": words}
    names = names_example()
    assert not matches(pictures.render(high, names), pictures.render(low, names))
    data = {**count_example(), "names": {p: names[p] for p in ("p1", "p2", "p3")}, "words": words}
    assert pictures.render(high, names) == pictures.render_count(data)

"""The table's words that name a game's things are built from the games' declarations (``Game.hand``,
``Game.formats``), so ``bot/`` and the adapters name no game's words: with the built-in games they read
as before, and a plug-in's own words join them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest

from adapters.discord.render import TEXT, hand_button
from bot.commands import commands, hand_labels
from core.commands import CommandSpec, Section
from core.registry import register, unregister
from tests.conformance.guess import GuessGame


class TilesGame(GuessGame):  # the made-up game, here dealing hidden tiles and with a format of its own
    name = "tiles"
    title = "Tiles"
    hand: CommandSpec | None = CommandSpec("hand", "show me my tiles again, privately", Section.READ,
                                           changes=False, label="My tiles")
    formats: Mapping[str, str] = {"usual": "the usual game", "sprint": "three rounds only: then it ends"}


@pytest.fixture
def tiles() -> Iterator[None]:
    register(TilesGame())
    yield
    unregister("tiles")


def test_the_built_in_games_words_read_as_before() -> None:
    specs = commands()
    assert specs["hand"].help == "show me my serial (or my cards) again, privately"
    assert "[level] [format=elimination] [option=value ...]" in specs["start"].help
    [fmt] = [p for p in specs["start"].params if p.name == "format"]
    assert fmt.help == "How the table plays: rounds (default) or elimination, who pays for dinner"
    assert hand_labels() == ("My serial", "My hand")
    assert hand_button(None) == "**My serial** (or **My hand**)"  # a table whose button is not known yet
    assert hand_button("My hand") == "**My hand**"
    assert TEXT["press_hand"].format(players="<@1>", hand=hand_button("My serial")) == (
        "<@1>: here I can only answer you, not write to you: press **My serial** on the table message to see "
        "yours, privately.")


def test_a_plug_ins_hand_and_formats_join_the_tables_words(tiles: None) -> None:
    specs = commands()
    assert specs["hand"].help == "show me my serial (or my cards, or my tiles) again, privately"
    assert "[format=elimination|sprint]" in specs["start"].help
    [fmt] = [p for p in specs["start"].params if p.name == "format"]
    assert fmt.help == ("How the table plays: rounds (default) or elimination, who pays for dinner or sprint, "
                        "three rounds only")
    assert hand_labels() == ("My serial", "My hand", "My tiles")
    assert hand_button(None) == "**My serial** (or **My hand**, or **My tiles**)"

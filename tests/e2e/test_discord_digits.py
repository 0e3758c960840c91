"""Every digit by slash command on Discord: ``/liars bid quantity:q digit:d`` through the real discord.py
bot and the fake Discord, 0 included (Discord sends the option as the integer 0), in each rank order."""

from __future__ import annotations

from typing import Any

import pytest

from core.serial.rules import RankOrder
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness
from tests.typed import live_round

world = discord_helpers.world
no_errors = discord_helpers.no_errors


@pytest.mark.parametrize("order", list(RankOrder))
async def test_every_digit_by_slash_options(world: Harness, order: RankOrder) -> None:
    h = world
    await h.start()
    opened = await h.ask(h.alice, "start", options=f"rank-order={order.value}")
    assert "You opened a table" in opened.content, opened.content
    assert "You are seated" in (await h.ask(h.bob, "join")).content
    assert "Dealt" in (await h.ask(h.alice, "deal")).content
    table = h.service.table(h.key)
    # Each digit in the rank order's order at one quantity, then the next quantity: every one a raise.
    digits = sorted(range(10), key=order.rank)
    for quantity, digit in [(1, d) for d in digits] + [(2, digits[0])]:
        player = h.to_act()
        answer = await h.ask(player, "bid", quantity=quantity, digit=digit)
        assert answer.ephemeral and answer.content == "Bid placed.", (quantity, digit, answer.content)
        standing = live_round(table).standing_bid
        assert standing is not None
        assert (standing.quantity, standing.digit) == (quantity, digit)
    # A digit that does not raise is refused by the game, not misread: 0 is a digit, not a missing option.
    low = await h.ask(h.to_act(), "bid", quantity=1, digit=0)
    assert low.ephemeral and "does not beat the standing bid" in low.content, low.content


async def test_a_bare_bid_opens_the_raise_form(world: Harness) -> None:
    """``/liars bid`` with no options answers with the Raise… form (as on Slack), to the player to act."""
    h = world
    await h.start()
    await h.open_table()
    form = await h.ask(h.to_act(), "bid")
    assert form.ephemeral and "No bid yet" in form.content
    g, c = h.guild.id, h.form_where
    assert f"liars:pick-bid-1:{g}:{c}" in form.custom_ids()
    refused = await h.ask(h.after(h.to_act()), "bid")
    assert refused.ephemeral and refused.content.startswith("It is not your turn"), refused.content
    placed = await h.raise_bid(h.to_act(), 2, 0, form=form)
    assert placed.content == "Bid placed."


@pytest.mark.parametrize(("sub", "options", "said"), [
    ("bid", {"quantity": 0, "digit": 7}, "under its min_value"),
    ("bid", {"quantity": 2, "digit": 10}, "over its max_value"),
    ("bid", {"quantity": 2, "digit": -1}, "under its min_value"),
    ("start", {"stake": -1}, "under its min_value"),
    ("start", {"game": "chess"}, "none of its choices"),
    ("config", {"currency": ""}, "no empty text"),
])
async def test_the_fake_sends_only_what_discords_client_can(world: Harness, sub: str, options: dict[str, Any],
                                                            said: str) -> None:
    """The fake Discord holds a test to the command tree's bounds and choices, as Discord's client holds a person:
    a tree whose bounds shut out a legal value (a `digit` from 1, when 0 is a digit) fails its tests there."""
    h = world
    await h.start()
    with pytest.raises(ValueError, match=said):
        await h.slash(h.alice, sub, **options)

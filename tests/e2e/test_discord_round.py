"""A complete round on Discord: the real bot (discord.py AutoShardedClient, the real service, a real
SQLite file) against a fake Discord on 127.0.0.1, driven by INTERACTION_CREATE payloads for three
members — slash commands, persistent buttons and the Raise… form."""

from __future__ import annotations

import re

import discord

from adapters.storebase import StoreBase
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness, assert_no_serial_before_count, ledger_rows
from tests.fakes.discord_server import Intent, RecordedMessage
from tests.typed import live_round, serial_match

world = discord_helpers.world
no_errors = discord_helpers.no_errors

SERIAL_LINE = re.compile(r"• <@(\d+)>: `([^`]+)` \((\d+)\)")


async def test_complete_round_with_buttons_and_commands(world: Harness) -> None:
    h = world
    bot = await h.start()
    assert bot.shard_count == 1 and isinstance(bot, discord.AutoShardedClient)
    assert not h.fake.identify_payloads[0]["intents"] & Intent.PRIVILEGED  # no privileged intents
    synced = {c["name"]: c for c in h.fake.commands[None].values()}  # synced globally (no DISCORD_GUILD_ID)
    assert set(synced) == {"liars", "liars-books"}
    # every command help names is a subcommand under that name, the books under /liars-books
    listed = (await h.ask(h.alice, "help")).content
    subcommands = {o["name"]: top for top, c in synced.items() for o in c["options"]}
    assert set(re.findall(r"• `(\w+)`", listed)) == set(subcommands)
    assert {n for n, top in subcommands.items() if top == "liars-books"} == \
        {"ledger", "sheet", "stats", "leaderboard", "history", "export"}
    assert all(len(c["options"]) <= 25 for c in synced.values())
    await h.open_table()
    lobby = h.panel("lobby")
    assert "Play is under way" in lobby.content and lobby.custom_ids() == []

    # Deal: each of the three DMs carries that member's serial and no other.
    dealt = await h.wait_dms(1)
    table = h.service.table(h.key)
    assert {int(p): str(s.digits) for p, s in live_round(table).serials.items()} == dealt
    for u in h.users:
        [dm] = h.fake.dms_to(u.id)
        assert dealt[u.id] in dm.content
        assert [s for uid, s in dealt.items() if uid != u.id and s in dm.content] == []
        assert f"<#{h.channel.id}>" in dm.content and serial_match(table).logs[-1]["commitment"] in dm.content
        [link] = [c for c in dm.all_components() if c.get("url")]
        assert link["url"] == f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{h.panel('table').id}"

    # The table message pings whoever is to act and offers the common path as buttons.
    panel = h.panel("table")
    opener = h.to_act()
    second = h.after(opener)
    third = h.after(second)
    assert f"<@{opener.id}> to act" in panel.content
    assert set(panel.custom_ids()) == {h.button(a) for a in ("open-bid", "hand", "odds")}

    # Out of turn: refused privately, nothing changes.
    posted, edits = len(h.channel_messages()), panel.edit_count
    refused = await h.ask(second, "bid", quantity=1, digit=5)
    assert refused.ephemeral and refused.content == f"It is not your turn: {opener.username} is to act."
    assert live_round(table).standing_bid is None and panel.edit_count == edits
    assert len(h.channel_messages()) == posted

    # The opener raises through the Raise… form: quantity and digit selects, then Bid.
    form = await h.raise_bid(opener, 3, 7)
    assert form.content == "Bid placed." and form.custom_ids() == []
    assert "Standing bid: **3 sevens**" in panel.content and f"<@{second.id}> to act" in panel.content
    # one edit of the table message, and one small new message that pings the next player
    assert panel.edit_count == edits + 1 and len(h.channel_messages()) == posted + 1
    ping = h.channel_messages()[-1]
    assert ping.content.startswith(f"🔔 <@{second.id}>, your turn") and ping.custom_ids() == []
    assert h.button("challenge") in panel.custom_ids()

    # A raise that does not beat the standing bid is refused privately.
    low = await h.ask(second, "bid", quantity=2, digit=9)
    assert low.ephemeral and "does not beat the standing bid of 3 sevens" in low.content

    # Challenges: one by the table's button, one by command; the second ends the round.
    challenged = await h.press(second, panel, h.button("challenge"))
    assert challenged.ephemeral and challenged.content == "You challenged."
    assert f"Challenged by: <@{second.id}>" in panel.content
    pings = [m for m in h.channel_messages() if m.content.startswith("🔔")]
    assert len(pings) == 1 and pings[0].content.startswith(f"🔔 <@{third.id}>")  # the old ping was deleted
    last = await h.ask(third, "challenge")
    assert last.ephemeral

    count = await h.fake.wait_for_message(lambda m: "**The count**" in m.content)
    assert not count.ephemeral and count.channel_id == h.channel.id
    shown = {int(uid): (serial, int(held)) for uid, serial, held in SERIAL_LINE.findall(count.content)}
    assert {uid: serial.split()[1] if " " in serial else serial for uid, (serial, _) in shown.items()} == dealt
    sevens = sum(s.count("7") for s in dealt.values())
    assert (f"There are **{sevens}** sevens" if sevens != 1 else "There is **1** seven") in count.content
    assert all(held == dealt[uid].count("7") for uid, (_, held) in shown.items())
    made = sevens >= 3
    if sevens == 0:
        assert "✊" in count.content
    assert ("The bid is made" if made else "The bid fails") in count.content
    assert "Payments:" in count.content

    # The ledger matches what the serials imply (classic rules, stake 1: the bidder against each).
    sign = 1 if made else -1
    expected = {opener.username: 2 * sign, second.username: -sign, third.username: -sign}
    ledger = await h.ask(h.bob, "ledger")
    assert ledger.ephemeral
    assert ledger_rows(ledger.content) == expected, ledger.content

    # The next round is dealt at once: fresh DMs, a fresh table message; My serial and Odds answer privately.
    round2 = await h.wait_dms(2)
    new_panel = await h.fake.wait_for(lambda: (p := h.panel("table")).id != panel.id and p)
    assert "Round 2" in new_panel.content and "Counted" in panel.content and panel.custom_ids() == []
    mine = await h.press(h.carol, new_panel, h.button("hand"))
    assert mine.ephemeral and round2[h.carol.id] in mine.content
    odds = await h.press(h.carol, new_panel, h.button("odds"))
    assert odds.ephemeral and "Your odds at 3 players" in odds.content
    assert assert_no_serial_before_count(h) == 2


async def test_no_serial_is_public_before_the_count(world: Harness) -> None:
    """Every way of seeing a serial (DM, My serial, /liars hand, odds, status) stays private."""
    h = world
    await h.start()
    await h.open_table()
    dealt = await h.wait_dms(1)
    panel = h.panel("table")
    for u in h.users:
        via_button = await h.press(u, panel, h.button("hand"))
        via_command = await h.ask(u, "hand")
        assert via_button.ephemeral and via_command.ephemeral
        assert dealt[u.id] in via_button.content and dealt[u.id] in via_command.content
    status = await h.ask(h.bob, "status")
    assert status.ephemeral and not any(s in status.content for s in dealt.values())
    rules = await h.ask(h.bob, "rules")
    assert rules.ephemeral
    opener = h.to_act()
    await h.raise_bid(opener, 1, 0)
    assert_no_serial_before_count(h)
    # The checker itself is not blind: a serial posted publicly is caught.
    channel = h.live_bot.get_partial_messageable(h.channel.id, guild_id=h.guild.id)
    await channel.send(f"oops {dealt[h.alice.id]}")
    try:
        assert_no_serial_before_count(h)
    except AssertionError as exc:
        assert "shown publicly before its count" in str(exc)
    else:
        raise AssertionError("the privacy check missed a leaked serial")


async def test_quantities_past_a_selects_25_are_offered_by_autocomplete(world: Harness) -> None:
    """At four seats there are 32 quantities: the form held the first 25 for every platform, so the quantity's
    autocomplete offered nothing for 30 (and Slack's modal, which holds 100, listed 25)."""
    h = world
    await h.start()
    dave = h.fake.add_user("dave")
    h.fake.add_member(h.guild.id, dave.id)
    everyone = [h.alice, h.bob, h.carol, dave]
    assert "You opened a table" in (await h.ask(h.alice, "start")).content
    for user in everyone[1:]:
        assert "You are seated" in (await h.ask(user, "join")).content
    assert "Dealt" in (await h.ask(h.alice, "deal")).content
    opener = next(u for u in everyone if str(u.id) == live_round(h.service.table(h.key)).to_act)
    iid = await h.fake.send_autocomplete(opener.id, h.guild.id, h.channel.id, "liars", "bid", {"quantity": "30"},
                                         focused="quantity")
    assert [c["value"] for c in (await h.fake.wait_for_callback(iid)).data["choices"]] == [30]
    form = await h.press(opener, h.panel("table"), h.button("open-bid"))
    q_select = form.component(f"liars:pick-bid-1:{h.guild.id}:{h.form_where}")
    assert [o["value"] for o in q_select["options"]] == [str(q) for q in range(1, 26)]  # what a select holds


async def test_raise_form_offers_only_legal_bids_and_digit_names(world: Harness) -> None:
    h = world
    await h.start()
    opened = await h.ask(h.alice, "start", preset="salomon")
    assert "You opened a table" in opened.content
    await h.press(h.bob, h.panel("lobby"), h.button("join"))
    await h.press(h.alice, h.panel("lobby"), h.button("deal"))
    await h.wait_dms(1, [h.alice, h.bob])
    opener = h.to_act()
    other = h.after(opener)

    # Autocomplete names the digits by the table's rank order: zero is high ("ten") at salomon, as "1 ten" reads.
    iid = await h.fake.send_autocomplete(opener.id, h.guild.id, h.channel.id, "liars", "bid",
                                         {"quantity": 1, "digit": ""}, focused="digit")
    choices = (await h.fake.wait_for_callback(iid)).data["choices"]
    assert choices[0] == {"name": "ten (0)", "value": 0} and choices[-1]["name"] == "one (1)"
    iid = await h.fake.send_autocomplete(opener.id, h.guild.id, h.channel.id, "liars", "bid",
                                         {"quantity": 2, "digit": ""}, focused="digit")
    assert (await h.fake.wait_for_callback(iid)).data["choices"][0] == {"name": "tens (0)", "value": 0}

    # Not your turn: the Raise… button answers privately and opens nothing.
    nope = await h.press(other, h.panel("table"), h.button("open-bid"))
    assert nope.ephemeral and nope.content.startswith("It is not your turn") and nope.custom_ids() == []

    await h.raise_bid(opener, 2, 5)

    # The digit's autocomplete lists what beats 2 fives at the quantity typed so far (before: every digit of
    # every quantity); with no quantity, or one the form does not list, every digit (the game judges the bid).
    async def digits(quantity: int | None) -> list[object]:
        typed = {"digit": ""} if quantity is None else {"quantity": quantity, "digit": ""}
        iid = await h.fake.send_autocomplete(other.id, h.guild.id, h.channel.id, "liars", "bid", typed,
                                             focused="digit")
        return [c["value"] for c in (await h.fake.wait_for_callback(iid)).data["choices"]]

    every = [0, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert await digits(2) == [0, 9, 8, 7, 6]
    assert await digits(3) == every and await digits(1) == every and await digits(0) == every
    assert await digits(None) == every
    form = await h.press(other, h.panel("table"), h.button("open-bid"))
    q_select = form.component(f"liars:pick-bid-1:{h.guild.id}:{h.form_where}")
    d_select = form.component(f"liars:pick-bid-2:{h.guild.id}:{h.form_where}")
    assert q_select["options"][0]["value"] == "2"
    # At the standing quantity only higher digits are offered: 6 7 8 9 and 0 (high at salomon).
    assert [o["value"] for o in d_select["options"]] == ["0", "9", "8", "7", "6"]
    await h.pick(other, form, f"liars:pick-bid-1:{h.guild.id}:{h.form_where}", "3")
    await h.fake.wait_for(lambda: form.edit_count >= 1)
    d_select = form.component(f"liars:pick-bid-2:{h.guild.id}:{h.form_where}")
    assert len(d_select["options"]) == 10
    await h.raise_bid(other, 3, 1, form=form)
    assert form.content == "Bid placed."
    assert "Standing bid: **3 ones**" in h.panel("table").content


async def test_rebid_and_count_button(world: Harness) -> None:
    """With the rebid right a bid challenged all around leaves its bidder Call the count or Raise…."""
    h = world
    await h.start()
    await h.ask(h.alice, "start", options="rebid=on")
    await h.ask(h.bob, "join")
    await h.ask(h.alice, "deal")
    await h.wait_dms(1, [h.alice, h.bob])
    opener = h.to_act()
    other = h.after(opener)
    await h.ask(opener, "bid", quantity=1, digit=1)
    await h.press(other, h.panel("table"), h.button("challenge"))
    panel = h.panel("table")
    assert "challenged all around" in panel.content
    assert h.button("count") in panel.custom_ids()
    called = await h.press(opener, panel, h.button("count"))
    assert called.content == "You called for the count."
    await h.fake.wait_for_message(lambda m: "**The count**" in m.content)


async def test_a_move_and_its_turn_ping_cost_one_write_transaction(world: Harness) -> None:
    """Each bid is stored in one write transaction (the store's own counter), and the turn ping that
    follows it, posted as a new message that mentions the next player, stores nothing more."""
    h = world
    await h.start()
    await h.open_table()
    store = h.service.store
    assert isinstance(store, StoreBase)  # the SQLite store counts its write transactions
    assert (await h.ask(h.to_act(), "bid", quantity=1, digit=9)).content == "Bid placed."  # the first ping
    for quantity in (2, 3, 4):
        player, ping = h.to_act(), h.panel("turn")
        before = store.transactions
        answer = await h.ask(player, "bid", quantity=quantity, digit=9)
        assert answer.content == "Bid placed.", answer.content
        def moved(p: RecordedMessage = ping) -> RecordedMessage | None:  # the new ping, once there is one
            n = h.panel("turn")
            return n if n.id != p.id else None

        new_ping = await h.fake.wait_for(moved)
        assert f"<@{h.to_act().id}>" in new_ping.content and h.fake.get_message(ping.id).deleted
        assert store.transactions - before == 1


async def test_a_double_click_on_a_forms_send_keeps_what_it_said(world: Harness) -> None:
    """Two quick clicks on "Bid 2 sevens" placed the bid once, then the second click's refusal ("It is not your
    turn") was written over "Bid placed." on the bidder's form."""
    h = world
    await h.start()
    await h.ask(h.alice, "start")
    await h.ask(h.bob, "join")
    await h.ask(h.alice, "deal")
    player = h.to_act()
    form, send = await h.pick_bid(player, 2, 7)
    bot = h.bot
    assert bot is not None
    first, second = await h.click(player, form, send), await h.click(player, form, send)
    await h.fake.wait_for(lambda: h.fake.interactions[first].acknowledged and h.fake.interactions[second].acknowledged)
    await h.fake.wait_for(lambda: form.text().startswith("Bid placed"))
    await h.fake.wait_for(lambda: not bot.forms._sending)  # both sends done (the second changed nothing)
    await h.service.drain()
    table = h.service.table(h.key)
    assert table is not None and str(live_round(table).standing_bid) == "2 sevens"
    assert "not your turn" not in form.text().lower(), form.text()
    assert form.text().startswith("Bid placed"), form.text()


async def test_a_form_drawn_before_the_tables_last_move_places_nothing(world: Harness) -> None:
    """A Raise… form opened at one turn and sent at the player's next one — they had bid by typing meanwhile, or
    the timer had bid for them — placed a bid chosen on a table it no longer showed.  It now says so, places
    nothing, and a form opened again works."""
    h = world
    await h.start()
    await h.open_table()
    opener = h.to_act()
    form, send = await h.pick_bid(opener, 1, 9)
    for user, digit in ((opener, 1), (h.after(opener), 2), (h.after(h.after(opener)), 3)):
        assert (await h.ask(user, "bid", quantity=1, digit=digit)).content == "Bid placed."
    assert h.to_act() is opener  # the opener's turn again, in the same round: 1 nine would be a legal raise
    table = h.service.table(h.key)
    assert table is not None
    stored = await h.service.store.table_events(table.id)
    edits = form.edit_count
    await h.click(opener, form, send)
    await h.fake.wait_for(lambda: form.edit_count > edits)
    await h.service.drain()
    assert "before the table's last move" in form.content and form.custom_ids() == [], form.content
    assert await h.service.store.table_events(table.id) == stored  # nothing placed
    bid = live_round(h.service.table(h.key)).standing_bid
    assert bid is not None and (bid.quantity, bid.digit) == (1, 3)
    assert (await h.raise_bid(opener, 1, 9)).content == "Bid placed."  # opened again: drawn at this move


async def test_a_status_replys_challenge_pressed_after_the_tables_last_move_challenges_nothing(world: Harness) -> None:
    """A ``status`` reply stays in its reader's view with the table's buttons; its Challenge, pressed once the table
    had gone round to them again, challenged a bid the reply never showed.  Its id now carries the turn it was drawn
    at (Raise… does not: its form is drawn when opened); pressed later, it says so and challenges nothing."""
    h = world
    await h.start()
    await h.open_table()
    opener = h.to_act()
    assert (await h.ask(opener, "bid", quantity=1, digit=1)).content == "Bid placed."
    reader = h.after(opener)
    status = await h.ask(reader, "status")
    challenge = h.button("challenge")
    g = h.guild.id
    assert status.ephemeral and challenge in status.custom_ids(), status.custom_ids()
    assert challenge.endswith(f".{h.service.turn(h.key)}") and f"liars:open-bid:{g}:{h.where}" in status.custom_ids()
    for user, digit in ((reader, 2), (h.after(reader), 3), (opener, 4)):
        assert (await h.ask(user, "bid", quantity=1, digit=digit)).content == "Bid placed."
    assert h.to_act() is reader  # their turn again, in the same round: a challenge of 1 four would stand
    table = h.service.table(h.key)
    assert table is not None
    stored = await h.service.store.table_events(table.id)
    refused = await h.press(reader, status, challenge)
    assert refused.ephemeral and "before the table's last move" in refused.content, refused.content
    assert await h.service.store.table_events(table.id) == stored  # nothing challenged
    panel = h.panel("table")
    assert h.button("challenge") in panel.custom_ids() and h.button("challenge") != challenge
    assert (await h.press(reader, panel, h.button("challenge"))).content == "You challenged."  # as drawn now
    assert len(await h.service.store.table_events(table.id)) > len(stored)

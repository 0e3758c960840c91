"""Who may do what, where: Manage Server for config and settling, host-or-admin for kick, DMs
refused politely (except hand and help), and the one place unexpected errors are answered."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness
from tests.fakes.discord_server import Perm
from tests.typed import live_round

world = discord_helpers.world
no_errors = discord_helpers.no_errors


async def test_config_needs_manage_server(world: Harness) -> None:
    h = world
    await h.start()
    refused = await h.ask(h.bob, "config", preset="salomon")
    assert refused.ephemeral and refused.content == "Only a server admin can change the configuration."
    shown = await h.ask(h.bob, "config")
    assert shown.ephemeral and "play each game by its defaults" in shown.content
    assert not h.channel_messages()

    saved = await h.ask(h.alice, "config", preset="salomon", turn_timeout=90, settings="stake=2")
    assert saved.ephemeral and saved.content.startswith("Settings saved."), saved.content
    assert "serial: preset salomon, stake=2" in saved.content and "turn timeout 90 s" in saved.content
    assert (await h.service.settings(h.key.server))["games"]["serial"]["preset"] == "salomon"
    # Administrator implies Manage Server.
    admin = await h.response(await h.slash(h.carol, "config", member_permissions=Perm.ADMINISTRATOR,
                                           currency="EUR"))
    assert admin.content.startswith("Settings saved.")


async def test_kick_is_for_the_host_or_an_admin(world: Harness) -> None:
    h = world
    await h.start()
    await h.ask(h.bob, "start")
    await h.ask(h.carol, "join")
    await h.ask(h.alice, "join")
    refused = await h.ask(h.carol, "kick", member=h.alice.id)
    assert refused.ephemeral and refused.content == "Only the host or a server admin can remove a player."
    kicked = await h.ask(h.alice, "kick", member=h.carol.id)  # not the host, but Manage Server
    assert kicked.ephemeral and kicked.content == "carol was removed from the table."
    assert f"<@{h.carol.id}>" not in h.panel("lobby").content
    left = await h.press(h.alice, h.panel("lobby"), h.button("leave"))
    assert left.ephemeral and left.content == "You left the table."
    assert f"<@{h.alice.id}>" not in h.panel("lobby").content


async def test_a_computer_player_is_kicked_and_its_stats_asked_by_name(world: Harness) -> None:
    """/liars kick took only a Discord user, which no computer seat is: on Discord one could never be removed,
    nor its stats asked (Slack and the terminal read the name the table shows)."""
    h = world
    await h.start()
    await h.ask(h.bob, "start", computers=2)
    table = h.service.table(h.key)
    assert table is not None and "cpu-gekko" in table.seats
    nobody = await h.ask(h.bob, "kick")
    assert nobody.ephemeral and nobody.content.startswith("Usage: `kick @player`"), nobody.content
    kicked = await h.ask(h.bob, "kick", name="Gekko")
    assert kicked.ephemeral and kicked.content == "Gekko (hard) was removed from the table.", kicked.content
    assert "cpu-gekko" not in table.seats
    stats = await h.ask(h.bob, "stats", name="Sherman")
    assert stats.content == "Sherman (hard) has not played a settled round on this server.", stats.content


async def test_sheet_settle_is_public_and_admin_only(world: Harness) -> None:
    h = world
    await h.start()
    refused = await h.ask(h.bob, "sheet", settle=True)
    assert refused.ephemeral and refused.content == "Only a server admin can mark a period settled."
    settled = await h.ask(h.alice, "sheet", settle=True)
    assert not settled.ephemeral and "settled ✅" in settled.content
    again = await h.ask(h.alice, "sheet", settle=True)
    assert again.ephemeral and "already marked settled" in again.content


async def test_commands_in_dms(world: Harness) -> None:
    h = world
    await h.start()
    iid = await h.fake.send_dm_slash(h.bob.id, "liars", "status")
    refused = await h.response(iid)
    assert refused.ephemeral and refused.is_dm and "Tables live in server channels" in refused.content
    iid = await h.fake.send_dm_slash(h.bob.id, "liars", "hand")
    nothing = await h.response(iid)
    assert "You hold nothing right now" in nothing.content
    iid = await h.fake.send_dm_slash(h.bob.id, "liars", "help")
    assert "`bid`" in (await h.response(iid)).content

    await h.open_table()
    dealt = await h.wait_dms(1)
    iid = await h.fake.send_dm_slash(h.bob.id, "liars", "hand")
    again = await h.response(iid)
    assert again.is_dm and dealt[h.bob.id] in again.content
    assert not any(s in again.content for uid, s in dealt.items() if uid != h.bob.id)


async def test_a_store_that_refuses_writes_gets_one_clear_private_answer(
    world: Harness, no_errors: list[logging.LogRecord], caplog: pytest.LogCaptureFixture
) -> None:
    h = world
    await h.start()
    await h.ask(h.alice, "start")

    # a real failure: the database refuses every further event
    with sqlite3.connect(h.db_path) as conn:
        conn.execute(
            "CREATE TRIGGER fire BEFORE INSERT ON table_events BEGIN SELECT RAISE(ABORT, 'database on fire'); END"
        )
    refused = await h.ask(h.bob, "join")
    assert refused.ephemeral and refused.content.startswith("The table could not be saved"), refused.content
    refused = await h.press(h.carol, h.panel("lobby"), h.button("join"))
    assert refused.ephemeral and refused.content.startswith("The table could not be saved")
    assert "database on fire" not in refused.content and "Traceback" not in refused.content
    assert not no_errors  # bad luck with the disk is not a bug: warnings, not errors
    assert any(r.name == "bot.repository" and r.levelno == logging.WARNING for r in caplog.records)
    assert not [m for m in h.channel_messages() if "saved" in m.content]
    with sqlite3.connect(h.db_path) as conn:
        conn.execute("DROP TRIGGER fire")
    assert (await h.ask(h.bob, "join")).content.startswith("You are seated")  # it recovers by itself


async def test_export_attaches_the_game_record(world: Harness) -> None:
    h = world
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    opener = h.to_act()
    second = h.after(opener)
    await h.ask(opener, "bid", quantity=1, digit=1)
    await h.ask(second, "challenge")
    await h.ask(h.after(second), "challenge")
    await h.fake.wait_for_message(lambda m: "**The count**" in m.content)
    exported = await h.ask(h.bob, "export")
    assert exported.ephemeral and "Game record" in exported.content
    [attachment] = exported.attachments
    assert attachment["filename"].endswith(".json")
    history = await h.ask(h.bob, "history")
    assert "Round 1" in history.content
    stats = await h.ask(h.bob, "stats", member=opener.id, chart=False)
    assert stats.ephemeral and f"📊 {opener.username}: 1 round" in stats.content


async def test_end_closes_the_table_and_retires_its_buttons(world: Harness) -> None:
    h = world
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    panel = h.panel("table")
    refused = await h.ask(h.bob, "end")
    assert refused.ephemeral and refused.content == "Only the host or a server admin can end the table."
    ended = await h.ask(h.alice, "end")
    assert ended.ephemeral and ended.content.startswith("The table is closed.")
    await h.fake.wait_for_message(lambda m: m.content.startswith("🃏 The table is closed"))
    await h.fake.wait_for(lambda: panel.custom_ids() == [])
    status = await h.ask(h.bob, "status")
    assert status.ephemeral and "There is no table in this channel" in status.content


@pytest.mark.parametrize("gone", ["the bot removed from the server", "the table's channel deleted",
                                  "the table's thread deleted"])
async def test_a_table_whose_server_or_channel_is_gone_closes_and_moves_no_money(world: Harness, gone: str) -> None:
    """It played on by its turn timers for as long as anyone liked, settling rounds for players who could no
    longer see it (and posting into the void): now it closes as on Slack's uninstall, a round under way void."""
    h = world
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    table = h.service.table(h.key)
    assert table is not None and table.live
    opener = h.to_act()
    assert (await h.ask(opener, "bid", quantity=1, digit=0)).ephemeral
    if gone.startswith("the bot"):
        await h.fake.remove_bot_from_guild(h.guild.id)
    elif gone.endswith("thread deleted"):  # Discord reports a thread's deletion (alone, or with its parent) so
        await h.fake.delete_thread(h.guild.id, h.channel.id, parent_id=h.channel.id + 1)
    else:
        await h.fake.delete_channel(h.guild.id, h.channel.id)
    await h.fake.wait_for(lambda: h.service.table(h.key) is None)
    store = h.service.store
    assert await store.open_table_heads() == []
    assert await store.balances(h.key.server) == {} and await store.rounds(h.key.server) == []


async def test_a_move_answered_too_late_is_applied_with_a_warning_not_an_error(
        world: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """Discord refuses an interaction's answer after its 3 seconds (10062): the move stood, yet the log said
    ERROR "/liars bid failed" with a traceback and the sender was sent an apology for it."""
    h = world
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    opener = h.to_act()
    h.fake.late_callbacks = True
    with caplog.at_level(logging.WARNING, logger="adapters.discord"):
        await h.slash(opener, "bid", quantity=1, digit=0)
        await h.fake.wait_for(lambda: any("could not be sent" in r.getMessage() for r in caplog.records))
    bid = live_round(h.service.table(h.key)).standing_bid
    assert bid is not None and (bid.quantity, bid.digit) == (1, 0)  # applied
    assert not [m for m in h.fake.messages.values() if "Sorry" in m.content]
    assert "the command ran" in next(r.getMessage() for r in caplog.records if "could not be sent" in r.getMessage())


async def test_a_closed_tables_form_and_buttons_do_not_move_the_next_table(world: Harness) -> None:
    """A Raise… form opened at one table, or the buttons of a status reply there, sent their command to
    whatever table the channel had next: a bid chosen for the old game was placed in the new one."""
    h = world
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    opener = h.to_act()
    g, c = h.guild.id, h.form_where  # the first table's, at its opening move
    form = await h.press(opener, h.panel("table"), h.button("open-bid"))
    assert form.ephemeral and f"liars:go-pending:{g}:{h.channel.id}" in form.custom_ids()
    before = form.edit_count
    await h.pick(opener, form, f"liars:pick-bid-1:{g}:{c}", "2")
    await h.fake.wait_for(lambda: form.edit_count > before)
    await h.pick(opener, form, f"liars:pick-bid-2:{g}:{c}", "5")
    await h.fake.wait_for(lambda: form.edit_count > before + 1)
    status = await h.ask(h.bob, "status")
    assert status.ephemeral and status.custom_ids(), status.content
    assert all(f":{g}:{h.where}" in i for i in status.custom_ids())  # drawn for this table
    assert (await h.ask(h.alice, "end")).content.startswith("The table is closed.")
    await h.open_table()  # the next table, dealt
    await h.wait_dms(1)
    assert not c.startswith(f"{h.where}.")
    opener2 = h.to_act()
    edits = form.edit_count
    await h.click(opener, form, f"liars:go-bid:{g}:{c}:2:5")
    await h.fake.wait_for(lambda: form.edit_count > edits)
    assert "earlier table" in form.content and form.custom_ids() == [], form.content
    assert live_round(h.service.table(h.key)).standing_bid is None  # nothing moved at the new table
    for custom_id in status.custom_ids():  # the old status reply's buttons answer, and change nothing
        old_button = await h.press(h.bob, status, custom_id)
        assert old_button.ephemeral and "earlier table" in old_button.content, (custom_id, old_button.content)
    assert live_round(h.service.table(h.key)).to_act == str(opener2.id)


async def test_start_where_the_bot_cannot_post_says_so_and_opens_nothing(world: Harness) -> None:
    """The host was told "You opened a table…" in a channel where the bot could post nothing: nobody ever saw
    the lobby or the table."""
    h = world
    guild = h.fake.guilds[h.guild.id]
    for role in guild.roles.values():  # nothing here grants Send Messages: not @everyone, not the bot's role
        role.permissions &= ~Perm.SEND_MESSAGES
    await h.start()
    refused = await h.ask(h.alice, "start")
    assert refused.ephemeral and refused.content.startswith("I cannot post in this channel"), refused.content
    assert h.service.table(h.key) is None


async def test_an_answer_discord_refuses_for_itself_is_still_an_error(world: Harness,
                                                                      no_errors: list[logging.LogRecord]) -> None:
    """Only a late answer (10062, 50027) is a warning: an answer refused for what it is (here 50035, a body
    Discord will not take) is a fault of ours, logged as an ERROR."""
    h = world
    await h.start()
    await h.open_table()
    await h.wait_dms(1)
    h.fake.callback_error = (400, 50035, "Invalid Form Body")
    await h.slash(h.to_act(), "bid", quantity=1, digit=0)
    await h.fake.wait_for(lambda: any("/liars bid failed" in r.getMessage() for r in no_errors))
    no_errors.clear()  # provoked on purpose


async def test_a_reply_names_members_by_mention_and_pings_nobody(world: Harness) -> None:
    """A member who never played (no stored name) and the admins a setting lists are named as Discord shows
    people, `<@id>`: the reply used to show their raw snowflakes."""
    h = world
    await h.start()
    stats = await h.ask(h.alice, "stats", member=h.carol.id)
    assert stats.content.startswith(f"<@{h.carol.id}> has not played"), stats.content
    saved = await h.ask(h.alice, "config", settings=f"admins=<@{h.bob.id}>")
    assert f"admins <@{h.bob.id}>" in saved.content, saved.content
    assert stats.pinged() == saved.pinged() == set()


async def test_a_slow_sheet_settle_is_deferred_in_the_channel(world: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command whose answer may be public was never deferred: an admin's `sheet settle` slower than Discord's
    3 seconds was stored and its answer lost.  Now it is deferred in the channel ("thinking…"); an answer that
    turns out private (a refusal) takes the place of that, to the sender alone."""
    from adapters.discord import bot as discord_bot

    monkeypatch.setattr(discord_bot, "DEFER_AFTER", 0.0)  # every command past its deadline at once
    h = world
    await h.start()
    refused_id = await h.slash(h.bob, "sheet", settle=True)
    refused = await h.response(refused_id)
    assert refused.ephemeral and refused.content == "Only a server admin can mark a period settled."
    callbacks = h.fake.callbacks_for(refused_id)
    assert [c.type for c in callbacks] == [5]  # deferred, in the channel (the answer may be public)
    thinking = h.fake.interaction_responses(refused_id, include_deleted=True)[0]
    assert thinking.deleted and not thinking.ephemeral  # the channel's "thinking…" went
    settled = await h.ask(h.alice, "sheet", settle=True)
    assert not settled.ephemeral and "settled ✅" in settled.content
    private_id = await h.slash(h.bob, "sheet")  # a sheet alone is private (the channel's "thinking…" goes again)
    sheet = await h.response(private_id)
    assert sheet.ephemeral and "Sheet for" in sheet.content, sheet.content


async def test_rules_names_the_game_on_discord_as_in_words(world: Harness) -> None:
    """`rules cards` worked on Slack and in the terminal; `/liars rules` had no option, so away from a table
    Discord could show only the serial game's rules."""
    h = world
    await h.start()
    cards = await h.ask(h.bob, "rules", game="cards")
    assert cards.ephemeral and "Liar's Poker with cards" in cards.content, cards.content
    serial = await h.ask(h.bob, "rules")
    assert "Liar's Poker with cards" not in serial.content and "0 is the lowest digit" in serial.content

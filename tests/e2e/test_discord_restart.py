"""Restarts and closed DMs: the bot is stopped mid-round and a new one (new service, same database,
same Discord) finishes the round with the buttons the old one posted; a player whose DMs are closed
is told to press My serial, which answers ephemerally."""

from __future__ import annotations

import asyncio

from adapters.discord.notifier import DiscordNotifier
from bot.model import Message, MessageKind
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness, assert_no_serial_before_count, ledger_rows
from tests.fakes.discord_server import RecordedMessage
from tests.typed import cards_match, cards_round, live_round

world = discord_helpers.world
no_errors = discord_helpers.no_errors


async def test_restart_mid_round_and_finish_with_the_old_buttons(world: Harness) -> None:
    h = world
    await h.start()
    await h.open_table()
    dealt = await h.wait_dms(1)
    panel = h.panel("table")
    opener = h.to_act()
    second = h.after(opener)
    third = h.after(second)
    # The opener opens the Raise… form before the restart and uses it after.
    form = await h.press(opener, panel, h.button("open-bid"))
    assert form.ephemeral and form.custom_ids()

    edits = panel.edit_count
    await h.restart()
    assert h.fake.identify_count == 2
    await h.service.drain()
    assert panel.edit_count > edits  # the new process redraws the open table's message once it can send
    table = h.service.table(h.key)
    assert table is not None and {int(p): s.digits for p, s in live_round(table).serials.items()} == dealt
    assert h.panel("table").id == panel.id  # the new process knows the old message

    await h.raise_bid(opener, 2, 4, form=form)
    assert form.content == "Bid placed."
    assert "Standing bid: **2 fours**" in panel.content  # the same message, edited by the new process
    reply = await h.press(second, panel, h.button("challenge"))
    assert reply.content == "You challenged."
    reply = await h.press(third, panel, h.button("challenge"))
    assert reply.content == "You challenged."
    count = await h.fake.wait_for_message(lambda m: "**The count**" in m.content)
    fours = sum(s.count("4") for s in dealt.values())
    assert (f"There are **{fours}** fours" if fours != 1 else "There is **1** four") in count.content
    assert all(s in count.content for s in dealt.values())
    sign = 1 if fours >= 2 else -1
    ledger = await h.ask(h.carol, "ledger")
    assert ledger_rows(ledger.content) == {opener.username: 2 * sign, second.username: -sign,
                                           third.username: -sign}
    assert_no_serial_before_count(h)


async def test_restart_in_the_lobby_keeps_the_lobby_buttons(world: Harness) -> None:
    h = world
    await h.start()
    await h.ask(h.alice, "start")
    lobby = h.panel("lobby")
    await h.restart()
    joined = await h.press(h.carol, lobby, h.button("join"))
    assert joined.content.startswith("You are seated (2/")
    assert f"<@{h.carol.id}>" in lobby.content
    dealt = await h.press(h.alice, lobby, h.button("deal"))
    assert dealt.content.startswith("Dealt")
    await h.wait_dms(1, [h.alice, h.carol])


async def test_closed_dms_point_to_my_serial(world: Harness) -> None:
    h = world
    h.fake.block_dms(h.carol.id)
    await h.start()
    await h.open_table()
    dealt = await h.wait_dms(1, [h.alice, h.bob])
    notice = await h.fake.wait_for_message(lambda m: "could not send you a direct message" in m.content)
    assert not notice.ephemeral and notice.channel_id == h.channel.id
    assert f"<@{h.carol.id}>" in notice.content and "My serial" in notice.content
    assert f"<@{h.alice.id}>" not in notice.content and f"<@{h.bob.id}>" not in notice.content
    assert h.fake.dms_to(h.carol.id) == [] and len(h.fake.blocked_dm_attempts(h.carol.id)) == 1
    carols = live_round(h.service.table(h.key)).serials[str(h.carol.id)].digits
    assert carols not in notice.content and not any(s in notice.content for s in dealt.values())

    mine = await h.press(h.carol, h.panel("table"), h.button("hand"))
    assert mine.ephemeral and carols in mine.content
    assert_no_serial_before_count(h)


def _closed_notices(h: Harness) -> list[RecordedMessage]:
    return [m for m in h.channel_messages() if "could not send you a direct message" in m.content]


async def test_closed_dms_name_the_games_own_button_before_and_after_a_restart(world: Harness) -> None:
    """The card game's players whose DMs are closed are told to press **My hand** (the words the bot puts
    on the message it could not deliver), never the serial game's button, also by a notifier that has
    drawn no table message yet (a restarted bot's)."""
    h = world
    for user in h.users:
        h.fake.block_dms(user.id)
    await h.start()
    opened = await h.ask(h.alice, "start", game="cards")
    assert "You opened a table" in opened.content, opened.content
    await h.ask(h.bob, "join")
    await h.ask(h.carol, "join")
    await h.press(h.alice, h.panel("lobby"), h.button("deal"))
    opener = h.user(cards_match(h.service.table(h.key)).to_act)
    [dealt] = await h.fake.wait_for(lambda: _closed_notices(h) or None)
    assert f"<@{opener.id}>" in dealt.content and "**My hand**" in dealt.content, dealt.content
    assert "My serial" not in dealt.content

    await h.restart()
    await h.service.drain()
    fresh = DiscordNotifier(h.live_bot, h.live_bot.notifier.panels, layout=h.layout)  # it has drawn nothing yet
    await fresh.deliver([Message(h.key, "Your hand: …", MessageKind.PRIVATE, to=str(h.carol.id),
                                 hand_label="My hand")])
    notices = await h.fake.wait_for(lambda: _closed_notices(h) if len(_closed_notices(h)) == 2 else None)
    assert f"<@{h.carol.id}>" in notices[1].content and "**My hand**" in notices[1].content
    assert "My serial" not in notices[1].content

    # and the whole way round after the restart: the opener declares, the player under the gun takes
    said = await h.ask(opener, "declare", hand=cards_round(h.service.table(h.key)).least_raise().name())
    assert "declare" in said.content.lower(), said.content
    holder = h.user(cards_match(h.service.table(h.key)).to_act)
    took = await h.press(holder, h.panel("table"), h.button("take"))
    assert took.ephemeral, took.content
    notices = await h.fake.wait_for(lambda: _closed_notices(h) if len(_closed_notices(h)) == 3 else None)
    assert f"<@{holder.id}>" in notices[2].content and "**My hand**" in notices[2].content
    assert "My serial" not in notices[2].content
    hand = cards_round(h.service.table(h.key)).hand
    assert not any(str(card) in notices[2].content for card in hand)


async def test_a_serial_dm_that_gets_no_answer_is_noticed_like_closed_dms(world: Harness) -> None:
    """A dropped connection while the serial was sent (no answer at all, not a refusal) left the player with
    no serial and no word, and an ERROR with a traceback in the log."""
    h = world
    h.fake.drop_dms(h.carol.id)
    await h.start()
    await h.open_table()
    await h.wait_dms(1, [h.alice, h.bob])
    notice = await h.fake.wait_for_message(lambda m: "could not send you a direct message" in m.content)
    assert f"<@{h.carol.id}>" in notice.content and "My serial" in notice.content
    carols = live_round(h.service.table(h.key)).serials[str(h.carol.id)].digits
    assert carols not in notice.content
    mine = await h.press(h.carol, h.panel("table"), h.button("hand"))
    assert mine.ephemeral and carols in mine.content


async def test_a_stop_mid_command_lets_the_command_finish_and_its_answer_go(world: Harness) -> None:
    """A stop (SIGTERM: the client's close) while a command's answer was on its way closed the HTTP session under
    the answer (an ERROR, the answer lost) and then the store under the command; the close now lets the interactions
    under way finish first."""
    h = world
    bot = await h.start()
    gate = asyncio.Event()
    h.fake.callback_gate = gate  # Discord holds the answer's request until the close has begun
    # (an ERROR logged fails the test: discord_helpers.no_errors)
    iid = await h.slash(h.alice, "start")
    await h.fake.wait_for(lambda: h.fake.callbacks_held == 1)
    closing = asyncio.create_task(bot.close())
    await asyncio.sleep(0.5)  # (before: the session was closed by now)
    assert not closing.done() and not bot.is_closed()  # waiting for the interaction under way
    late = await h.slash(h.bob, "join")  # one arriving while it stops: told so, not started
    await h.fake.wait_for(lambda: h.fake.callbacks_held == 2)
    gate.set()
    await asyncio.wait_for(closing, timeout=10)
    answers = [m for m in h.fake.interaction_responses(iid) if not m.loading]
    assert len(answers) == 1 and "You opened a table" in answers[0].content, answers
    [told] = [m for m in h.fake.interaction_responses(late) if not m.loading]
    assert told.ephemeral and told.content == "The bot is restarting: nothing was done. Please try again in a moment."
    await h.restart()  # a new process finds the table the command opened, and Bob not seated at it
    table = h.service.table(h.key)
    assert table is not None and str(h.bob.id) not in table.seats

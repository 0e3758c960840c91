"""A round in a group DM, where the app is installed to the players (not to a server) — and the same in a
server that never added the app but lets its members use theirs: the real bot against the fake Discord,
which refuses the bot any post there and any DM (the bot is in neither).

Everything goes through interactions: ``/liars start`` answers privately and the lobby comes as the
interaction's public follow-up; the table message is a follow-up edited with the tokens of the
interactions that may edit it (its own, and the clicks on it); each serial goes as an ephemeral
follow-up to its holder's own live interaction (a player without one is asked to press My serial); a
computer seat's move and a turn timer's move show within the tokens' lifetime.  The group's ledger is
its own (``discord:dm<channel>``; the server's own in a server).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from adapters.discord.commands import top_level
from adapters.discord.links import Links
from adapters.discord.notifier import DiscordNotifier
from bot.model import TableKey
from tests.doubles import FakeClock
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness, serials_in_texts
from tests.fakes.discord_server import FakeUser, RecordedMessage
from tests.typed import live_round, serial_match

world = discord_helpers.world
no_errors = discord_helpers.no_errors

SERIAL = re.compile(r"Your serial for round (\d+)")


@pytest.mark.parametrize("where", ["group DM", "server without the bot"])
async def test_a_round_in_a_group_dm_goes_through_interactions_only(world: Harness, where: str) -> None:
    h = world
    fake = h.fake
    if where == "group DM":
        gdm = fake.add_group_dm("dinner", [h.alice, h.bob, h.carol])
        guild_id: int | None = None
        key = TableKey("discord", f"dm{gdm.id}", str(gdm.id))
    else:
        other = fake.add_guild("Their server")
        fake.without_bot(other.id)
        for u in h.users:
            fake.add_member(other.id, u.id)
        gdm, guild_id = other.channel("general"), other.id
        key = TableKey("discord", str(other.id), str(gdm.id))
    clock = FakeClock()
    token_age = [0.0]  # the bot's view of how old the interaction tokens are (Links' clock)
    h.layout = "v2"
    bot = await h.start(clock=clock, links=Links(clock=lambda: token_age[0]))
    for command in fake.commands[None].values():  # /liars and /liars-books
        assert 1 in command["integration_types"] and 2 in command["contexts"]  # user installs, private channels

    async def ask(user: FakeUser, sub: str, **options: object) -> RecordedMessage:
        iid = await fake.send_slash(user.id, guild_id, gdm.id, "liars", sub, options)
        return await h.response(iid)

    async def press(user: FakeUser, message: RecordedMessage, action: str) -> RecordedMessage:
        table = h.service.table(key)
        where = f"{key.channel_id}.{table.id}" if table is not None else key.channel_id
        iid = await fake.click_button(user.id, guild_id, gdm.id, message.id, f"liars:{action}:{key.server_id}:{where}")
        await h.service.drain()
        await fake.wait_for(lambda: fake.interactions[iid].acknowledged and True)
        answers = [m for m in fake.messages.values() if m.interaction_id == iid and m.ephemeral]
        return await fake.wait_for(lambda: next((m for m in fake.messages.values()
                                                 if m.interaction_id == iid and m.ephemeral), None)) \
            if not answers else answers[0]

    def panel(name: str) -> RecordedMessage:
        ref = h.service.panel(key, name)
        assert ref is not None
        return fake.get_message(int(ref))

    opened = await ask(h.alice, "start", computers=1, seats=4)
    assert opened.ephemeral and "You opened a table" in opened.text()
    lobby = await fake.wait_for(lambda: panel("lobby") if h.service.panel(key, "lobby") else None)
    assert not lobby.ephemeral and lobby.channel_id == gdm.id and lobby.webhook_id == fake.application_id
    assert "You are seated" in (await ask(h.carol, "join")).text()
    fake.advance(15 * 60)  # carol's token (and alice's) dies before the deal
    token_age[0] += 15 * 60
    joined = await press(h.bob, lobby, "join")
    assert "You are seated" in joined.text()
    await press(h.alice, panel("lobby"), "deal")
    await h.service.drain()
    table = h.service.table(key)
    assert table is not None and table.match is not None and serial_match(table).live_round is not None
    dealt = {int(p): s.digits for p, s in live_round(table).serials.items() if p.isdigit()}

    def whispers(user_id: int) -> dict[int, str]:
        """The serials shown to this user: ephemeral follow-ups to their own interactions."""
        mine = [m for m in fake.messages.values() if m.ephemeral and m.interaction_id is not None
                and fake.interactions[m.interaction_id].user_id == user_id]
        return serials_in_texts(m.text() for m in mine)

    # alice dealt and bob joined minutes ago: both had a live interaction, their serials came to them alone
    got = await fake.wait_for(lambda: (w := {u: whispers(u).get(1) for u in (h.alice.id, h.bob.id)})
                              and all(w.values()) and w)
    assert got == {h.alice.id: dealt[h.alice.id], h.bob.id: dealt[h.bob.id]}
    # carol has no live interaction: she is asked, publicly and without the serial, to press My serial
    await fake.wait_for(lambda: [m for m in fake.messages.values() if m.channel_id == gdm.id and not m.ephemeral
                                 and f"<@{h.carol.id}>" in m.text() and "My serial" in m.text()])
    assert whispers(h.carol.id) == {}
    mine = await press(h.carol, panel("table"), "hand")
    assert mine.ephemeral and dealt[h.carol.id] in mine.text()
    for m in fake.messages.values():  # nobody else saw a serial
        if m.channel_id == gdm.id and not m.ephemeral:
            assert not any(s in m.text() for s in dealt.values()), m.text()

    # the round: a computer seat moves at once; a player who lets the timer run out moves by the timer
    live = live_round(table)
    to_act = live.to_act
    turns = 0
    while table.live and turns < 12:
        turns += 1
        to_act = live_round(table).to_act
        if to_act == str(h.bob.id) and turns <= 3:  # bob sleeps: warned at half time, then moved for
            clock.advance(31)
            assert await h.service.tick() == 1
            clock.advance(30)
            assert await h.service.tick() == 1
            await h.service.drain()
            continue
        user = h.user(to_act)
        standing = live_round(table).standing_bid
        if standing is None:
            await ask(user, "bid", quantity=1, digit=3)
        else:
            await ask(user, "challenge")
        await h.service.drain()
    notifier = bot.service.rt.notifier
    assert isinstance(notifier, DiscordNotifier)
    await notifier.idle()
    assert not table.live or table.rounds_settled >= 1
    counted = [m for m in fake.messages.values() if m.channel_id == gdm.id and "**The count**" in m.text()]
    assert counted, "the count was not shown"
    events = await h.service.store.table_events(table.id)
    acts = [e for e in events if e["t"] == "act"]
    assert any(e.get("timeout") for e in acts), "no move by the timer"
    assert any(str(e.get("player", "")).startswith("cpu-") for e in acts), "the computer seat did not move"
    warned = [m for m in fake.messages.values() if m.channel_id == gdm.id and "seconds left to act" in m.text()]
    assert warned, "the turn warning was not shown"

    # the group's ledger is its own, and sums to 0
    balances = await h.service.store.balances(key.server)
    assert balances and sum(balances.values()) == 0 and set(balances) <= {*(str(u.id) for u in h.users), "cpu-gekko"}
    assert await h.service.store.balances(f"discord:{h.guild.id}") == {}

    # Nobody at the table touches anything for 15 minutes: every token is dead (the fake refuses them).  The
    # timer still moves the sleeper, but nothing can be shown ...
    round2 = await fake.wait_for(lambda: table.live and table.rounds_settled >= 1 and h.service.panel(key, "table"))
    fake.advance(15 * 60)
    token_age[0] += 15 * 60
    sleeper = live_round(table).to_act
    assert sleeper is not None and not sleeper.startswith("cpu-")
    edits_before = fake.get_message(int(round2)).edit_count
    clock.advance(61)
    while await h.service.tick():  # the warning, then the move for the sleeper
        clock.advance(61)
        if serial_match(table).live_round is None or live_round(table).to_act != sleeper:
            break
    await h.service.drain()
    assert fake.get_message(int(round2)).edit_count == edits_before  # ... until someone interacts:
    assert [r for r in fake.requests if r.status == 401] == []  # (no dead token was even tried)
    someone = h.alice if sleeper != str(h.alice.id) else h.bob
    mine = await press(someone, fake.get_message(int(round2)), "hand")
    assert mine.ephemeral and "serial" in mine.text().lower()  # My serial answers them alone
    await h.service.drain()
    moved = [e for e in await h.service.store.table_events(table.id) if e["t"] == "act" and e.get("timeout")]
    assert moved[-1]["player"] == sleeper  # the timer moved the sleeper while nothing could be shown
    now_round = f"Round {table.rounds_settled + 1}"
    shown = await fake.wait_for(lambda: (m := panel("table")).edit_count > edits_before and now_round in m.text()
                                and m)  # the table as it stands now, drawn again through the new interaction
    assert not shown.ephemeral and shown.channel_id == gdm.id

    # only interactions: no bot DM, no channel post, no refused post
    posts = [r for r in fake.requests if r.method == "POST" and re.search(r"/channels/\d+/messages$", r.path)]
    assert posts == [] and [r for r in fake.requests if r.path.endswith("/users/@me/channels")] == []
    assert all(fake.dms_to(u.id) == [] for u in h.users)
    assert [m for m in fake.messages.values() if m.channel_id == gdm.id and m.interaction_id is None] == []


def test_a_link_lives_fourteen_minutes_and_each_interaction_renews_it() -> None:
    now = [0.0]
    links = Links(clock=lambda: now[0])
    key = TableKey("discord", "dm5", "5")

    class Interaction:
        def __init__(self, user: int) -> None:
            self.user = type("U", (), {"id": user})()
            self.message = None
            self.guild_id = None

    assert links.served(key) and not links.served(TableKey("discord", "1", "5"))
    first = links.note(key, Interaction(1))  # type: ignore[arg-type]  # a stand-in: with no guild, Links reads only .user.id
    now[0] = 14 * 60 - 1
    assert links.newest(key) is first and links.of_user(key, "1") is first
    now[0] = 14 * 60
    try:
        links.newest(key)
    except Exception as exc:
        assert type(exc).__name__ == "NoLink"
    else:
        raise AssertionError("an expired token was offered")
    assert links.of_user(key, "1") is None
    second = links.note(key, Interaction(2))  # type: ignore[arg-type]  # a stand-in: with no guild, Links reads only .user.id
    assert links.newest(key) is second and links.of_user(key, "1") is None


async def test_nothing_goes_through_an_interaction_whose_own_answer_is_still_to_come(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow command (a `sheet settle` on a busy store) is answered "thinking…" in the channel, publicly, and the
    first follow-up through it takes that answer's place, seen as it is: a serial dealt meanwhile and whispered
    to its sender went to the whole group (the wait for the answer timed out and it was sent all the same).  Now
    a whisper never goes through it (the player is asked to press My serial), and a public message goes through
    another live interaction already answered, or none."""
    import asyncio

    from adapters.discord import links as links_module
    from adapters.discord.links import NoLink, WebhookSurface

    monkeypatch.setattr(links_module, "ANSWER_WAIT", 0.05)
    monkeypatch.setattr(links_module, "LATE_ANSWER_WAIT", 0.2)
    sent: list[tuple[int, dict[str, object]]] = []

    class Interaction:  # a stand-in: with no guild, Links reads only .user.id; the surface its response and followup
        def __init__(self, user: int) -> None:
            self.id = 100 + user
            self.user = type("U", (), {"id": user})()
            self.message = None
            self.guild_id = None
            self.response = type("R", (), {"is_done": lambda _: True})()  # deferred ("thinking…") or answered
            outer = self

            class Followup:
                async def send(self, **kwargs: object) -> object:
                    sent.append((int(outer.user.id), kwargs))
                    return type("M", (), {"id": len(sent)})()

            self.followup = Followup()

    links = Links(clock=lambda: 0.0)
    key = TableKey("discord", "dm5", "5")
    surface = WebhookSurface(links, key)
    alice = links.note(key, Interaction(1))  # type: ignore[arg-type]  # (the stand-in above)
    alice.answered = asyncio.Event()
    alice.answered.set()  # her command's answer has gone
    slow = Interaction(2)
    bob = links.note(key, slow)  # type: ignore[arg-type]
    bob.answered = asyncio.Event()  # his is still to come: "thinking…", in the channel
    # discord.py's on_interaction notes it too, before or after the command: one link, the same wait (a second
    # link without it was the way the serial went through all the same)
    assert links.note(key, slow) is bob and links.of_user(key, "2") is bob  # type: ignore[arg-type]
    assert await surface.whisper("2", content="🔒 Your serial") is False and sent == []
    assert await surface.send(content="The table") == "1" and sent == [(1, {"wait": True, "content": "The table"})]
    bob.answered.set()
    assert await surface.whisper("2", content="🔒 Your serial") is True
    assert sent[-1] == (2, {"ephemeral": True, "content": "🔒 Your serial"})
    # a whisper that began waiting before the command took the link (on_interaction noted it first, no wait set):
    # the command's wait, set meanwhile, holds it too ("thinking…" is done, its answer is not)
    dana_interaction = Interaction(4)
    deferred = [False]
    dana_interaction.response = type("R", (), {"is_done": lambda _: deferred[0]})()  # not answered yet
    dana = links.note(key, dana_interaction)  # type: ignore[arg-type]
    waiting = asyncio.ensure_future(surface.whisper("4", content="🔒 Your serial"))
    await asyncio.sleep(0.01)
    assert links.note(key, dana_interaction) is dana  # type: ignore[arg-type]  # (_through_webhooks: the same link)
    dana.answered = asyncio.Event()  # its answer to come
    deferred[0] = True  # "thinking…", in the channel
    assert await waiting is False and all(user != 4 for user, _ in sent)
    carol = links.note(key, Interaction(3))  # type: ignore[arg-type]
    carol.answered = asyncio.Event()
    alice.answered.clear()
    bob.answered.clear()
    with pytest.raises(NoLink):  # none answered, nor the newest in time: nothing goes (drawn at the next interaction)
        await surface.send(content="The table")
    assert len(sent) == 2
    late = asyncio.ensure_future(surface.send(content="The count"))  # none answered: it waits for the newest's answer
    await asyncio.sleep(0.1)
    assert not late.done()
    carol.answered.set()
    assert await late == "3" and sent[-1] == (3, {"wait": True, "content": "The count"})


async def test_a_click_answered_privately_never_draws_the_table_into_that_answer(world: Harness) -> None:
    """In a group DM a click's token edits the message it is on only if the click was answered as an update of
    it: the Raise… form and a refusal are answers of their own, so the table message itself must be edited."""
    h = world
    fake = h.fake
    gdm = fake.add_group_dm("dinner", [h.alice, h.bob, h.carol])
    key = TableKey("discord", f"dm{gdm.id}", str(gdm.id))
    g = key.server_id
    bot = await h.start()
    notifier = bot.service.rt.notifier
    assert isinstance(notifier, DiscordNotifier)

    async def ask(user: FakeUser, sub: str, **options: object) -> RecordedMessage:
        return await h.response(await fake.send_slash(user.id, None, gdm.id, "liars", sub, options))

    async def settle() -> None:
        await h.service.drain()
        await notifier.idle()

    def table_text() -> str:
        ref = h.service.panel(key, "table")
        assert ref is not None
        return fake.get_message(int(ref)).text()

    await ask(h.alice, "start")
    await fake.wait_for(lambda: h.service.panel(key, "lobby"))
    await ask(h.bob, "join")
    await ask(h.alice, "deal")
    await settle()
    table = h.service.table(key)
    assert table is not None
    first = h.user(live_round(table).to_act)
    other = h.alice if first is not h.alice else h.bob
    ref = h.service.panel(key, "table")
    assert ref is not None
    message = int(ref)
    c = f"{key.channel_id}.{table.id}"  # the components carry the table they were drawn for

    async def click(user: FakeUser, on: int, custom_id: str) -> RecordedMessage:
        iid = await fake.click_button(user.id, None, gdm.id, on, custom_id)
        await fake.wait_for(lambda: fake.interactions[iid].acknowledged and True)
        return await fake.wait_for(lambda: next((m for m in fake.messages.values() if m.interaction_id == iid), None))

    refusal = await click(other, message, f"liars:open-bid:{g}:{c}")  # out of turn: refused privately
    form = await click(first, message, f"liars:open-bid:{g}:{c}")  # the Raise… form, privately
    assert refusal.ephemeral and form.ephemeral and "not your turn" in refusal.text().lower()
    def edited_since(edits: int) -> Callable[[], bool]:
        return lambda: fake.get_message(form.id).edit_count > edits

    f = f"{c}.{table.turn}"  # a form's components carry the move it was drawn at, too
    for custom_id, values in ((f"liars:pick-bid-1:{g}:{f}", ["2"]), (f"liars:pick-bid-2:{g}:{f}", ["0"])):
        edits = fake.get_message(form.id).edit_count
        await fake.select(first.id, None, gdm.id, form.id, custom_id, values)
        await fake.wait_for(edited_since(edits))
    await fake.click_button(first.id, None, gdm.id, form.id, f"liars:go-bid:{g}:{f}:2:0")
    await settle()
    await fake.wait_for(lambda: "Standing bid: **2 zeros**" in table_text())
    assert h.service.panel(key, "table") == str(message)  # the same table message, edited in place
    assert (await ask(h.user(live_round(table).to_act), "bid", quantity=3, digit=0)).text() == "Bid placed."
    await settle()
    await fake.wait_for(lambda: "Standing bid: **3 zeros**" in table_text())
    for private in (refusal, form):  # each private answer is still only what it said
        assert "Standing bid" not in fake.get_message(private.id).text()


async def test_a_group_dm_keeps_its_own_books_and_speaks_of_no_dms(world: Harness) -> None:
    """In a group DM nobody could ever `config` or `sheet settle` (no Manage Server: every refusal sent them to
    a "server admin"); `deal` answered "Check your DMs" where no DM is sent; a bare `/liars bid` was refused
    instead of opening the Raise… form."""
    h = world
    fake = h.fake
    gdm = fake.add_group_dm("dinner", [h.alice, h.bob, h.carol])
    h.layout = "v2"
    await h.start()

    async def ask(user: FakeUser, sub: str, **options: object) -> RecordedMessage:
        iid = await fake.send_slash(user.id, None, gdm.id, top_level(sub), sub, options)
        return await h.response(iid)

    saved = await ask(h.bob, "config", stake="5")
    assert saved.ephemeral and saved.text().startswith("Settings saved."), saved.text()
    assert "stake=5" in (await ask(h.carol, "config")).text()
    settled = await ask(h.carol, "sheet", settle=True)
    assert "settled ✅" in settled.text(), settled.text()
    assert "You opened a table" in (await ask(h.alice, "start")).text()
    assert "You are seated" in (await ask(h.bob, "join")).text()
    dealt = await ask(h.alice, "deal")
    assert dealt.text() == "Dealt. Each player's serial comes to them alone, here (only they can see it).", \
        dealt.text()
    await h.service.drain()
    table = h.service.table(TableKey("discord", f"dm{gdm.id}", str(gdm.id)))
    assert table is not None and table.live
    to_act = next(u for u in (h.alice, h.bob) if str(u.id) == table.to_act)
    form = await ask(to_act, "bid")  # bare: its form, as the Raise… button opens it
    assert form.ephemeral and any(i.startswith("liars:pick-bid-1:") for i in form.custom_ids()), form.text()


async def test_in_a_group_dm_no_member_may_end_a_game_at_stake_or_kick_a_rival_still_in_it(world: Harness) -> None:
    """Every member of a group DM administers it, as a peer: a player of an elimination could otherwise make a
    rival still in it pay for dinner by a kick, or void the game they were losing by `end`."""
    h = world
    fake = h.fake
    gdm = fake.add_group_dm("dinner", [h.alice, h.bob, h.carol])
    key = TableKey("discord", f"dm{gdm.id}", str(gdm.id))
    await h.start()

    async def ask(user: FakeUser, sub: str, **options: object) -> RecordedMessage:
        return await h.response(await fake.send_slash(user.id, None, gdm.id, top_level(sub), sub, options))

    assert "You opened a table" in (await ask(h.alice, "start", format="elimination", stake=5)).text()
    await ask(h.bob, "join")
    await ask(h.carol, "join")
    await ask(h.alice, "deal")
    await h.service.drain()
    table = h.service.table(key)
    assert table is not None and table.live
    seats = list(table.seats)
    for who in (h.alice, h.bob):  # the host, and a member who is neither host nor (there is none) server admin
        kicked = await ask(who, "kick", member=h.carol.id)
        assert kicked.ephemeral and "none may remove a rival" in kicked.text(), kicked.text()
        ended = await ask(who, "end")
        assert ended.ephemeral and "none may end a game at stake" in ended.text(), ended.text()
    table = h.service.table(key)
    assert table is not None and table.live and list(table.seats) == seats
    # a member still administers what is not at stake: a table of the classic game, ended by one not its host
    other = fake.add_group_dm("lunch", [h.alice, h.bob])
    opened = await h.response(await fake.send_slash(h.alice.id, None, other.id, "liars", "start", {}))
    assert "You opened a table" in opened.text()
    ended = await h.response(await fake.send_slash(h.bob.id, None, other.id, "liars", "end", {}))
    assert "closed" in ended.text().lower(), ended.text()
    assert h.service.table(TableKey("discord", f"dm{other.id}", str(other.id))) is None


async def test_an_autocomplete_is_no_live_link_for_the_tables_messages(world: Harness) -> None:
    """Every interaction in a group DM was noted as the table's newest live link, autocompletes too: the next
    table message went out as a follow-up of an autocomplete's token, which carries none (Discord refuses it),
    and was lost."""
    h = world
    fake = h.fake
    gdm = fake.add_group_dm("dinner", [h.alice, h.bob, h.carol])
    clock = FakeClock()
    await h.start(clock=clock, links=Links(clock=lambda: 0.0))

    async def ask(user: FakeUser, sub: str, **options: object) -> RecordedMessage:
        return await h.response(await fake.send_slash(user.id, None, gdm.id, "liars", sub, options))

    await ask(h.alice, "start")
    await ask(h.bob, "join")
    await ask(h.alice, "deal")
    await h.service.drain()
    # a player starts typing /liars bid quantity:… (Discord asks for choices as they type)
    auto = await fake.send_autocomplete(h.bob.id, None, gdm.id, "liars", "bid", {"quantity": "2"}, focused="quantity")
    await fake.wait_for_callback(auto)
    before = set(fake.messages)
    clock.advance(31)  # the player to act runs low on time: the table warns them
    assert await h.service.tick() == 1
    await h.service.drain()
    [warning] = [m for i, m in fake.messages.items() if i not in before]
    assert "seconds left to act" in warning.text() and warning.interaction_id not in (None, auto)

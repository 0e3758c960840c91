"""The three surfaces a conformance script is played through, each the real thing:

* the terminal: :func:`adapters.console.app.parse_line` reads each line as the terminal does (bare text is
  the game's move for it) and the console's notifier prints the table;
* Discord: the real discord.py bot (``bot.bootstrap.discord_bot``) against the fake Discord, by slash commands (options
  typed as Discord sends them: integers), table buttons and the games' forms (selects, then the send
  button);
* Slack: the real slack-bolt app served over signed HTTP against the fake Slack, by ``/liars`` text
  commands, Block Kit buttons and modals.

Each surface plays a script at a fresh channel, with the service's random source seeded for the script,
so every surface deals the same serials or cards.  What the service answered each step is observed by
wrapping ``Service.handle`` (it is called through unchanged); the table's stored event log is the game
record compared across surfaces (player ids and names written as ``P0``/``N0`` …, timestamps and the
commitments — which hash the platform's player ids — left out).
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.console.app import ConsoleNotifier, parse_line
from adapters.discord.bot import LiarsBot
from adapters.discord.commands import top_level
from adapters.discord.config import DiscordConfig
from adapters.slack.app import serve_http
from bot.bootstrap import build_service, discord_bot
from bot.commands import resolve
from bot.model import Actor, Command, Reply, TableKey
from bot.service import Service
from core.commands import Kind
from core.game import Option
from core.registry import get_game
from tests.adapters.slack.harness import HttpDriver, make_bot
from tests.e2e.discord_helpers import AT_TURN
from tests.fakes.discord_server import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    Perm,
    RecordedMessage,
    point_discord_at,
    start_bot,
    stop_bot,
)
from tests.fakes.slack_server import FakeSlack

NAMES = ("ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo", "kim", "lou")
"""The people a surface has, in the order they take their seats (the most a table seats: 12)."""


def slack_id(name: str) -> str:
    return f"U0{name.upper()}"


@dataclass(frozen=True)
class Step:
    """One thing a player does.  ``who``: a seat (in the order the players joined), ``"turn"`` (the player
    to act) or ``"other"`` (the next player after them).  ``words``: the command's words as typed;
    ``options``: its typed values; ``via``: ``text`` (typed words), ``options`` (Discord's slash options,
    Slack's modal), ``form`` (the game's form, opened by its button), ``button`` (a table button) or
    ``bare`` (the terminal's bare text; the others type the command).  A word ``@1`` is a mention of seat
    1.  A surface without a path takes the words (the terminal has neither options nor forms)."""

    who: int | str
    name: str
    words: tuple[str, ...] = ()
    options: Mapping[str, Option] = field(default_factory=dict)
    via: str = "text"


Item = Step | Callable[[Service, TableKey], Step]
"""A step, or a function of the table's state that makes one (the state is the same on every surface)."""


@dataclass(frozen=True)
class Script:
    name: str
    seed: int
    items: tuple[Item, ...]


@dataclass
class Played:
    """What a script did on one surface: each step's (ok, code), and the table's event log."""

    answers: list[tuple[str, bool, str | None]]
    events: list[dict[str, Any]]


class Surface:
    name = "?"
    service: Service
    users: list[str]
    names: list[str]

    def __init__(self) -> None:
        self.key = TableKey("local", "local", "none")
        self.replies: list[tuple[Command, Reply]] = []
        self.channel_no = 0

    def spy(self) -> None:
        """Observe what the service answers (the call goes through unchanged)."""
        handle = self.service.handle

        async def observed(cmd: Command) -> Reply:
            reply = await handle(cmd)
            self.replies.append((cmd, reply))
            return reply

        self.service.handle = observed  # type: ignore[method-assign]  # observed: each reply is recorded

    async def next_channel(self) -> None:
        raise NotImplementedError

    async def do(self, user: int, step: Step) -> None:
        raise NotImplementedError

    def mention(self, user: int) -> str:
        return f"<@{self.users[user]}>"

    def words(self, step: Step) -> list[str]:
        """The step's words, each ``@1`` (or ``@1,``, or ``admins=@1,``) with seat 1's mention as the platform
        writes it."""
        return [re.sub(r"@(\d+)", lambda m: self.mention(int(m.group(1))), w) if re.search(r"(^|=)@\d+,?$", w)
                else w for w in step.words]

    async def play(self, script: Script) -> Played:
        await self.next_channel()
        self.service.rt.rng = random.Random(script.seed)
        answers: list[tuple[str, bool, str | None]] = []
        for item in script.items:
            step = item(self.service, self.key) if callable(item) else item
            user = self.seat(step.who)
            before = len(self.replies)
            await self.do(user, step)
            await self.service.drain()
            spec = resolve(step.name)
            assert spec is not None, step.name
            mine = [r for c, r in self.replies[before:] if c.name == spec.name]
            reply = mine[-1] if mine else None
            answers.append((f"{step.name} {' '.join(step.words)} [{step.via}]",
                            reply is not None and reply.ok, reply.code if reply is not None else "no-answer"))
        return Played(answers, await self.events())

    def seat(self, who: int | str) -> int:
        if isinstance(who, int):
            return who
        table = self.service.table(self.key)
        to_act = table.to_act if table is not None else None
        if to_act is None or table is None:
            return 0
        if who == "turn":
            return self.users.index(to_act)
        seated = [p for p in table.seats if p in self.users]  # "other": the next seated player
        return self.users.index(seated[(seated.index(to_act) + 1) % len(seated)])

    async def events(self) -> list[dict[str, Any]]:
        table_id = await self.service.rt.store.last_table(self.key.server, self.key.channel_id)
        if table_id is None:
            return []
        text = json.dumps(await self.service.rt.store.table_events(table_id), sort_keys=True)
        for i, (uid, name) in enumerate(zip(self.users, self.names, strict=True)):
            text = text.replace(uid, f"P{i}").replace(json.dumps(name), json.dumps(f"N{i}"))
        events = json.loads(text)
        for event in events:
            for k in ("at", "commitment"):
                event.pop(k, None)
        return list(events)


# -- the terminal ------------------------------------------------------------------------------------
class Console(Surface):
    name = "terminal"

    def __init__(self, service: Service, players: int) -> None:
        super().__init__()
        self.service = service
        self.users = [f"u{i:02d}" for i in range(players)]
        self.names = list(NAMES[:players])
        self.spy()

    async def next_channel(self) -> None:
        self.channel_no += 1
        self.key = TableKey("local", "local", f"terminal-{self.channel_no}")

    async def do(self, user: int, step: Step) -> None:
        table = self.service.table(self.key)
        game = table.game if table is not None else get_game("serial")
        words = self.words(step)
        line = " ".join(words) if step.via == "bare" else " ".join([step.name, *words])
        parsed = parse_line(line, game)
        assert parsed is not None
        name, args = parsed
        actor = Actor(self.users[user], self.names[user], is_admin=user == 0)
        await self.service.handle(Command(name, self.key, actor, tuple(args)))


@asynccontextmanager
async def console_surface(tmp: Path, players: int) -> AsyncIterator[Console]:
    service = await build_service(ConsoleNotifier(io.StringIO(), None, None), db_path=str(tmp / "console.sqlite3"),
                                  platform="local")
    try:
        yield Console(service, players)
    finally:
        await service.close()


# -- Discord -----------------------------------------------------------------------------------------
class Discord(Surface):
    name = "discord"

    def __init__(self, fake: FakeDiscord, bot: LiarsBot, guild: FakeGuild, users: Sequence[FakeUser],
                 channels: Sequence[FakeChannel]) -> None:
        super().__init__()
        self.fake, self.bot, self.guild, self.members = fake, bot, guild, list(users)
        self.channels = list(channels)
        self.service = bot.service
        self.users = [str(u.id) for u in users]
        self.names = [u.username for u in users]
        self.spy()

    async def next_channel(self) -> None:
        self.channel = self.channels[self.channel_no]
        self.channel_no += 1
        self.key = TableKey("discord", str(self.guild.id), str(self.channel.id))

    async def answered(self, iid: int) -> RecordedMessage:
        return await self.fake.wait_for(
            lambda: next((m for m in self.fake.interaction_responses(iid) if not m.loading), None))

    def panel_with(self, custom_id: str) -> RecordedMessage:
        for name in ("table", "lobby"):
            ref = self.service.panel(self.key, name)
            if ref is not None:
                message = self.fake.get_message(int(ref))
                if any(c.get("custom_id") == custom_id for c in message.all_components()):
                    return message
        raise AssertionError(f"no panel has {custom_id}")

    async def click(self, user: int, message: RecordedMessage, custom_id: str) -> int:
        return await self.fake.click_button(int(self.users[user]), self.guild.id, self.channel.id, message.id,
                                            custom_id)

    async def toggle(self, user: int, form: RecordedMessage, verb: str, chosen: Sequence[str]) -> None:
        """A many-choice form (Discard…): mark each chosen option's toggle, in the order the form lists them, then
        send.  Which toggle is which: the form as the service draws it for this player (its options' order)."""
        drawn = await self.service.form(self.key, self.users[user], verb)
        order = [value for value, _ in drawn.fields[0].options]
        for index in sorted(order.index(value) for value in chosen):
            toggle = next(i for i in form.custom_ids()
                          if i.startswith(f"liars:tog-{verb}:") and i.endswith(f":{index}"))
            await self.click_and_wait(user, form, toggle)
        send = next(i for i in form.custom_ids() if i.startswith(f"liars:go-{verb}:"))
        assert send.endswith(":" + "-".join(v for v in order if v in chosen)), send  # it names what it throws away
        await self.click_and_wait(user, form, send)

    async def click_and_wait(self, user: int, form: RecordedMessage, custom_id: str) -> None:
        """Click a form's component and wait for the form to be drawn again."""
        edits = form.edit_count
        await self.click(user, form, custom_id)
        await self.fake.wait_for(lambda: form.edit_count > edits or None)

    async def do(self, user: int, step: Step) -> None:
        spec = resolve(step.name)
        assert spec is not None
        g = self.guild.id
        table = self.service.table(self.key)
        c = f"{self.channel.id}.{table.id}" if table is not None else str(self.channel.id)  # drawn for this table
        if step.via == "button":  # a move on the table as drawn (a challenge) carries the turn too
            turn = f".{table.turn}" if table is not None and spec.name in AT_TURN else ""
            custom_id = f"liars:{spec.name}:{g}:{c}{turn}"
            await self.answered(await self.click(user, self.panel_with(custom_id), custom_id))
            return
        if step.via == "form":
            opener = f"liars:open-{spec.name}:{g}:{c}"
            form = await self.answered(await self.click(user, self.panel_with(opener), opener))
            values = [str(step.options[f]) for f in step.options]
            drawn = self.service.table(self.key)
            assert drawn is not None
            c = f"{c}.{drawn.turn}"  # a form's components carry the move it was drawn at, too
            if any(i.startswith(f"liars:tog-{spec.name}:") for i in form.custom_ids()):
                await self.toggle(user, form, spec.name, values[0].split())
                return
            edits = form.edit_count
            for part, value in enumerate(values, 1):
                await self.fake.select(int(self.users[user]), g, self.channel.id, form.id,
                                       f"liars:pick-{spec.name}-{part}:{g}:{c}", [value])
                def edited(n: int = edits + part) -> bool | None:
                    return form.edit_count >= n or None

                await self.fake.wait_for(edited)
            send = f"liars:go-{spec.name}:{g}:{c}:{values[0]}:{values[1] if len(values) > 1 else ''}"
            await self.click_and_wait(user, form, send)
            return
        options: dict[str, Any] = {}
        if step.via == "options":
            options = dict(step.options)
        elif step.words:
            free = spec.words
            words = self.words(step)
            if free is not None:
                options[free.name] = " ".join(words)
            else:
                named = {p.name: p for p in spec.params if not p.words}
                for word in [w for w in words if w.partition("=")[0] in named]:  # `by=money`: the option named so
                    name, _, value = word.partition("=")
                    options[name] = int(value) if named[name].kind is Kind.INT and value.isdigit() else value
                    words.remove(word)
                for param, word in zip([p for p in spec.params if not p.words and p.name not in options], words,
                                       strict=False):
                    if param.kind is Kind.USER:
                        options[param.name] = int(word.strip("<@>"))
                    elif param.kind is Kind.INT and word.isdigit():
                        options[param.name] = int(word)
                    elif param.kind is Kind.FLAG:
                        options[param.name] = True
                    else:
                        options[param.name] = word
        iid = await self.fake.send_slash(int(self.users[user]), g, self.channel.id, top_level(spec.name), spec.name,
                                         options)
        await self.answered(iid)


@asynccontextmanager
async def discord_surface(tmp: Path, channels: int, players: int) -> AsyncIterator[Discord]:
    fake = FakeDiscord()
    guild = fake.add_guild("Conformance")
    mods = fake.add_role(guild.id, "Mods", Perm.MANAGE_GUILD)
    users = [fake.add_user(n) for n in NAMES[:players]]
    for i, u in enumerate(users):
        fake.add_member(guild.id, u.id, roles=[mods.id] if i == 0 else [])
    made = [fake.add_text_channel(guild.id, f"t{n}") for n in range(channels)]
    await fake.start()
    try:
        with point_discord_at(fake):
            config = DiscordConfig(token=fake.token, db_path=str(tmp / "discord.sqlite3"))
            bot = await discord_bot(config, rng=random.Random(0), computer_delay=0.0, guild_ready_timeout=0.1)
            task = await start_bot(bot, fake)
            try:
                yield Discord(fake, bot, guild, users, made)
            finally:
                await stop_bot(bot, task)
                await bot.service.close()
    finally:
        await fake.stop()


# -- Slack -------------------------------------------------------------------------------------------
class Slack(Surface):
    name = "slack"

    def __init__(self, driver: HttpDriver, players: int) -> None:
        super().__init__()
        self.d = driver
        self.service = driver.bot.service
        self.users = [slack_id(n) for n in NAMES[:players]]
        self.names = list(NAMES[:players])
        self.spy()

    async def next_channel(self) -> None:
        self.channel_no += 1
        self.channel = f"C0T{self.channel_no}"
        self.key = TableKey("slack", self.d.fake.team_id, self.channel)

    def panel_ts(self, action: str) -> str:
        for name in ("table", "lobby"):
            ts = self.service.panel(self.key, name)
            if ts is None:
                continue
            message = self.d.fake.message(self.channel, ts) or {}
            for block in message.get("blocks") or []:
                if any(e.get("action_id") == f"liars:{action}" for e in block.get("elements") or []):
                    return ts
        raise AssertionError(f"no panel has {action}")

    async def do(self, user: int, step: Step) -> None:
        spec = resolve(step.name)
        assert spec is not None
        uid = self.users[user]
        if step.via == "button":
            await self.d.click(uid, self.panel_ts(spec.name), spec.name, channel=self.channel)
            return
        if step.via in ("form", "options") and spec.form:
            if step.via == "form":
                payload = self.d.click_payload(uid, self.panel_ts(f"open-{spec.name}"), f"open-{spec.name}",
                                               channel=self.channel)
                trigger = payload["trigger_id"]
                await self.d.send_interactive(payload)
            else:
                payload = self.d.fake.slash_command(spec.name, user_id=uid, channel_id=self.channel)
                trigger = payload["trigger_id"]
                await self.d.send_slash(payload)
            opened = await self.d.fake.wait_for(
                lambda: [c for c in self.d.fake.calls("views.open") if c.params.get("trigger_id") == trigger],
                description="the form's modal")
            view = dict(opened[0].response["view"]) if opened[0].ok and opened[0].response else None
            if view is None:
                await self.d.settled()
                return
            chosen: dict[str, str | list[str]] = {k: str(v) for k, v in step.options.items()}
            first = next(iter(chosen))
            if _multi(view, first):  # checkboxes (Discard…): every value marked
                chosen[first] = str(chosen[first]).split()
            view = await self.d.choose(uid, view, first, chosen[first])
            await self.d.send_form(uid, view, chosen)
            await self.d.settled()
            return
        text = " ".join([spec.name, *self.words(step)])
        await self.d.slash(uid, text, channel=self.channel)


def _multi(view: Mapping[str, Any], field: str) -> bool:
    """Whether the modal's ``field`` takes several values (checkboxes)."""
    for block in view.get("blocks") or []:
        element = block.get("element") or {}
        if element.get("action_id") == f"liars:field:{field}":
            return str(element.get("type")) in ("checkboxes", "multi_static_select")
    raise AssertionError(f"the modal has no {field}")


@asynccontextmanager
async def slack_surface(tmp: Path, players: int) -> AsyncIterator[Slack]:
    async with AsyncExitStack() as stack:
        fake = await stack.enter_async_context(FakeSlack(bot_token="xoxb-liars-test"))
        for i, name in enumerate(NAMES[:players]):
            fake.add_user(slack_id(name), name=name, is_admin=i == 0)
        bot = await make_bot(fake, tmp / "slack.sqlite3")
        stack.push_async_callback(bot.close)
        driver = HttpDriver(fake, bot)
        driver.url = await stack.enter_async_context(serve_http(bot, "127.0.0.1", 0))
        yield Slack(driver, players)


@asynccontextmanager
async def three_surfaces(tmp: Path, channels: int, players: int = 3) -> AsyncIterator[list[Surface]]:
    """The three surfaces, each with ``players`` people (seat 0 an admin), ``channels`` channels on Discord."""
    async with console_surface(tmp, players) as console, discord_surface(tmp, channels, players) as discord, \
            slack_surface(tmp, players) as slack:
        yield [console, discord, slack]


async def play_everywhere(surfaces: Sequence[Surface], script: Script) -> list[Played]:
    return [await s.play(script) for s in surfaces]


def same_everywhere(surfaces: Sequence[Surface], played: Sequence[Played], script: Script) -> None:
    """The same answer (ok, code) at every step and the same game record on every surface."""
    first = played[0]
    for surface, other in zip(surfaces[1:], played[1:], strict=True):
        for step, (mine, theirs) in enumerate(zip(first.answers, other.answers, strict=True)):
            assert mine == theirs, f"{script.name} step {step}: {surfaces[0].name} {mine} != {surface.name} {theirs}"
        assert first.events == other.events, f"{script.name}: the game records differ on {surface.name}"


Check = Callable[[Sequence[Surface], Sequence[Played]], Awaitable[None]]

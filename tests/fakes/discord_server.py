"""A fake Discord (REST + gateway) for end-to-end tests of a real discord.py bot.

Binds to 127.0.0.1 only (random free port) and never talks to the real Discord.

Pointing discord.py 2.7.1 at it
-------------------------------
discord.py reads three class attributes, all patched by :func:`point_discord_at`:

* ``discord.http.Route.BASE`` -- every REST call, *including* interaction callbacks and
  followup webhooks: ``discord/webhook/async_.py`` builds its URLs with the same ``Route``
  class (read when a ``Route`` is constructed, so patch before the bot starts).
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` -- used by a plain ``Client`` and
  after an INVALID_SESSION. ``AutoShardedClient`` instead asks ``GET /gateway/bot`` and
  uses the returned ``url``; after READY every client resumes on ``resume_gateway_url``.
  The fake answers both with :attr:`FakeDiscord.gateway_url`.
* ``discord.asset.Asset.BASE`` (CDN) -- redirected to ``/cdn`` here (answers 404) so that
  nothing can leak to discordapp.com.

Usage::

    fake = FakeDiscord()
    guild = fake.add_guild("Test")            # also adds channel "general" and the bot
    alice = fake.add_user("alice")
    fake.add_member(guild.id, alice.id)
    await fake.start()
    with point_discord_at(fake):
        bot = MyBot(guild_ready_timeout=0.1)   # see "Readiness" below
        task = await start_bot(bot, fake)       # login + connect, waits for on_ready
        iid = await fake.send_slash(alice.id, guild.id, guild.channel("general").id,
                                    "liars", "ping", {})
        cb = await fake.wait_for_callback(iid)
        await stop_bot(bot, task)
    await fake.stop()

Readiness: discord.py fires ``on_ready`` only after ``guild_ready_timeout`` seconds pass
without a further GUILD_CREATE (default 2 s *per shard*), even though this fake sends
READY and every GUILD_CREATE back to back. Construct the bot with
``guild_ready_timeout=0.1`` in tests. (0 is not useful: ``asyncio.wait_for`` with a 0
timeout always times out, so no ``guild_available`` events fire before ready. Guilds are
cached either way.)

What it serves
--------------
Only what the bot (``adapters/discord``, through discord.py) calls: see
:meth:`FakeDiscord._build_routes` for the REST routes; on the gateway, HELLO, heartbeats and
IDENTIFY (READY, then GUILD_CREATE per guild of the shard), and INTERACTION_CREATE for the
interactions a test injects (slash commands, autocomplete, buttons, selects). Any other route
is an unknown route (below), so a test fails when the bot starts calling something new; add
the route then.

Realism notes
-------------
* Every JSON response has ``Content-Type: application/json`` with no charset:
  ``discord.http.json_or_text`` compares the header with ``==`` and otherwise hands the
  raw text to the library (which then crashes on ``str`` indexing).
* Interaction callbacks are answered with the callback resource
  (``{"interaction": {...}, "resource": {"type": N, "message": {...}}}``) because
  discord.py 2.7 posts ``?with_response=1`` and parses it; a 204 breaks it.
* Each ``Member`` payload needs ``flags`` (``Member.__init__`` reads ``data['flags']``),
  ``roles`` and ``user``; interactions need ``attachment_size_limit``, ``version``,
  ``token``, ``application_id``; messages need ``type``, ``content``, ``author``,
  ``mentions``, ``mention_roles``, ``components`` ...; READY needs ``shard`` for
  ``AutoShardedClient`` and ``application.flags``; TextChannel needs ``position``.
* Without the GUILD_MEMBERS intent GUILD_CREATE carries only the bot's own member (as on
  Discord); with it, every member (so ``guild.chunked`` is true and nothing is requested).
  The bot asks for no privileged intent, and this fake refuses them all: IDENTIFY with one
  closes the socket with 4014, as for an app not approved for them.
* DM channels have a fixed id per user for the lifetime of the fake. ``block_dms(user)``
  makes ``POST /channels/{dm}/messages`` answer 403 ``{"code": 50007, "message": "Cannot
  send messages to this user"}`` (discord.py raises ``discord.Forbidden``); opening the DM
  channel still works, as on Discord, and interaction responses in DMs are unaffected.
* Ephemeral messages (flag 64) exist only for their interaction token: channel routes
  answer 404 (10008) for them.
* After a deferred response (callback type 5) the *first* followup replaces the "thinking"
  message (same message id, keeps the defer's ephemerality), as on Discord.
* For component interactions, ``@original`` is the message the component is on.
* Responding twice to one interaction gives 400 ``40060``; an unknown interaction or token
  gives 404 ``10062``; a followup before any callback gives 404 ``10015``.
* Message bodies are validated (empty message 50006; over-long content/embeds, too many
  rows/buttons, duplicate or over-long ``custom_id`` -> 400 ``50035`` with discord-shaped
  ``errors``) so adapter bugs fail loudly.
* Unknown routes are logged (logger ``tests.fakes.discord_server``), recorded in
  :attr:`FakeDiscord.unknown_requests` and answered 404 JSON ``{"code": 0}``.
* A session ends with its socket. A bot that reconnects and sends RESUME gets
  INVALID_SESSION(false), as Discord answers for an unknown session, and identifies again.
  Events go to the newest session of the guild's shard.
* All data (users, guilds, messages, DM channels, registered commands, interaction
  tokens) lives on the ``FakeDiscord`` object, so a new bot started against the same
  fake sees old message ids and custom ids, like a real process restart.
* Attachments are recorded with their bytes in :attr:`FakeDiscord.uploads`; their ``url``
  is not served.

Discord behaviour the bot does not use, so not modelled (notes from when it was)
------------------------------------------------------------------------------
* RESUME of a live session (after op 7 RECONNECT, or a socket the server dropped) replays
  the missed dispatches, then sends RESUMED; only a clean close by the bot (close code
  1000/1001, i.e. ``Client.close()``) ends a session for good.
* REQUEST_GUILD_MEMBERS (op 8) is answered with GUILD_MEMBERS_CHUNK.
* Bot messages are echoed back as MESSAGE_CREATE / MESSAGE_UPDATE / MESSAGE_DELETE (subject
  to the GUILD_MESSAGES / DIRECT_MESSAGES intents), except ephemeral ones. A user's guild
  message reaches a bot without the MESSAGE_CONTENT intent with its content, embeds,
  attachments and components blanked, unless it mentions the bot.
* With the IS_COMPONENTS_V2 flag (1 << 15) a message cannot also carry ``content``
  (400 50035 ``MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2``).
* Group DMs, DMs between friends (the app installed to a user), the interaction webhooks' edits and
  token lifetime, and Components V2 messages: see :mod:`tests.fakes.discord_private`.
* discord.py retries 500/502/504/524 up to 5 times with 1 s, 3 s, ... sleeps: inject 4xx
  errors for fast tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import yarl
from aiohttp import BodyPartReader, WSMsgType, web

from .discord_private import COMPONENTS_V2, PrivateFake, v2_texts

# How long a wait_for* waits by default: a bound on liveness, not a timing assertion (a wait returns as
# soon as what it waits for happens), so generous: a starved machine must not fail a passing test.
WAIT = 30.0

if TYPE_CHECKING:  # the fake itself never imports discord.py (point_discord_at does, when asked)
    import discord

__all__ = [
    "ALL_PERMISSIONS",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_EVERYONE_PERMISSIONS",
    "DiscordRequestError",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeRole",
    "FakeUser",
    "InjectedInteraction",
    "Intent",
    "Perm",
    "RecordedAction",
    "RecordedCallback",
    "RecordedMessage",
    "RecordedRequest",
    "point_discord_at",
    "start_bot",
    "stop_bot",
]

_log = logging.getLogger(__name__)

T = TypeVar("T")
JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000
JSON_HEADERS = {"Content-Type": "application/json"}
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12


class Perm:
    """Permission bits used by the fake (values as on Discord)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CONNECT = 1 << 20
    SPEAK = 1 << 21
    CHANGE_NICKNAME = 1 << 26
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31
    SEND_MESSAGES_IN_THREADS = 1 << 38
    USE_EXTERNAL_APPS = 1 << 50


ALL_PERMISSIONS = (1 << 51) - 1
DEFAULT_EVERYONE_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CONNECT
    | Perm.SPEAK
    | Perm.CHANGE_NICKNAME
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.SEND_MESSAGES_IN_THREADS
    | Perm.USE_EXTERNAL_APPS
)
DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | Perm.MANAGE_MESSAGES


class Intent:
    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


# ---------------------------------------------------------------------------------------
# World model
# ---------------------------------------------------------------------------------------


@dataclass
class FakeUser:
    id: int
    username: str
    bot: bool = False

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": None,
            "avatar": None,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: int | None = None

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass
class FakeChannel:
    """A guild text channel (type 0) or a DM channel (type 1, ``recipient_id`` set)."""

    id: int
    name: str
    guild_id: int | None
    type: int = 0
    position: int = 0
    recipient_id: int | None = None

    @property
    def is_dm(self) -> bool:
        return self.type == 1


@dataclass
class FakeMember:
    user_id: int
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=_now_iso)


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    locale: str = "en-US"
    joined_at: str = field(default_factory=_now_iso)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def channel(self, name: str) -> FakeChannel:
        for ch in self.channels.values():
            if ch.name == name:
                return ch
        raise KeyError(f"guild {self.id} has no channel named {name!r}")



# ---------------------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------------------


def _walk_components(components: Sequence[JSON]) -> Iterator[JSON]:
    for comp in components:
        yield comp
        for key in ("components",):
            inner = comp.get(key)
            if isinstance(inner, list):
                yield from _walk_components(inner)
        for key in ("component", "accessory"):
            inner_one = comp.get(key)
            if isinstance(inner_one, dict):
                yield from _walk_components([inner_one])


def _with_component_ids(components: list[JSON]) -> list[JSON]:
    """A copy of ``components`` in which every component has a numeric ``id``, as Discord assigns."""
    components = json.loads(json.dumps(components))
    used = {c["id"] for c in _walk_components(components) if isinstance(c.get("id"), int)}
    counter = 1
    for comp in _walk_components(components):
        if not isinstance(comp.get("id"), int):
            while counter in used:
                counter += 1
            comp["id"] = counter
            used.add(counter)
    return components


@dataclass
class RecordedMessage:
    """Current state of one message (bot- or user-authored). Mutated in place on edits."""

    id: int
    channel_id: int
    guild_id: int | None
    author_id: int
    content: str
    embeds: list[JSON]
    components: list[JSON]
    attachments: list[JSON]
    flags: int
    type: int
    timestamp: str
    dm_recipient_id: int | None = None
    interaction_id: int | None = None
    is_original_response: bool = False
    webhook_id: int | None = None
    edited_timestamp: str | None = None
    edit_count: int = 0
    deleted: bool = False
    allowed_mentions: JSON | None = None  # as last sent (None: Discord's default, every mention pings)

    @property
    def is_dm(self) -> bool:
        return self.dm_recipient_id is not None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    def pinged(self) -> set[int]:
        """The users whose ``<@id>`` in the content notifies them, by the message's allowed mentions."""
        mentioned = {int(i) for i in re.findall(r"<@!?(\d+)>", self.content)}
        allowed = self.allowed_mentions
        if allowed is None or "users" in (allowed.get("parse") or []):
            return mentioned
        return mentioned & {int(i) for i in allowed.get("users") or []}

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def all_components(self) -> list[JSON]:
        return list(_walk_components(self.components))

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.all_components() if "custom_id" in c]

    def component(self, custom_id: str) -> JSON:
        for comp in self.all_components():
            if comp.get("custom_id") == custom_id:
                return comp
        raise KeyError(f"message {self.id} has no component with custom_id {custom_id!r}")

    def text(self) -> str:
        """Content (or a Components V2 message's text displays) plus embed titles/descriptions/fields."""
        parts = [self.content, *v2_texts(self.components)]
        for emb in self.embeds:
            for key in ("title", "description"):
                if emb.get(key):
                    parts.append(str(emb[key]))
            for fld in emb.get("fields", []):
                parts.append(f"{fld.get('name', '')} {fld.get('value', '')}")
            footer = emb.get("footer") or {}
            if footer.get("text"):
                parts.append(str(footer["text"]))
        return "\n".join(p for p in parts if p)


@dataclass
class RecordedCallback:
    """One ``POST /interactions/{id}/{token}/callback`` that succeeded."""

    interaction_id: int
    type: int
    data: JSON
    message_id: int | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & EPHEMERAL)

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")


@dataclass
class RecordedAction:
    """History entry: kind is create/edit/delete/dm_blocked."""

    kind: str
    message_id: int | None
    channel_id: int
    body: JSON
    interaction_id: int | None = None


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0


@dataclass
class InjectedInteraction:
    id: int
    token: str
    type: int
    user_id: int
    guild_id: int | None
    channel_id: int
    payload: JSON
    message_id: int | None = None
    callback_type: int | None = None
    original_message_id: int | None = None
    created: float = 0.0  # on the fake's clock (``now()``): its token lasts ``token_ttl``

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None


@dataclass
class _Upload:
    index: int
    filename: str
    content_type: str
    data: bytes


class _UnknownRoute(Exception):
    pass


class DiscordRequestError(Exception):
    """Raised inside handlers; turned into a Discord-shaped JSON error response."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors


class _Conn:
    """One gateway websocket; after IDENTIFY it carries the bot's session, which ends with it."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.lock = asyncio.Lock()
        self.session: _Session | None = None

    async def send(self, payload: JSON) -> None:
        async with self.lock:
            if self.ws.closed:
                return
            try:
                await self.ws.send_str(json.dumps(payload))
            except (ConnectionResetError, RuntimeError):
                pass


@dataclass
class _Session:
    id: str
    shard_id: int
    intents: int
    created: float
    conn: _Conn
    seq: int = 0


def _error_tree(errors: list[tuple[str, str, str]]) -> JSON:
    root: JSON = {}
    for path, code, message in errors:
        node = root
        for part in path.split("."):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
    return root


def _json_response(data: Any, status: int = 200) -> web.Response:
    # No charset suffix: discord.py compares the header with == 'application/json'.
    return web.Response(body=json.dumps(data).encode(), status=status, headers=JSON_HEADERS)


class _Drop(Exception):
    """A handler's way to answer nothing: the connection is closed."""


@dataclass
class _Req:
    """A REST request, as handlers see it."""

    params: dict[str, str]  # from the path
    body: Any  # the JSON body (``payload_json`` of a multipart body), {} if none
    uploads: list[_Upload]
    query: Mapping[str, str]


_Handler = Callable[[_Req], Awaitable[web.StreamResponse]]


# ---------------------------------------------------------------------------------------
# The fake
# ---------------------------------------------------------------------------------------


class FakeDiscord(PrivateFake):
    """In-process fake of Discord's REST API and gateway for one bot application."""

    def __init__(self, *, shard_count: int = 1) -> None:
        self.token = "fake-bot-token"
        self.heartbeat_interval_ms = 41250
        self.shard_count = shard_count  # what GET /gateway/bot tells an AutoShardedClient to open

        self._last_id = 0
        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.dm_channels: dict[int, FakeChannel] = {}  # by user id
        self.private_channels: dict[int, FakeChannel] = {}  # group DMs and DMs between friends (no bot in them)
        self._init_private()
        self.bot_user = self.add_user("LiarsBot", bot=True)
        self.application_id = self.bot_user.id
        self.owner = self.add_user("app-owner")

        # Recording
        self.messages: dict[int, RecordedMessage] = {}
        self.actions: list[RecordedAction] = []
        self.callbacks: list[RecordedCallback] = []
        self.requests: list[RecordedRequest] = []
        self.unknown_requests: list[RecordedRequest] = []
        self.internal_errors: list[str] = []
        self.interactions: dict[int, InjectedInteraction] = {}
        self.identify_payloads: list[JSON] = []
        self.identify_count = 0
        self.blocked_dm_users: set[int] = set()
        self.dropped_dm_users: set[int] = set()
        # every interaction callback answered 404 10062, as Discord answers one sent after its 3 seconds
        self.late_callbacks = False
        self.callback_error: tuple[int, int, str] | None = None  # (status, code, message) for every callback
        # while set and not yet open, every interaction callback is held (its arrival counted) until it opens
        self.callback_gate: asyncio.Event | None = None
        self.callbacks_held = 0
        self.uploads: dict[int, bytes] = {}  # attachment id -> bytes

        # Commands: scope None = global, else guild id; name/type -> payload
        self.commands: dict[int | None, dict[tuple[str, int], JSON]] = {}

        self._sessions: dict[str, _Session] = {}
        self._conns: set[_Conn] = set()
        self._waiters: list[asyncio.Event] = []
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._routes: list[tuple[str, re.Pattern[str], _Handler, bool]] = []
        self._build_routes()

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway_handler)
        app.router.add_route("*", "/{tail:.*}", self._dispatch_http)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        site = web.SockSite(runner, sock)
        await site.start()
        self._runner = runner

    async def stop(self) -> None:
        for conn in list(self._conns):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001, message=b"fake discord stopping")
        self._conns.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeDiscord is not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def cdn_base(self) -> str:
        return f"{self.base_url}/cdn"

    # ----------------------------------------------------------------- world building

    def new_id(self) -> int:
        """A fresh, strictly increasing snowflake with a realistic timestamp."""
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if value <= self._last_id:
            value = self._last_id + 1
        self._last_id = value
        return value

    def add_user(self, username: str, *, bot: bool = False) -> FakeUser:
        user = FakeUser(id=self.new_id(), username=username, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(self, name: str = "Test Guild") -> FakeGuild:
        """Create a guild with @everyone, a managed bot role, the bot and the app owner as members,
        and a channel "general". Call before the bot connects (GUILD_CREATE is sent at IDENTIFY)."""
        gid = self.new_id()
        guild = FakeGuild(id=gid, name=name, owner_id=self.owner.id)
        guild.roles[gid] = FakeRole(id=gid, guild_id=gid, name="@everyone", permissions=DEFAULT_EVERYONE_PERMISSIONS)
        bot_role = FakeRole(
            id=self.new_id(),
            guild_id=gid,
            name=self.bot_user.username,
            permissions=DEFAULT_BOT_PERMISSIONS,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        self.guilds[gid] = guild
        self.add_member(gid, self.bot_user.id, roles=[bot_role.id])
        self.add_member(gid, guild.owner_id)
        self.add_text_channel(gid, "general")
        return guild

    def add_role(self, guild_id: int, name: str, permissions: int = 0) -> FakeRole:
        guild = self.guilds[guild_id]
        role = FakeRole(
            id=self.new_id(), guild_id=guild_id, name=name, permissions=permissions, position=len(guild.roles)
        )
        guild.roles[role.id] = role
        return role

    def add_text_channel(self, guild_id: int, name: str) -> FakeChannel:
        guild = self.guilds[guild_id]
        ch = FakeChannel(id=self.new_id(), name=name, guild_id=guild_id, type=0, position=len(guild.channels))
        guild.channels[ch.id] = ch
        return ch

    def add_member(self, guild_id: int, user_id: int, *, roles: Sequence[int] = ()) -> FakeMember:
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}; call add_user first")
        member = FakeMember(user_id=user_id, guild_id=guild_id, role_ids=list(roles))
        self.guilds[guild_id].members[user_id] = member
        return member

    def dm_channel_for(self, user_id: int) -> FakeChannel:
        """The (stable) DM channel between the bot and ``user_id``; created on first use."""
        ch = self.dm_channels.get(user_id)
        if ch is None:
            if user_id not in self.users:
                raise KeyError(f"unknown user {user_id}")
            ch = FakeChannel(id=self.new_id(), name="", guild_id=None, type=1, recipient_id=user_id)
            self.dm_channels[user_id] = ch
        return ch

    def add_group_dm(self, name: str, users: Sequence[FakeUser]) -> FakeChannel:
        """A group DM of these users (the bot is not in it: the app can be installed to them)."""
        ch = FakeChannel(id=self.new_id(), name=name, guild_id=None, type=3)
        self.private_channels[ch.id] = ch
        self.group_dms[ch.id] = [u.id for u in users]
        return ch

    def dm_between(self, a: FakeUser, b: FakeUser) -> FakeChannel:
        """The DM between two friends (not the bot's DM with either)."""
        ch = FakeChannel(id=self.new_id(), name="", guild_id=None, type=1)
        self.private_channels[ch.id] = ch
        self.group_dms[ch.id] = [a.id, b.id]
        return ch

    def block_dms(self, user_id: int) -> None:
        """Make bot-sent channel messages to this user's DM fail with 403 / 50007."""
        self.blocked_dm_users.add(user_id)

    def drop_dms(self, user_id: int) -> None:
        """Make bot-sent messages to this user's DM get no answer at all: the connection is closed (what
        a network failure looks like to the bot: aiohttp's ServerDisconnectedError)."""
        self.dropped_dm_users.add(user_id)

    # ----------------------------------------------------------------- permissions

    def member_permissions(self, guild_id: int, user_id: int) -> int:
        guild = self.guilds[guild_id]
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        perms = guild.everyone.permissions
        member = guild.members.get(user_id)
        if member is not None:
            for rid in member.role_ids:
                role = guild.roles.get(rid)
                if role is not None:
                    perms |= role.permissions
        if perms & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    # ----------------------------------------------------------------- payload builders

    def _member_payload(
        self, guild: FakeGuild, member: FakeMember, *, with_user: bool = True, permissions: int | None = None
    ) -> JSON:
        data: JSON = {
            "nick": None,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in member.role_ids],
            "joined_at": member.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
            "avatar_decoration_data": None,
        }
        if with_user:
            data["user"] = self.users[member.user_id].payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    def _channel_payload(self, ch: FakeChannel, *, permissions: int | None = None) -> JSON:
        if ch.id in self.group_dms:
            private: JSON = {"id": str(ch.id), "type": ch.type, "last_message_id": None, "flags": 0,
                    "recipients": [self.users[u].payload() for u in self.group_dms[ch.id]]}
            if ch.type == 3:
                private.update(name=ch.name, icon=None, owner_id=str(self.group_dms[ch.id][0]))
            return private
        if ch.is_dm:
            assert ch.recipient_id is not None
            data: JSON = {
                "id": str(ch.id),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self.users[ch.recipient_id].payload()],
            }
        else:
            data = {
                "id": str(ch.id),
                "type": ch.type,
                "guild_id": str(ch.guild_id),
                "name": ch.name,
                "position": ch.position,
                "permission_overwrites": [],
                "parent_id": None,
                "nsfw": False,
                "topic": None,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "flags": 0,
            }
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    def _guild_payload(self, guild: FakeGuild) -> JSON:
        # Without the (privileged) GUILD_MEMBERS intent, GUILD_CREATE carries only the bot's own member.
        members = [m for m in guild.members.values() if m.user_id == self.bot_user.id]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "icon_hash": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_presences": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "incidents_data": None,
            "joined_at": guild.joined_at,
            "large": False,
            "unavailable": False,
            "lazy": True,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": [self._member_payload(guild, m) for m in members],
            "channels": [self._channel_payload(c) for c in guild.channels.values()],
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def _bot_user_payload(self) -> JSON:
        data = self.bot_user.payload()
        data.update(discriminator="0001", verified=True, mfa_enabled=False, email=None, locale="en-US")
        return data

    def _app_payload(self) -> JSON:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "hook": True,
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": self.owner.payload(),
            "team": None,
            "flags": 0,
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
            "integration_types_config": {"0": {}},
            "bot": self._bot_user_payload(),
        }

    def _message_payload(self, msg: RecordedMessage) -> JSON:
        data: JSON = {
            "id": str(msg.id),
            "channel_id": str(msg.channel_id),
            "type": msg.type,
            "content": msg.content,
            "author": self.users[msg.author_id].payload(),
            "timestamp": msg.timestamp,
            "edited_timestamp": msg.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": msg.attachments,
            "embeds": msg.embeds,
            "components": msg.components,
            "pinned": False,
            "flags": msg.flags,
        }
        if msg.webhook_id is not None:
            data["webhook_id"] = str(msg.webhook_id)
            data["application_id"] = str(self.application_id)
        return data

    # ----------------------------------------------------------------- recording helpers

    def _notify(self) -> None:
        for ev in self._waiters:
            ev.set()

    async def wait_for(self, predicate: Callable[[], T | Literal[False] | None], timeout: float = WAIT) -> T:  # noqa: ASYNC109
        """Wait until ``predicate()`` returns something truthy and return that value.

        The predicate is re-evaluated whenever the fake records anything (and every 50 ms).
        Raises ``TimeoutError`` with a summary of recent traffic.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"FakeDiscord.wait_for timed out after {timeout}s; recent: {self.summary()}")
            ev = asyncio.Event()
            self._waiters.append(ev)
            try:
                await asyncio.wait_for(ev.wait(), timeout=min(remaining, 0.05))
            except TimeoutError:
                pass
            finally:
                self._waiters.remove(ev)

    def summary(self, last: int = 10) -> str:
        lines = [f"{r.method} {r.path} -> {r.status}" for r in self.requests[-last:]]
        return "; ".join(lines) or "(no requests)"

    def messages_in(self, channel_id: int, *, include_deleted: bool = False) -> list[RecordedMessage]:
        """Messages in a channel, oldest first (ephemeral interaction replies included)."""
        return [m for m in self.messages.values() if m.channel_id == channel_id and (include_deleted or not m.deleted)]

    def dms_to(self, user_id: int, *, include_deleted: bool = False) -> list[RecordedMessage]:
        """Messages the bot posted in its DM channel with ``user_id`` (not blocked attempts)."""
        return [
            m
            for m in self.messages.values()
            if m.dm_recipient_id == user_id and m.author_id == self.bot_user.id and (include_deleted or not m.deleted)
        ]

    def blocked_dm_attempts(self, user_id: int | None = None) -> list[RecordedAction]:
        return [
            a
            for a in self.actions
            if a.kind == "dm_blocked" and (user_id is None or a.body.get("_recipient_id") == user_id)
        ]

    def interaction_responses(self, interaction_id: int, *, include_deleted: bool = False) -> list[RecordedMessage]:
        """Messages created for the interaction: original response first, then followups."""
        return [
            m
            for m in self.messages.values()
            if m.interaction_id == interaction_id and (include_deleted or not m.deleted)
        ]

    def callbacks_for(self, interaction_id: int) -> list[RecordedCallback]:
        return [c for c in self.callbacks if c.interaction_id == interaction_id]

    def get_message(self, message_id: int) -> RecordedMessage:
        return self.messages[message_id]

    async def wait_for_callback(self, interaction_id: int, timeout: float = WAIT) -> RecordedCallback:  # noqa: ASYNC109
        def check() -> RecordedCallback | None:
            found = self.callbacks_for(interaction_id)
            return found[0] if found else None

        return await self.wait_for(check, timeout)

    async def wait_for_message(
        self,
        predicate: Callable[[RecordedMessage], bool],
        timeout: float = WAIT,  # noqa: ASYNC109
    ) -> RecordedMessage:
        def check() -> RecordedMessage | None:
            for m in self.messages.values():
                if not m.deleted and predicate(m):
                    return m
            return None

        return await self.wait_for(check, timeout)

    # ----------------------------------------------------------------- gateway

    @property
    def live_sessions(self) -> list[_Session]:
        return [s for s in self._sessions.values() if not s.conn.ws.closed]

    def _shard_for(self, guild_id: int | None) -> int:
        if guild_id is None:
            return 0
        return (guild_id >> 22) % self.shard_count

    def _session_for_shard(self, shard_id: int) -> _Session | None:
        candidates = [s for s in self._sessions.values() if s.shard_id == shard_id]
        if not candidates:
            return None
        return max(candidates, key=lambda s: s.created)

    async def remove_bot_from_guild(self, guild_id: int) -> None:
        """The bot kicked from a guild (or the guild deleted): GUILD_DELETE without ``unavailable`` to its
        shard; the guild and its channels are gone (a post there answers 404 Unknown Channel; Discord
        answers 403 Missing Access, which the bot treats alike)."""
        session = self._session_for_shard(self._shard_for(guild_id))
        assert session is not None, "no session holds this guild's shard"
        del self.guilds[guild_id]
        await self._send_dispatch(session, "GUILD_DELETE", {"id": str(guild_id)})

    async def delete_channel(self, guild_id: int, channel_id: int) -> None:
        """A guild channel deleted: CHANNEL_DELETE to the guild's shard; the channel is gone."""
        session = self._session_for_shard(self._shard_for(guild_id))
        assert session is not None, "no session holds this guild's shard"
        channel = self.guilds[guild_id].channels.pop(channel_id)
        await self._send_dispatch(session, "CHANNEL_DELETE", self._channel_payload(channel))

    async def delete_thread(self, guild_id: int, thread_id: int, parent_id: int) -> None:
        """A thread deleted: THREAD_DELETE to the guild's shard (``thread_id`` may be any channel the fake holds,
        standing for a thread: the fake has no threads of its own); the channel is gone."""
        session = self._session_for_shard(self._shard_for(guild_id))
        assert session is not None, "no session holds this guild's shard"
        self.guilds[guild_id].channels.pop(thread_id, None)
        await self._send_dispatch(session, "THREAD_DELETE", {"id": str(thread_id), "guild_id": str(guild_id),
                                                             "parent_id": str(parent_id), "type": 11})

    async def _send_dispatch(self, session: _Session, event: str, data: JSON) -> None:
        session.seq += 1
        await session.conn.send({"op": 0, "t": event, "s": session.seq, "d": data})

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = _Conn(ws)
        self._conns.add(conn)
        try:
            await conn.send(
                {
                    "op": 10,
                    "d": {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["fake-gateway"]},
                    "s": None,
                    "t": None,
                }
            )
            while True:
                msg = await ws.receive()
                if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                    break  # closed by the bot or the fake, or the TCP connection dropped
                if msg.type == WSMsgType.TEXT:
                    payload = json.loads(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    payload = json.loads(msg.data.decode())
                else:
                    continue
                await self._on_gateway_payload(conn, payload)
                if ws.closed:
                    break
        finally:
            self._conns.discard(conn)
            if conn.session is not None:
                self._sessions.pop(conn.session.id, None)
            self._notify()
        return ws

    async def _on_gateway_payload(self, conn: _Conn, payload: JSON) -> None:
        op = payload.get("op")
        d = payload.get("d")
        if op == 1:
            await conn.send({"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            await self._identify(conn, d or {})
        elif op == 6:
            # RESUME: sessions end with their connection here, so every session is unknown, and
            # Discord answers an unknown session with INVALID_SESSION(false): identify afresh.
            await conn.send({"op": 9, "d": False, "s": None, "t": None})
        else:
            _log.warning("FakeDiscord gateway: unknown op %s: %s", op, payload)

    async def _identify(self, conn: _Conn, d: JSON) -> None:
        self.identify_payloads.append(d)
        if d.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(d.get("intents") or 0)
        if intents & Intent.PRIVILEGED:  # as for an app not approved for privileged intents
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard = d.get("shard") or [0, 1]
        shard_id, shard_count = int(shard[0]), int(shard[1])
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        self.identify_count += 1
        session = _Session(id=uuid.uuid4().hex, shard_id=shard_id, intents=intents, created=time.monotonic(), conn=conn)
        conn.session = session
        self._sessions[session.id] = session
        my_guilds = [g for g in self.guilds.values() if self._shard_for(g.id) == shard_id and g.id not in self.apart]
        ready: JSON = {
            "v": 10,
            "user": self._bot_user_payload(),
            "user_settings": {},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in my_guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "shard": [shard_id, shard_count],
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "auth": {},
            "_trace": ["fake-gateway"],
        }
        await self._send_dispatch(session, "READY", ready)
        if intents & Intent.GUILDS:
            for guild in my_guilds:
                await self._send_dispatch(session, "GUILD_CREATE", self._guild_payload(guild))
        self._notify()

    # ----------------------------------------------------------------- interaction injection

    def _find_command(self, name: str, guild_id: int | None, cmd_type: int = 1) -> JSON:
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            cmd = self.commands.get(scope, {}).get((name, cmd_type))
            if cmd is not None:
                return cmd
        registered = {str(scope): sorted(n for n, _ in cmds) for scope, cmds in self.commands.items()}
        raise LookupError(
            f"command {name!r} (type {cmd_type}) is not registered for guild {guild_id} or globally; "
            f"registered: {registered}. Did the bot sync its command tree?"
        )

    def _base_interaction(
        self, itype: int, user_id: int, guild_id: int | None, channel_id: int | None, member_permissions: int | None
    ) -> tuple[InjectedInteraction, JSON]:
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}; call add_user first")
        iid = self.new_id()
        token = f"itok.{iid}.{secrets.token_hex(8)}"
        payload: JSON = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "token": token,
            "version": 1,
            "locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild_id is not None:
            guild = self.guilds[guild_id]
            if channel_id is None:
                raise ValueError("channel_id is required for guild interactions")
            channel = guild.channels[channel_id]
            member = guild.members.get(user_id)
            if member is None:
                raise KeyError(f"user {user_id} is not a member of guild {guild_id}; call add_member")
            perms = self.member_permissions(guild_id, user_id) if member_permissions is None else member_permissions
            app_perms = self.member_permissions(guild_id, self.bot_user.id)
            payload.update(
                guild_id=str(guild_id),
                guild={"id": str(guild_id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                channel_id=str(channel_id),
                channel=self._channel_payload(channel, permissions=perms),
                member=self._member_payload(guild, member, permissions=perms),
                app_permissions=str(app_perms),
                authorizing_integration_owners={"1": str(user_id)} if guild_id in self.apart else {"0": str(guild_id)},
                context=0,
            )
        else:
            channel = self.dm_channel_for(user_id) if channel_id is None else self._find_channel(channel_id)
            dm_perms = (
                Perm.ADD_REACTIONS
                | Perm.VIEW_CHANNEL
                | Perm.SEND_MESSAGES
                | Perm.EMBED_LINKS
                | Perm.ATTACH_FILES
                | Perm.READ_MESSAGE_HISTORY
                | Perm.USE_EXTERNAL_EMOJIS
                | Perm.USE_APPLICATION_COMMANDS
            )
            private = channel.id in self.group_dms
            if private and user_id not in self.group_dms[channel.id]:
                raise KeyError(f"user {user_id} is not in the private channel {channel.id}")
            payload.update(
                channel_id=str(channel.id),
                channel=self._channel_payload(channel),
                user=self.users[user_id].payload(),
                app_permissions=str(dm_perms),
                **self._private_context(3 if private else 1, user_id),
            )
        inter = InjectedInteraction(
            id=iid,
            token=token,
            type=itype,
            user_id=user_id,
            guild_id=guild_id,
            channel_id=channel.id,
            payload=payload,
            created=self.now(),
        )
        return inter, payload

    def _resolve_value(self, opt_type: int, value: Any, guild_id: int | None, resolved: JSON) -> Any:
        """An option's value as Discord sends it; a user (type 6) also goes into ``resolved``."""
        if opt_type == 3:
            return str(value)
        if opt_type == 4:
            return int(value)
        if opt_type == 5:
            return bool(value)
        if opt_type == 6:
            user_id = int(getattr(value, "id", value))
            if user_id not in self.users:
                raise KeyError(f"cannot resolve user option value {value!r}")
            resolved.setdefault("users", {})[str(user_id)] = self.users[user_id].payload()
            guild = self.guilds.get(guild_id) if guild_id is not None else None
            if guild is not None and user_id in guild.members:
                resolved.setdefault("members", {})[str(user_id)] = self._member_payload(
                    guild, guild.members[user_id], with_user=False,
                    permissions=self.member_permissions(guild.id, user_id),
                )
            return str(user_id)
        raise NotImplementedError(f"option type {opt_type} is not supported by FakeDiscord")

    @staticmethod
    def _check_value(opt: JSON, value: Any) -> None:
        """What Discord's client lets a person send for this option: within its ``min_value``/``max_value`` and
        ``min_length``/``max_length``, one of its ``choices`` (unless it autocompletes, where anything typed
        goes), and never an empty string.  A test sending what no client can send is told so (a command tree
        whose bounds shut out a legal value — ``digit`` from 1, when 0 is a digit — fails its tests here)."""
        name, kind = opt["name"], opt["type"]
        if kind == 3 and str(value) == "":
            raise ValueError(f"option {name!r}: Discord's client sends no empty text")
        if kind in (4, 10):
            number = int(value) if kind == 4 else float(value)
            if "min_value" in opt and number < opt["min_value"]:
                raise ValueError(f"option {name!r}: {value!r} is under its min_value {opt['min_value']}")
            if "max_value" in opt and number > opt["max_value"]:
                raise ValueError(f"option {name!r}: {value!r} is over its max_value {opt['max_value']}")
        if kind == 3:
            if "min_length" in opt and len(str(value)) < opt["min_length"]:
                raise ValueError(f"option {name!r}: {value!r} is shorter than its min_length {opt['min_length']}")
            if "max_length" in opt and len(str(value)) > opt["max_length"]:
                raise ValueError(f"option {name!r}: {len(str(value))} characters, over its max_length")
        choices = opt.get("choices") or []
        if choices and not opt.get("autocomplete") and value not in [c["value"] for c in choices]:
            raise ValueError(f"option {name!r}: {value!r} is none of its choices {[c['value'] for c in choices]}")

    def _build_options(
        self,
        schema: Sequence[JSON],
        values: Mapping[str, Any],
        guild_id: int | None,
        resolved: JSON,
        focused: str | None = None,
    ) -> list[JSON]:
        by_name = {o["name"]: o for o in schema}
        out: list[JSON] = []
        for name, value in values.items():
            opt = by_name.get(name)
            if opt is None:
                raise KeyError(f"option {name!r} not in registered options {sorted(by_name)}")
            if focused == name:
                out.append({"name": name, "type": opt["type"], "value": str(value), "focused": True})
            else:
                if focused is None:  # (an autocomplete sends the other options as typed so far, unchecked)
                    self._check_value(opt, value)
                out.append(
                    {
                        "name": name,
                        "type": opt["type"],
                        "value": self._resolve_value(opt["type"], value, guild_id, resolved),
                    }
                )
        if focused is None:
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
            if missing:
                raise ValueError(f"required options missing: {missing}")
        return out

    def _command_data(
        self,
        name: str,
        subcommand: str | None,
        options: Mapping[str, Any],
        guild_id: int | None,
        focused: str | None = None,
    ) -> JSON:
        cmd = self._find_command(name, guild_id)
        resolved: JSON = {}
        schema: list[JSON] = cmd.get("options") or []
        if subcommand:
            path = subcommand.split()
            wrappers: list[JSON] = []
            for part in path:
                node = next((o for o in schema if o["name"] == part and o["type"] in (1, 2)), None)
                if node is None:
                    raise KeyError(f"subcommand {part!r} not found under {name!r}")
                wrappers.append({"name": part, "type": node["type"]})
                schema = node.get("options") or []
            leaf_opts = self._build_options(schema, options, guild_id, resolved, focused)
            wrappers[-1]["options"] = leaf_opts
            for i in range(len(wrappers) - 2, -1, -1):
                wrappers[i]["options"] = [wrappers[i + 1]]
            top_opts = [wrappers[0]]
        else:
            top_opts = self._build_options(schema, options, guild_id, resolved, focused)
        data: JSON = {"id": cmd["id"], "name": name, "type": 1, "options": top_opts}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    async def _inject(self, inter: InjectedInteraction) -> int:
        session = self._session_for_shard(self._shard_for(inter.guild_id))
        if session is None:
            raise RuntimeError("no bot session is connected to FakeDiscord")
        self.interactions[inter.id] = inter
        await self._send_dispatch(session, "INTERACTION_CREATE", inter.payload)
        return inter.id

    async def send_slash(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int | None,
        name: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        member_permissions: int | None = None,
    ) -> int:
        """Inject a CHAT_INPUT command. Returns the interaction id.

        ``subcommand`` may be ``"sub"`` or ``"group sub"``; ``options`` maps option name to a
        value (users/roles/channels may be ids or objects with ``.id``; the matching
        ``resolved`` data is added). Types come from the registered command, which must
        exist (guild commands first, then global). ``guild_id=None`` makes a DM interaction
        (``channel_id`` None = the user's DM channel). ``member_permissions`` overrides the
        permissions computed from the member's roles.
        """
        inter, payload = self._base_interaction(2, user_id, guild_id, channel_id, member_permissions)
        if channel_id in self.group_dms and not self._allows_private(self._find_command(name, None)):
            raise LookupError(f"/{name} is not registered for user installs in private channels")
        if guild_id in self.apart and 1 not in (self._find_command(name, None).get("integration_types") or []):
            raise LookupError(f"/{name} is not registered for user installs")
        payload["data"] = self._command_data(name, subcommand, options or {}, guild_id)
        return await self._inject(inter)

    async def send_stale_slash(self, user_id: int, guild_id: int, channel_id: int, name: str, subcommand: str) -> int:
        """A CHAT_INPUT command for a subcommand the app no longer registers, as a client whose command list
        is out of date sends it (Discord takes a while to update clients after a sync)."""
        inter, payload = self._base_interaction(2, user_id, guild_id, channel_id, None)
        registered = self._find_command(name, guild_id)
        payload["data"] = {"id": registered["id"], "name": name, "type": 1,
                           "options": [{"name": subcommand, "type": 1, "options": []}]}
        return await self._inject(inter)

    async def send_dm_slash(
        self, user_id: int, name: str, subcommand: str | None = None, options: Mapping[str, Any] | None = None
    ) -> int:
        return await self.send_slash(user_id, None, None, name, subcommand, options)

    async def send_autocomplete(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int | None,
        name: str,
        subcommand: str | None,
        options: Mapping[str, Any],
        focused: str,
    ) -> int:
        """Inject an autocomplete request (type 4); the callback (type 8) has ``data.choices``."""
        inter, payload = self._base_interaction(4, user_id, guild_id, channel_id, None)
        payload["data"] = self._command_data(name, subcommand, options, guild_id, focused=focused)
        return await self._inject(inter)

    async def _component_interaction(
        self, user_id: int, guild_id: int | None, channel_id: int, message_id: int, custom_id: str, data: JSON
    ) -> int:
        """Inject a component interaction (type 3) on a recorded message; the component must be on it,
        be of the type ``data`` names and not be disabled."""
        msg = self.messages.get(message_id)
        if msg is None or msg.deleted:
            raise KeyError(f"unknown message {message_id}")
        if msg.channel_id != channel_id:
            raise ValueError(f"message {message_id} is in channel {msg.channel_id}, not {channel_id}")
        comp = msg.component(custom_id)
        if comp.get("type") != data["component_type"]:
            raise ValueError(f"component {custom_id!r} has type {comp.get('type')}, not {data['component_type']}")
        if comp.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        if "values" in data:
            allowed = {o["value"] for o in comp.get("options", [])}
            bad = [v for v in data["values"] if v not in allowed]
            if bad:
                raise ValueError(f"values {bad} not among select options {sorted(allowed)}")
        inter, payload = self._base_interaction(3, user_id, guild_id, channel_id, None)
        inter.message_id = message_id
        payload["data"] = {"custom_id": custom_id, "id": comp.get("id"), **data}
        payload["message"] = self._message_payload(msg)
        return await self._inject(inter)

    async def click_button(
        self, user_id: int, guild_id: int | None, channel_id: int, message_id: int, custom_id: str
    ) -> int:
        """Inject a button click (component_type 2) on a recorded message."""
        data: JSON = {"component_type": 2}
        return await self._component_interaction(user_id, guild_id, channel_id, message_id, custom_id, data)

    async def select(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int,
        message_id: int,
        custom_id: str,
        values: Sequence[str],
    ) -> int:
        """Inject a string-select choice (component_type 3); the values must be among its options."""
        data: JSON = {"component_type": 3, "values": list(values)}
        return await self._component_interaction(user_id, guild_id, channel_id, message_id, custom_id, data)

    # ----------------------------------------------------------------- HTTP plumbing

    def _build_routes(self) -> None:
        """The REST routes the bot calls (through discord.py); anything else is an unknown route."""
        r = self._add_route
        app, cid, mid = r"(?P<app>\d+)", r"(?P<cid>\d+)", r"(?P<mid>\d+)"
        r("GET", r"/gateway/bot", self._h_gateway_bot)  # AutoShardedClient asks for its gateway and shards
        r("GET", r"/users/@me", self._h_me)  # login
        r("GET", r"/oauth2/applications/@me", self._h_app)  # application id and flags, at start-up
        r("PUT", rf"/applications/{app}/commands", self._h_put_commands)  # tree.sync()
        r("PUT", rf"/applications/{app}/guilds/(?P<gid>\d+)/commands", self._h_put_commands)  # tree.sync(guild=)
        r("POST", r"/users/@me/channels", self._h_create_dm)
        r("POST", rf"/channels/{cid}/messages", self._h_post_message)
        r("PATCH", rf"/channels/{cid}/messages/{mid}", self._h_patch_message)
        r("DELETE", rf"/channels/{cid}/messages/{mid}", self._h_delete_message)
        r("POST", r"/interactions/(?P<iid>\d+)/(?P<token>[^/]+)/callback", self._h_callback, auth=False)
        r("POST", rf"/webhooks/{app}/(?P<token>[^/]+)", self._h_webhook_execute, auth=False)  # followup.send
        r("PATCH", rf"/webhooks/{app}/(?P<token>[^/]+)/messages/@original", self._h_webhook_patch, auth=False)
        r("DELETE", rf"/webhooks/{app}/(?P<token>[^/]+)/messages/@original", self._h_webhook_delete, auth=False)
        r("PATCH", rf"/webhooks/{app}/(?P<token>[^/]+)/messages/{mid}", self._h_webhook_patch, auth=False)
        r("DELETE", rf"/webhooks/{app}/(?P<token>[^/]+)/messages/{mid}", self._h_webhook_delete, auth=False)

    def _add_route(self, method: str, pattern: str, handler: _Handler, *, auth: bool = True) -> None:
        self._routes.append((method, re.compile(pattern + r"/?"), handler, auth))

    async def _parse_body(self, request: web.Request) -> tuple[Any, list[_Upload]]:
        if not request.can_read_body:
            return None, []
        if request.content_type.startswith("multipart/"):
            body: Any = None
            uploads: list[_Upload] = []
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                name = getattr(part, "name", None) or ""
                assert isinstance(part, BodyPartReader)  # no multipart nested in a part
                raw = await part.read()
                if name == "payload_json":
                    body = json.loads(raw.decode())
                else:
                    m = re.fullmatch(r"files\[(\d+)\]", name)
                    idx = int(m.group(1)) if m else len(uploads)
                    uploads.append(
                        _Upload(
                            index=idx,
                            filename=getattr(part, "filename", None) or f"file{idx}",
                            content_type=part.headers.get("Content-Type", "application/octet-stream"),
                            data=bytes(raw),
                        )
                    )
            return body, uploads
        raw_text = await request.text()
        return (json.loads(raw_text) if raw_text else None), []

    async def _dispatch_http(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        api = re.match(r"^/api/v\d+(/.*)$", path)
        body, uploads = await self._parse_body(request)
        rec = RecordedRequest(request.method, path, dict(request.query), body)
        self.requests.append(rec)
        try:
            if api is None:
                if path.startswith("/cdn/"):
                    raise DiscordRequestError(404, 0, "404: Not Found (fake CDN)")
                raise _UnknownRoute(path)
            sub = api.group(1)
            for method, pattern, handler, auth in self._routes:
                m = pattern.fullmatch(sub)
                if m is None or method != request.method:
                    continue
                if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                    raise DiscordRequestError(401, 0, "401: Unauthorized")
                resp = await handler(_Req(m.groupdict(), body or {}, uploads, request.query))
                rec.status = resp.status
                return resp
            raise _UnknownRoute(sub)
        except DiscordRequestError as exc:
            rec.status = exc.status
            data: JSON = {"message": exc.message, "code": exc.code}
            if exc.errors:
                data["errors"] = exc.errors
            return _json_response(data, exc.status)
        except _Drop:
            rec.status = 0
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError() from None  # aiohttp sends nothing back
        except _UnknownRoute:
            rec.status = 404
            self.unknown_requests.append(rec)
            _log.warning("FakeDiscord: unknown route %s %s body=%r", request.method, path, body)
            message = f"404: Not Found (FakeDiscord has no route {request.method} {path})"
            return _json_response({"message": message, "code": 0}, 404)
        except Exception as exc:
            # A bug in the fake (or a payload it cannot handle). 400 rather than 500 so that
            # discord.py does not sleep through its 5xx retries; tests should assert
            # ``fake.internal_errors`` is empty.
            rec.status = 400
            self.internal_errors.append(f"{request.method} {path}: {exc!r}")
            _log.exception("FakeDiscord: internal error handling %s %s", request.method, path)
            return _json_response({"message": f"FakeDiscord internal error: {exc!r}", "code": 0}, 400)
        finally:
            self._notify()

    # ----------------------------------------------------------------- start-up handlers

    async def _h_gateway_bot(self, req: _Req) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return _json_response({"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit})

    async def _h_me(self, req: _Req) -> web.Response:
        return _json_response(self._bot_user_payload())

    async def _h_app(self, req: _Req) -> web.Response:
        return _json_response(self._app_payload())

    def _validate_command(self, data: JSON) -> list[tuple[str, str, str]]:
        errors: list[tuple[str, str, str]] = []
        name = str(data.get("name", ""))
        if int(data.get("type", 1)) == 1:
            if not re.fullmatch(r"[-_\w]{1,32}", name) or name != name.lower():
                errors.append(("name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"))
            desc = str(data.get("description", ""))
            if not 1 <= len(desc) <= 100:
                errors.append(("description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."))
        if len(data.get("options") or []) > 25:
            errors.append(("options", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."))

        def options(where: str, listed: list[JSON]) -> None:  # subcommands and their options: each described
            for i, option in enumerate(listed):
                if not 1 <= len(str(option.get("description", ""))) <= 100:
                    errors.append((f"{where}.{i}.description", "BASE_TYPE_BAD_LENGTH",
                                   "Must be between 1 and 100 in length."))
                options(f"{where}.{i}.options", option.get("options") or [])

        options("options", data.get("options") or [])
        return errors

    async def _h_put_commands(self, req: _Req) -> web.Response:
        """Bulk overwrite: the scope's commands become exactly these (ids kept for unchanged names)."""
        if int(req.params["app"]) != self.application_id:
            raise DiscordRequestError(403, 50001, "Missing Access")
        scope = int(req.params["gid"]) if req.params.get("gid") else None
        if scope is not None and scope not in self.guilds:
            raise DiscordRequestError(404, 10004, "Unknown Guild")
        existing = self.commands.get(scope, {})
        new: dict[tuple[str, int], JSON] = {}
        for data in req.body or []:
            errors = self._validate_command(data)
            if errors:
                raise DiscordRequestError(400, 50035, "Invalid Form Body", _error_tree(errors))
            key = (str(data["name"]), int(data.get("type", 1)))
            old = existing.get(key)
            cmd: JSON = {
                "default_member_permissions": None,
                "dm_permission": True,
                "nsfw": False,
                "contexts": None,
                "integration_types": [0],
                "options": [],
                "description": "",
                **data,
                "id": old["id"] if old else str(self.new_id()),
                "application_id": str(self.application_id),
                "version": str(self.new_id()),
                "type": key[1],
            }
            if scope is not None:
                cmd["guild_id"] = str(scope)
            new[key] = cmd
        self.commands[scope] = new
        return _json_response(list(new.values()))

    # ----------------------------------------------------------------- messages

    def _validate_message(self, body: JSON, *, has_files: bool, partial: bool) -> None:
        """Discord's limits on what the bot sends: 400 50035 with discord-shaped ``errors``, or 50006."""
        errors: list[tuple[str, str, str]] = []
        if int(body.get("flags") or 0) & COMPONENTS_V2:
            files = [str(a.get("filename")) for a in body.get("attachments") or [] if a.get("filename")]
            errors = self._v2_errors(body, files)
            if errors:
                raise DiscordRequestError(400, 50035, "Invalid Form Body", _error_tree(errors))
            if not partial and not (body.get("components") or has_files):
                raise DiscordRequestError(400, 50006, "Cannot send an empty message")
            return

        def too_long(path: str, value: Any, most: int) -> None:
            if len(value) > most:
                errors.append((path, "BASE_TYPE_MAX_LENGTH", f"Must be {most} or fewer in length."))

        def bad_length(path: str, value: Any, most: int, what: str = "Must") -> None:
            if not 1 <= len(value) <= most:
                errors.append((path, "BASE_TYPE_BAD_LENGTH", f"{what} be between 1 and {most} in length."))

        too_long("content", str(body.get("content") or ""), 2000)
        embeds = body.get("embeds") or []
        too_long("embeds", embeds, 10)
        for i, emb in enumerate(embeds):
            too_long(f"embeds.{i}.title", str(emb.get("title") or ""), 256)
            too_long(f"embeds.{i}.description", str(emb.get("description") or ""), 4096)
            fields = emb.get("fields") or []
            too_long(f"embeds.{i}.fields", fields, 25)
            for j, fld in enumerate(fields):
                bad_length(f"embeds.{i}.fields.{j}.name", str(fld.get("name") or ""), 256)
                bad_length(f"embeds.{i}.fields.{j}.value", str(fld.get("value") or ""), 1024)
        components = body.get("components") or []
        too_long("components", components, 5)
        for i, row in enumerate(components):
            if row.get("type") != 1:
                message = "Top-level components must be action rows"
                errors.append((f"components.{i}.type", "UNION_TYPE_CHOICES", message))
            else:
                bad_length(f"components.{i}.components", row.get("components") or [], 5)
        seen: set[str] = set()
        for comp in _walk_components(components):
            cid = comp.get("custom_id")
            if cid is not None:
                bad_length("components", cid, 100, f"custom_id {cid!r} must")
                if cid in seen:
                    message = f"Component custom id {cid!r} cannot be duplicated"
                    errors.append(("components", "COMPONENT_CUSTOM_ID_DUPLICATED", message))
                seen.add(cid)
            if comp.get("type") == 2:
                too_long("components", str(comp.get("label") or ""), 80)
                if comp.get("style") not in (5, 6) and "custom_id" not in comp:  # link and premium buttons have none
                    errors.append(("components", "COMPONENT_CUSTOM_ID_REQUIRED", "Buttons need a custom_id"))
            if comp.get("type") == 3:
                bad_length("components", comp.get("options") or [], 25, "Select options must")
        if errors:
            raise DiscordRequestError(400, 50035, "Invalid Form Body", _error_tree(errors))
        if not partial and not (body.get("content") or embeds or components or has_files):
            raise DiscordRequestError(400, 50006, "Cannot send an empty message")

    def _make_attachments(self, body: JSON, uploads: list[_Upload], existing: list[JSON]) -> list[JSON]:
        """New uploads (named by the body's ``attachments``), plus the existing ones it keeps by id."""
        keep_ids: set[str] | None = None
        descs: dict[int, JSON] = {}
        if body.get("attachments") is not None:
            keep_ids = set()
            for a in body["attachments"]:
                aid = str(a.get("id"))
                if any(str(e["id"]) == aid for e in existing):
                    keep_ids.add(aid)
                else:
                    with contextlib.suppress(TypeError, ValueError):
                        descs[int(a["id"])] = a
        result = [e for e in existing if keep_ids is None or str(e["id"]) in keep_ids]
        for up in uploads:
            new_aid = self.new_id()
            self.uploads[new_aid] = up.data
            meta = descs.get(up.index, {})
            url = f"{self.base_url}/attachments/{new_aid}/{up.filename}"  # not served: read ``uploads``
            att: JSON = {
                "id": str(new_aid),
                "filename": meta.get("filename") or up.filename,
                "size": len(up.data),
                "url": url,
                "proxy_url": url,
                "content_type": up.content_type,
            }
            if meta.get("description"):
                att["description"] = meta["description"]
            result.append(att)
        return result

    def _new_message(
        self,
        ch: FakeChannel,
        body: JSON,
        uploads: list[_Upload],
        *,
        flags: int,
        interaction: InjectedInteraction | None = None,
        original: bool = False,
    ) -> RecordedMessage:
        """A message from the bot (``interaction``: an answer to it, ``original``: its response)."""
        msg = RecordedMessage(
            id=self.new_id(),
            channel_id=ch.id,
            guild_id=ch.guild_id,
            author_id=self.bot_user.id,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=_with_component_ids(list(body.get("components") or [])),
            attachments=self._make_attachments(body, uploads, []),
            flags=flags,
            type=20 if original and interaction is not None and interaction.type == 2 else 0,
            timestamp=_now_iso(),
            dm_recipient_id=ch.recipient_id if ch.is_dm else None,
            interaction_id=interaction.id if interaction else None,
            is_original_response=original,
            webhook_id=self.application_id if interaction else None,
            allowed_mentions=body.get("allowed_mentions"),
        )
        self.messages[msg.id] = msg
        return msg

    def _apply_edit(self, msg: RecordedMessage, body: JSON, uploads: list[_Upload]) -> None:
        self._validate_message(body, has_files=bool(uploads), partial=True)
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "allowed_mentions" in body:
            msg.allowed_mentions = body["allowed_mentions"]
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = _with_component_ids(list(body["components"] or []))
        if body.get("flags") is not None:  # IS_COMPONENTS_V2 stays once set
            msg.flags = (msg.flags & (EPHEMERAL | LOADING | COMPONENTS_V2)) | (
                int(body["flags"]) & (SUPPRESS_EMBEDS | COMPONENTS_V2))
        if "attachments" in body or uploads:
            msg.attachments = self._make_attachments(body, uploads, msg.attachments)
        msg.edited_timestamp = _now_iso()
        msg.edit_count += 1

    def _record(self, kind: str, msg: RecordedMessage, body: JSON) -> None:
        self.actions.append(RecordedAction(kind, msg.id, msg.channel_id, dict(body), msg.interaction_id))
        self._notify()

    def _find_channel(self, channel_id: int) -> FakeChannel:
        for guild in self.guilds.values():
            if channel_id in guild.channels:
                return guild.channels[channel_id]
        for dm in self.dm_channels.values():
            if dm.id == channel_id:
                return dm
        if channel_id in self.private_channels:
            return self.private_channels[channel_id]
        raise DiscordRequestError(404, 10003, "Unknown Channel")

    def _channel_message(self, req: _Req) -> RecordedMessage:
        ch = self._find_channel(int(req.params["cid"]))
        msg = self.messages.get(int(req.params["mid"]))
        if msg is None or msg.deleted or msg.channel_id != ch.id or msg.ephemeral:
            raise DiscordRequestError(404, 10008, "Unknown Message")
        return msg

    async def _h_create_dm(self, req: _Req) -> web.Response:
        try:
            user_id = int(req.body["recipient_id"])
        except (KeyError, TypeError, ValueError):
            raise DiscordRequestError(400, 50035, "Invalid Form Body") from None
        if user_id not in self.users or user_id == self.bot_user.id:
            raise DiscordRequestError(400, 50033, "Invalid Recipient(s)")
        return _json_response(self._channel_payload(self.dm_channel_for(user_id)))

    async def _h_post_message(self, req: _Req) -> web.Response:
        ch = self._find_channel(int(req.params["cid"]))
        if ch.id in self.group_dms or ch.guild_id in self.apart:  # no bot there: only interactions answer
            self.actions.append(RecordedAction("refused", None, ch.id, dict(req.body)))
            raise DiscordRequestError(403, 50001, "Missing Access")
        if ch.is_dm and ch.recipient_id in self.dropped_dm_users:
            raise _Drop()
        if ch.is_dm and ch.recipient_id in self.blocked_dm_users:
            self.actions.append(
                RecordedAction("dm_blocked", None, ch.id, {**req.body, "_recipient_id": ch.recipient_id})
            )
            raise DiscordRequestError(403, 50007, "Cannot send messages to this user")
        self._validate_message(req.body, has_files=bool(req.uploads), partial=False)
        flags = int(req.body.get("flags") or 0) & (SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2)
        msg = self._new_message(ch, req.body, req.uploads, flags=flags)
        self._record("create", msg, req.body)
        return _json_response(self._message_payload(msg))

    async def _h_patch_message(self, req: _Req) -> web.Response:
        msg = self._channel_message(req)
        self._apply_edit(msg, req.body, req.uploads)
        self._record("edit", msg, req.body)
        return _json_response(self._message_payload(msg))

    async def _h_delete_message(self, req: _Req) -> web.Response:
        msg = self._channel_message(req)
        msg.deleted = True
        self._record("delete", msg, {})
        return web.Response(status=204)

    # ----------------------------------------------------------------- interactions (REST)

    def _callback_response(
        self, inter: InjectedInteraction, cb_type: int, msg: RecordedMessage | None, loading: bool
    ) -> JSON:
        info: JSON = {
            "id": str(inter.id),
            "type": inter.type,
            "response_message_loading": loading,
            "response_message_ephemeral": bool(msg.ephemeral) if msg else False,
        }
        resource: JSON = {"type": cb_type}
        if msg is not None:
            info["response_message_id"] = str(msg.id)
            resource["message"] = self._message_payload(msg)
        return {"interaction": info, "resource": resource}

    async def _h_callback(self, req: _Req) -> web.Response:
        """Callback types: 4 message, 5 deferred message ("thinking"), 6 deferred update and 7 update
        (components only: they edit the message the component is on), 8 autocomplete choices."""
        if self.callback_gate is not None and not self.callback_gate.is_set():
            self.callbacks_held += 1
            await self.callback_gate.wait()
        inter = self.interactions.get(int(req.params["iid"]))
        if inter is None or inter.token != req.params["token"] or self.late_callbacks:
            raise DiscordRequestError(404, 10062, "Unknown interaction")
        if self.callback_error is not None:
            raise DiscordRequestError(*self.callback_error)
        if inter.acknowledged:
            raise DiscordRequestError(400, 40060, "Interaction has already been acknowledged.")
        cb_type = int(req.body.get("type", 0))
        data: JSON = req.body.get("data") or {}
        ch = self._find_channel(inter.channel_id)
        msg: RecordedMessage | None = None
        if cb_type == 4:
            self._validate_message(data, has_files=bool(req.uploads), partial=False)
            flags = int(data.get("flags") or 0) & (EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2)
            msg = self._new_message(ch, data, req.uploads, flags=flags, interaction=inter, original=True)
            inter.original_message_id = msg.id
        elif cb_type == 5:
            flags = (int(data.get("flags") or 0) & EPHEMERAL) | LOADING
            msg = self._new_message(ch, {}, [], flags=flags, interaction=inter, original=True)
            inter.original_message_id = msg.id
        elif cb_type in (6, 7):
            if inter.type != 3 or inter.message_id is None:
                raise DiscordRequestError(
                    400, 40043, "This interaction type cannot use UPDATE_MESSAGE / DEFERRED_UPDATE_MESSAGE"
                )
            inter.original_message_id = inter.message_id
            if cb_type == 7:
                msg = self.messages[inter.message_id]
                self._apply_edit(msg, data, req.uploads)
        elif cb_type != 8 or inter.type != 4:
            raise DiscordRequestError(400, 50035, f"Invalid Form Body: callback type {cb_type}")
        inter.callback_type = cb_type
        self.callbacks.append(RecordedCallback(inter.id, cb_type, data, msg.id if msg else None))
        if msg is not None:
            self._record("edit" if cb_type == 7 else "create", msg, data)
        return _json_response(self._callback_response(inter, cb_type, msg, loading=cb_type == 5))

    def _webhook_interaction(self, req: _Req) -> InjectedInteraction:
        if int(req.params["app"]) == self.application_id:
            for inter in self.interactions.values():
                if inter.token == req.params["token"]:
                    if self._token_expired(inter.created):
                        raise DiscordRequestError(401, 50027, "Invalid Webhook Token")
                    return inter
        raise DiscordRequestError(404, 10015, "Unknown Webhook")

    def _webhook_message(self, req: _Req, inter: InjectedInteraction) -> RecordedMessage:
        """``@original`` (the interaction's own message), or a follow-up that interaction sent."""
        mid = req.params.get("mid")
        msg = self.messages.get((inter.original_message_id or 0) if mid is None else int(mid))
        if msg is None or msg.deleted:
            raise DiscordRequestError(404, 10008, "Unknown Message")
        if mid is not None and msg.interaction_id != inter.id:  # another interaction's message
            raise DiscordRequestError(404, 10008, "Unknown Message")
        return msg

    async def _h_webhook_delete(self, req: _Req) -> web.Response:
        inter = self._webhook_interaction(req)
        msg = self._webhook_message(req, inter)
        msg.deleted = True
        self._record("delete", msg, {})
        return web.Response(status=204)

    async def _h_webhook_execute(self, req: _Req) -> web.StreamResponse:
        inter = self._webhook_interaction(req)
        if not inter.acknowledged or inter.type == 4:  # an autocomplete's answer is choices: it has no messages
            raise DiscordRequestError(404, 10015, "Unknown Webhook")
        self._validate_message(req.body, has_files=bool(req.uploads), partial=False)
        original = self.messages.get(inter.original_message_id) if inter.original_message_id else None
        if inter.callback_type == 5 and original is not None and original.loading and not original.deleted:
            # The first followup after a deferred response replaces the "thinking" message (once that is deleted,
            # a followup is a message of its own, with its own flags).
            original.flags &= ~LOADING
            self._apply_edit(original, req.body, req.uploads)
            msg = original
            self._record("edit", msg, req.body)
        else:
            flags = int(req.body.get("flags") or 0) & (EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS
                                                       | COMPONENTS_V2)
            ch = self._find_channel(inter.channel_id)
            msg = self._new_message(ch, req.body, req.uploads, flags=flags, interaction=inter)
            self._record("create", msg, req.body)
        if req.query.get("wait", "false").lower() in ("true", "1"):
            return _json_response(self._message_payload(msg))
        return web.Response(status=204)

    async def _h_webhook_patch(self, req: _Req) -> web.Response:
        inter = self._webhook_interaction(req)
        msg = self._webhook_message(req, inter)
        msg.flags &= ~LOADING
        self._apply_edit(msg, req.body, req.uploads)
        self._record("edit", msg, req.body)
        return _json_response(self._message_payload(msg))


# ---------------------------------------------------------------------------------------
# discord.py glue
# ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def point_discord_at(fake: FakeDiscord) -> Iterator[None]:
    """Patch discord.py's class-level URLs to the fake; restores them on exit.

    Must wrap the bot's whole life (``Route`` objects read ``BASE`` when created). Patches
    ``discord.http.Route.BASE`` (REST, interaction callbacks and followup webhooks),
    ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` and ``discord.asset.Asset.BASE``.
    """
    import discord.asset
    import discord.gateway
    import discord.http

    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    old_cdn = discord.asset.Asset.BASE
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    discord.asset.Asset.BASE = fake.cdn_base
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
        discord.asset.Asset.BASE = old_cdn


async def start_bot(client: discord.Client, fake: FakeDiscord, *, timeout: float = WAIT) -> asyncio.Task[None]:  # noqa: ASYNC109
    """``await client.login(token)`` (runs ``setup_hook``), then run ``client.connect()`` in a
    task and wait for ``on_ready``. Equivalent to ``client.start()`` split in two so that
    ``wait_until_ready`` is usable. Raises the login/connect error if the client dies
    first. Call inside :func:`point_discord_at`.
    """
    try:
        await asyncio.wait_for(client.login(fake.token), timeout=timeout)
    except BaseException:
        await client.close()
        raise
    task: asyncio.Task[None] = asyncio.create_task(client.connect(), name="fake-discord-bot")
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ready
        if task in done:
            task.result()  # re-raise the start failure
            raise RuntimeError("bot stopped before becoming ready")
        await stop_bot(client, task)
        raise TimeoutError(f"bot not ready after {timeout}s; recent: {fake.summary()}")
    return task


async def stop_bot(client: discord.Client, task: asyncio.Task[None] | None = None, *, timeout: float = WAIT) -> None:  # noqa: ASYNC109
    """Close the client (clean close: its gateway session ends) and await its start task."""
    await client.close()
    if task is not None:
        try:
            await asyncio.wait_for(task, timeout=timeout)
        except asyncio.CancelledError:
            pass

"""The composition root: the one module that builds a process from its configuration.

Every process is built here, and nowhere else, in the same order — the store (chosen by URL), the
panel book (:class:`~bot.panels.Panels`, the ids of the tables' panel messages), the notifier (which
gets the book, never the service), the service (which gets the store, the book and the notifier),
then the platform's own pieces — so no object is completed after it is built:

=====================  ==========================================================================
``liars discord``      :func:`discord_bot` (``adapters.discord.bot.run`` starts it)
``liars slack``        :func:`slack_bot` (``adapters.slack.app.run`` starts it)
``liars play``         :func:`terminal_table` (``adapters.console.app.play`` runs it)
``liars ledger`` …     :func:`build_service` with a notifier that delivers nowhere
``liars forget``       :func:`open_store` (a store, no service)
``bench/service.py``   :func:`build_service`
=====================  ==========================================================================

Timers are started by the process once it can speak (``Service.start_timers``): ``liars slack`` and
``liars discord`` after redrawing the open tables; tests drive time themselves.

Nothing below this module imports an adapter (``tests/test_composition.py`` checks it); this module imports
each adapter only inside the function that builds its process, so ``liars odds`` stays quick.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from core.game import RandomSource

from .metrics import Meter
from .model import TableKey
from .panels import Panels
from .ports import Clock, Notifier
from .service import Service

if TYPE_CHECKING:
    from adapters.console.app import ConsoleNotifier
    from adapters.discord.bot import LiarsBot
    from adapters.discord.config import DiscordConfig
    from adapters.slack.app import SlackBot
    from adapters.slack.config import SlackConfig
    from adapters.stores import Books, Database

__all__ = ["build_service", "discord_bot", "open_store", "run_loop", "slack_bot", "terminal_table", "tune_runtime"]

T = TypeVar("T")


def tune_runtime() -> None:
    """Process settings for a long-running bot (``liars discord``/``slack``, the service bench).

    The cyclic garbage collector's full passes stall the event loop for tens of milliseconds once
    thousands of tables are open; the game's garbage is almost all freed by reference counting, so
    collect far less often, and leave everything loaded at start-up out of the passes.  A shorter GIL
    switch interval lets the SQLite thread commit promptly while the event loop is busy.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    sys.setswitchinterval(0.001)


def run_loop(main: Coroutine[Any, Any, T], *, uvloop: bool = True) -> T:
    """Run ``main`` on libuv's event loop (uvloop: the same asyncio, a good deal less CPU per request)
    where it is installed and wanted, else on asyncio's own."""
    if uvloop:
        try:
            import uvloop as fast
        except ImportError:  # pragma: no cover - not installed (Windows)
            pass
        else:
            return fast.run(main)
    return asyncio.run(main)


async def open_store(db_path: str | None, **options: Any) -> Books:
    """The store for a SQLite path or a database URL (``postgresql://…``), open; by default
    ``LIARS_DATABASE_URL``, else ``LIARS_DB``, else ``./liars.sqlite3``.  Alone, for the tools that
    work on the database without a service (``liars forget``, the service bench's books): its
    :class:`~adapters.stores.Books`, not the Slack adapter's installations, which only
    :func:`slack_bot` hands on."""
    return await _open(db_path, **options)


async def _open(db_path: str | None, **options: Any) -> Database:
    from adapters import stores

    return await stores.open_store(db_path, **options)


@contextlib.asynccontextmanager
async def _building() -> AsyncIterator[contextlib.AsyncExitStack]:
    """A process being built: each thing it opens is pushed on the stack as it opens, and all of it is
    closed again, last first, if anything after fails (discord.py refusing the client's options,
    bolt refusing its app, a table that will not reload …): a failed start-up leaves no store open
    (aiosqlite's threads would keep the process from exiting) and no HTTP session.  Once the process
    is built it owns them (its ``close``)."""
    async with contextlib.AsyncExitStack() as stack:
        yield stack
        stack.pop_all()


async def _store(stack: contextlib.AsyncExitStack, db_path: str | None, **options: Any) -> Database:
    """The store, open, and closed by ``stack`` if the process is not built."""
    store = await _open(db_path, **options)
    stack.push_async_callback(store.close)
    return store


async def build_service(
    notifier: Notifier,
    *,
    db_path: str | None = None,
    clock: Clock | None = None,
    rng: RandomSource | None = None,
    computer_delay: float = 0.0,
    platform: str | None = None,
    holds: Callable[[TableKey], bool] | None = None,
    synchronous: str = "FULL",
    pool_size: int = 4,
    existing: bool = False,
) -> Service:
    """A service for a notifier that keeps no panel messages (the shell's ledger, the benches, tests):
    open the store, reload the open tables.  ``existing``: a SQLite file that is not there is refused, not
    created, nor one of an older schema upgraded (the tools that only read)."""
    async with _building() as stack:
        store = await _store(stack, db_path, synchronous=synchronous, pool_size=pool_size, existing=existing,
                             read_only=existing)  # (an older file is not upgraded in place by a reading tool)
        service = Service(store, notifier, clock=clock, rng=rng, computer_delay=computer_delay, platform=platform,
                          holds=holds)
        await service.start()
    return service


async def discord_bot(config: DiscordConfig, *, rng: RandomSource | None = None, clock: Clock | None = None,
                      computer_delay: float | None = None, sync_commands: bool = True, run_timers: bool = False,
                      meter: Meter | None = None, **options: Any) -> LiarsBot:
    """``liars discord``: the store, the panel book, then the bot — a discord.py client that builds its
    notifier on itself and the service on that notifier — with the open Discord tables reloaded (not
    yet connected).  Timers start once connected if ``run_timers``.  ``options`` go to ``LiarsBot``
    (``links``: tests drive the interaction tokens' age) and ``discord.AutoShardedClient`` (tests pass
    ``guild_ready_timeout``)."""
    from adapters import metrics
    from adapters.discord.bot import PLATFORM, LiarsBot

    delay = config.computer_delay if computer_delay is None else computer_delay
    if config.shard_count is not None:  # this process runs these shards of the bot's (others run the rest)
        options.setdefault("shard_count", config.shard_count)
        if config.shard_ids is not None:
            options.setdefault("shard_ids", list(config.shard_ids))
    options.setdefault("http_trace", metrics.http_trace(PLATFORM))  # REST calls counted by status
    async with _building() as stack:
        store = await _store(stack, config.db_path)
        panels = Panels(store)

        def service(notifier: Notifier) -> Service:
            # the tables this process times and redraws: its own shards' (a command for any table is taken)
            return Service(store, notifier, panels=panels, clock=clock, rng=rng, computer_delay=delay,
                           platform=PLATFORM, holds=lambda key: config.holds(key.server_id),
                           meter=metrics.METER if meter is None else meter)

        bot = LiarsBot(service, panels, guild_id=config.guild_id, sync_commands=sync_commands,
                       run_timers=run_timers, layout=config.layout, **options)
        await bot.service.start()
        metrics.watch(bot.service.rt)
    return bot


async def slack_bot(config: SlackConfig, *, rng: RandomSource | None = None, clock: Clock | None = None) -> SlackBot:
    """``liars slack``: the Web API client, the store, the panel book, the notifier, the service (the
    open Slack tables reloaded), then bolt's app and its listeners.  Timers are started by ``run``."""
    from adapters import metrics
    from adapters.slack.app import SlackBot, bolt_app, web_client, workspaces
    from adapters.slack.handlers import Listeners
    from adapters.slack.notifier import SlackNotifier
    from adapters.slack.render import TEXT
    from adapters.slack.responder import CannotPost, Responder

    async with _building() as stack:
        session, client = web_client(config)
        stack.push_async_callback(session.close)
        store = await _store(stack, config.db_path)
        oauth = workspaces(config, client, store)  # None for one workspace's token
        panels = Panels(store)
        responder = Responder(session)
        cannot_post = CannotPost(responder, TEXT["cannot_post"])  # the listeners note who acted where
        notifier = SlackNotifier(client, panels, oauth.workspaces if oauth is not None else None, cannot_post)
        service = Service(store, notifier, panels=panels, clock=clock, rng=rng,
                          computer_delay=config.computer_delay, platform="slack", meter=metrics.METER)
        notifier.after_panel = service.redraw_if_behind  # workers' edits of one message are not ordered
        await service.start()
        metrics.watch(service.rt)
        app = bolt_app(config, client, service, oauth)
        listeners = Listeners(service, notifier, responder=responder, cannot_post=cannot_post)
        listeners.register(app)
    return SlackBot(config, app, service, notifier, listeners, session)


async def terminal_table(out: TextIO, viewer: str | None, *, db_path: str | None, rng: RandomSource | None,
                         picture_dir: Path | None, picture_stem: str,
                         viewer_name: str) -> tuple[Service, ConsoleNotifier]:
    """``liars play``: the notifier that prints to the terminal, and the service of the local table."""
    from adapters.console.app import ConsoleNotifier

    notifier = ConsoleNotifier(out, viewer, picture_dir, picture_stem, viewer_name=viewer_name)
    return await build_service(notifier, db_path=db_path, rng=rng, platform="local"), notifier

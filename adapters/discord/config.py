"""The Discord adapter's configuration, read from the environment (and ``.env`` in development).

=========================  ===================================================================
``DISCORD_TOKEN``          the bot token (Developer Portal → your application → Bot → Reset
                           Token); always required
``DISCORD_GUILD_ID``       optional: sync ``/liars`` to this one server only, which takes effect
                           at once (for development); otherwise commands are synced globally
``DISCORD_API_BASE``       optional: the REST base, default ``https://discord.com/api/v10``; for
                           tests and proxies (``http://127.0.0.1:PORT/api/v10`` points at a fake;
                           a bare ``http://host:port`` gets ``/api/v10`` added)
``DISCORD_GATEWAY_URL``    optional: the gateway, default Discord's own (as ``/gateway/bot``
                           says); for tests and proxies (``ws://127.0.0.1:PORT/gateway``)
``DISCORD_SHARD_COUNT``    optional: the total number of shards, to split them across processes
``DISCORD_SHARD_IDS``      optional: this process's shards, e.g. ``0,1`` (needs the count); every
                           process shares one ``LIARS_DATABASE_URL``
``LIARS_DATABASE_URL``     optional: ``postgresql://user:password@host/db`` to share one database
                           between several processes (unset: SQLite)
``LIARS_DB``               the SQLite file (default ``./liars.sqlite3``)
``LIARS_COMPUTER_DELAY``   seconds a computer player waits before it acts (default 1.5)
``DISCORD_LAYOUT``         ``v2`` (default): the table message as one Components V2 container, the
                           count and its picture in it; ``classic``: text, buttons and separate posts
``LIARS_LOG_LEVEL``        logging level for ``liars discord`` (default INFO)
``LIARS_METRICS_PORT``     optional: serve Prometheus metrics (``GET /metrics``) on this port
                           (``0``: any free port, logged); unset: no metrics endpoint
``LIARS_METRICS_HOST``     optional: the address the metrics listen on (default ``0.0.0.0``: every
                           interface, for a Prometheus elsewhere; ``127.0.0.1``: this machine only)
=========================  ===================================================================

``.env``: python-dotenv is not a dependency, so :func:`read_dotenv` reads the simple subset the
project's ``.env.example`` uses: ``NAME=value`` lines, ``#`` comments (whole-line, or after a
space), optional ``export`` and optional single or double quotes.  Variables already set in the
environment win over the file.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from adapters.config import DEFAULT_COMPUTER_DELAY, ConfigError, Env, checked_url

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_API_BASE",
    "PRIVATE_PREFIX",
    "ConfigError",
    "DiscordConfig",
    "is_private_server",
    "load_dotenv",
    "read_dotenv",
]

PRIVATE_PREFIX = "dm"  # a group DM's or a DM's own ledger server id: ``dm<channel>`` (links.private_key)


def is_private_server(server_id: str) -> bool:
    """True for the server id of a group DM or a DM between friends (``links.private_key`` makes them)."""
    return server_id.startswith(PRIVATE_PREFIX)


DEFAULT_API_BASE = "https://discord.com/api/v10"


@dataclass(frozen=True, slots=True)
class DiscordConfig:
    token: str
    guild_id: int | None = None
    api_base: str | None = None  # None: discord.py's default (Discord's own)
    gateway_url: str | None = None  # None: whatever GET /gateway/bot answers
    db_path: str | None = None
    computer_delay: float = DEFAULT_COMPUTER_DELAY
    log_level: str = "INFO"
    shard_count: int | None = None  # None: discord.py asks Discord and runs every shard
    shard_ids: tuple[int, ...] | None = None  # None: all of ``shard_count``
    metrics_port: int | None = None  # None: no /metrics endpoint
    metrics_host: str = "0.0.0.0"
    layout: str = "v2"  # the table message: "v2" (Components V2) or "classic"

    def holds(self, server_id: str) -> bool:
        """Whether this process runs the shard of a server (a guild): Discord's sharding formula,
        ``(guild_id >> 22) % shard_count``, as discord.py's ``Guild.shard_id`` (which needs a loaded
        guild).  Every server when this process runs every shard.  A group DM's or a DM's table
        (``dm<channel>``) is shard 0's: Discord sends every interaction outside a server there."""
        if self.shard_count is None or self.shard_ids is None:
            return True
        if is_private_server(server_id):
            return 0 in self.shard_ids
        if not server_id.isdigit():
            return True
        return (int(server_id) >> 22) % self.shard_count in self.shard_ids

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, db_path: str | None = None) -> DiscordConfig:
        """Read and check the settings; raise :class:`ConfigError` naming what is wrong."""

        settings = Env(env)
        get = settings.get
        token = get("DISCORD_TOKEN")
        if token is None:
            raise ConfigError(
                "DISCORD_TOKEN is not set: create an application at https://discord.com/developers/applications, "
                "open Bot, press Reset Token and put the token in DISCORD_TOKEN (or in .env)."
            )
        if token.lower().startswith("bot "):
            token = token[4:].strip()  # people paste the Authorization header's value
        guild = get("DISCORD_GUILD_ID")
        if guild is not None and (not _digits(guild) or int(guild) == 0):  # (0 is no server's id)
            raise ConfigError(f"DISCORD_GUILD_ID must be a server id (digits; right-click the server → Copy Server "
                              f"ID with Developer Mode on), not {guild!r}.")
        api_base = get("DISCORD_API_BASE")
        if api_base is not None:
            parts = checked_url("DISCORD_API_BASE", api_base, ("http", "https"), DEFAULT_API_BASE)
            api_base = api_base.rstrip("/")
            if parts.path in ("", "/"):
                api_base += "/api/v10"  # a bare host: discord.py wants the versioned base
        gateway = get("DISCORD_GATEWAY_URL")
        if gateway is not None:
            checked_url("DISCORD_GATEWAY_URL", gateway, ("ws", "wss"), "wss://gateway.discord.gg")
        delay = settings.computer_delay()
        level = settings.log_level()
        settings.picture_process()  # checked here; the picture worker reads it
        shard_count, shard_ids = _shards(get("DISCORD_SHARD_COUNT"), get("DISCORD_SHARD_IDS"))
        metrics_port, metrics_host = settings.metrics()
        layout = (get("DISCORD_LAYOUT") or "v2").lower()
        if layout not in ("v2", "classic"):
            raise ConfigError(f"DISCORD_LAYOUT must be v2 or classic, not {layout!r}.")
        return cls(
            token=token,
            guild_id=int(guild) if guild else None,
            api_base=api_base,
            gateway_url=gateway,
            db_path=settings.database(db_path),
            computer_delay=delay,
            log_level=level,
            shard_count=shard_count,
            shard_ids=shard_ids,
            metrics_port=metrics_port,
            metrics_host=metrics_host,
            layout=layout,
        )


def _digits(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` takes "²" and "٣", which ``int`` then refuses (a traceback)."""
    return text.isascii() and text.isdigit()


def _shards(count_text: str | None, ids_text: str | None) -> tuple[int | None, tuple[int, ...] | None]:
    if count_text is None:
        if ids_text is not None:
            raise ConfigError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT (the total number of shards).")
        return None, None
    if not _digits(count_text) or int(count_text) < 1:
        raise ConfigError(f"DISCORD_SHARD_COUNT must be a number of shards (1 or more), not {count_text!r}.")
    count = int(count_text)
    if ids_text is None:
        return count, None
    parts = [p.strip() for p in ids_text.split(",") if p.strip()]
    if not parts or not all(_digits(p) and int(p) < count for p in parts):
        raise ConfigError(f"DISCORD_SHARD_IDS must list shard ids from 0 to {count - 1}, like 0,1; not {ids_text!r}.")
    return count, tuple(sorted({int(p) for p in parts}))


def read_dotenv(text: str, skipped: list[int] | None = None) -> dict[str, str]:
    """``NAME=value`` pairs from the text of a ``.env`` file (the subset described above); the numbers of the lines
    that are none of these go into ``skipped`` (python-dotenv's way: warned about, not fatal)."""
    out: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep or not name.replace("_", "").isalnum():
            if skipped is not None:
                skipped.append(number)
            continue
        value = value.strip()
        if value[:1] in ("'", '"') and value[0] in value[1:]:
            value = value[1 : value.index(value[0], 1)]
        else:
            for marker in (" #", "\t#"):
                cut = value.find(marker)
                if cut >= 0:
                    value = value[:cut]
            value = value.strip()
        out[name] = value
    return out


def load_dotenv(path: str | os.PathLike[str] = ".env", environ: MutableMapping[str, str] | None = None) -> bool:
    """Copy a ``.env`` file's settings into ``environ`` (default ``os.environ``) without overriding
    what is already set.  Returns whether the file existed."""
    env = os.environ if environ is None else environ
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")  # an editor's byte-order mark hid the first setting
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file} cannot be read as a .env file (UTF-8 text): {exc}") from None
    skipped: list[int] = []
    settings = read_dotenv(text, skipped)
    if skipped:  # (a YAML `NAME: value` was skipped unsaid, then "DISCORD_TOKEN is not set"; the text is not quoted:
        # a token may be in it)
        log.warning("%s: line%s %s %s not NAME=value: skipped", file, "s" if len(skipped) > 1 else "",
                    ", ".join(map(str, skipped[:10])) + (" …" if len(skipped) > 10 else ""),
                    "are" if len(skipped) > 1 else "is")
    for name, value in settings.items():
        if name not in env or not env[name].strip():
            env[name] = value
    return True

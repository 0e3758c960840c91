"""What the platforms' configurations share: reading the environment (a blank value is unset), the
error that names what is wrong, and the settings every bot process reads (``LIARS_COMPUTER_DELAY``,
the database).  Each platform's own settings are in ``adapters/<platform>/config.py``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from urllib.parse import SplitResult, urlsplit

__all__ = ["DEFAULT_COMPUTER_DELAY", "SECRET_LOGGERS", "ConfigError", "Env", "checked_url", "configure_logging"]

DEFAULT_COMPUTER_DELAY = 1.5


class ConfigError(ValueError):
    """A missing or malformed setting; the message names the variable and what it should hold."""


def checked_url(name: str, value: str, schemes: tuple[str, ...], example: str) -> SplitResult:
    """``value`` read as a URL of one of ``schemes`` with a host and, if it names one, a port 0-65535; else the
    :class:`ConfigError` that names ``name`` (urlsplit reads a port only when asked: `:99999`, `:abc` passed the
    check and failed later, after the database was opened, or as a traceback)."""
    parts = urlsplit(value)
    try:
        _ = parts.port  # read, so checked
        good = parts.scheme in schemes and bool(parts.hostname)
    except ValueError:  # the port is no number, or out of range
        good = False
    if not good:
        kind = f"{schemes[0]}(s)" if schemes == (schemes[0], schemes[0] + "s") else "/".join(schemes)
        raise ConfigError(f"{name} must be a {kind} URL like {example}, not {value!r}.")
    return parts


class Env:
    """The settings in an environment mapping (``os.environ``, or a test's dict)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def get(self, name: str) -> str | None:
        """The setting, stripped; None if it is unset or blank."""
        value = self._env.get(name, "").strip()
        return value or None

    def number(self, name: str, kind: type[int] | type[float], default: float) -> float:
        text = self.get(name)
        if text is None:
            return default
        try:
            if "_" in text:  # Python's own grouping (`1_0` is ten to int and float): no setting is written so
                raise ValueError(text)
            return kind(text)
        except ValueError:
            raise ConfigError(f"{name} must be a number, not {text!r}.") from None

    def computer_delay(self) -> float:
        """``LIARS_COMPUTER_DELAY``: seconds a computer player waits before it acts, 0 to 60."""
        delay = self.number("LIARS_COMPUTER_DELAY", float, DEFAULT_COMPUTER_DELAY)
        if not 0 <= delay <= 60:
            raise ConfigError(f"LIARS_COMPUTER_DELAY must be 0 to 60 seconds, not {delay}.")
        return delay

    def log_level(self) -> str:
        """``LIARS_LOG_LEVEL`` (the platforms; ``liars play`` logs warnings only): DEBUG, INFO (unset), WARNING, ERROR
        or CRITICAL."""
        level = (self.get("LIARS_LOG_LEVEL") or "INFO").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ConfigError(f"LIARS_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {level!r}.")
        return level

    def picture_process(self) -> bool:
        """``LIARS_PICTURE_PROCESS``: 1 (unset) draws pictures in a worker process, 0 on a thread; anything
        else is refused (``off`` or ``false`` once meant a process, as anything but exactly ``0`` did)."""
        value = self.get("LIARS_PICTURE_PROCESS") or "1"
        if value not in ("0", "1"):
            raise ConfigError(f"LIARS_PICTURE_PROCESS must be 1 (a worker process draws) or 0 (a thread), "
                              f"not {value!r}.")
        return value == "1"

    def metrics(self) -> tuple[int | None, str]:
        """``LIARS_METRICS_PORT`` (unset: no exporter of its own; ``0``: any free port) and ``LIARS_METRICS_HOST``
        (default ``0.0.0.0``): where ``liars discord``, and ``liars slack`` under Socket Mode, serve ``/metrics``."""
        port = self.get("LIARS_METRICS_PORT")
        if port is not None and not (port.isascii() and port.isdigit() and int(port) <= 65535):
            raise ConfigError(f"LIARS_METRICS_PORT must be a port number (0 to 65535), not {port!r}.")
        return (int(port) if port is not None else None), self.get("LIARS_METRICS_HOST") or "0.0.0.0"

    def database(self, db_path: str | None) -> str | None:
        """The database: ``db_path`` (``--db``), else ``LIARS_DATABASE_URL``, else ``LIARS_DB``; None
        leaves the choice to the store (``./liars.sqlite3``)."""
        return db_path or self.get("LIARS_DATABASE_URL") or self.get("LIARS_DB")


# Libraries that log what the bot writes and sends at DEBUG: the store's statements with their values (a deal's
# serials, salt and deck), Discord's and Slack's request bodies (the serial DMs).  Held at INFO whatever the level.
# discord.webhook logs each interaction's callback and follow-up URLs, its token in them (15 minutes to read the
# answer — a "My serial" among them — or to post as the bot).
SECRET_LOGGERS = ("aiosqlite", "asyncpg", "discord.http", "discord.gateway", "discord.webhook", "slack_sdk",
                  "slack_bolt")


def configure_logging(level: str | int) -> None:
    """The process's log: ``level`` for everything but :data:`SECRET_LOGGERS`, which never go below INFO."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asked = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
    for name in SECRET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, asked if isinstance(asked, int) else logging.INFO))

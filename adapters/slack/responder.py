"""Answers to ``response_url``s, over one shared aiohttp session."""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from typing import Any

import aiohttp
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.model import TableKey

__all__ = ["CannotPost", "Responder"]

log = logging.getLogger(__name__)


class Responder:
    """Posts to ``response_url``s over one shared aiohttp session (bolt's ``respond()`` opens a new
    session, hence a new connection, for every answer)."""

    def __init__(self, session: aiohttp.ClientSession | None = None) -> None:
        self._session = session
        self._retry: list[AsyncRetryHandler] = [AsyncConnectionErrorRetryHandler(max_retry_count=2)]

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        return self._session

    async def post(self, url: str, text: str, blocks: list[dict[str, Any]] | None, *, public: bool = False) -> None:
        client = AsyncWebhookClient(url, session=self.session, retry_handlers=self._retry)
        response = await client.send(text=text, blocks=blocks or None,
                                     response_type="in_channel" if public else "ephemeral", replace_original=False)
        if response.status_code != 200:
            log.warning("a response_url answered %s (%s)", response.status_code, response.body[:80])

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


class CannotPost:
    """Where the bot says that it cannot post in a channel (``not_in_channel`` …): to whoever acted there
    last, through their request's ``response_url``.  The listeners note each one (:meth:`acted`); the
    notifier calls it on such an error.  Built by the composition root and handed to both."""

    def __init__(self, responder: Responder, text: str, limit: int = 10_000) -> None:
        self.responder = responder
        self.text = text  # with ``{error}``
        self.limit = limit  # channels remembered
        self._last_url: OrderedDict[str, str] = OrderedDict()

    def acted(self, channel: str, url: Any) -> None:
        if channel and isinstance(url, str) and url:
            self._last_url[channel] = url
            self._last_url.move_to_end(channel)
            while len(self._last_url) > self.limit:
                self._last_url.popitem(last=False)

    async def __call__(self, key: TableKey, error: str) -> None:
        url = self._last_url.pop(key.channel_id, None)  # once a move: its panel, ping and count all fail alike
        if url is not None:
            with contextlib.suppress(Exception):
                await self.responder.post(url, self.text.format(error=error), None)

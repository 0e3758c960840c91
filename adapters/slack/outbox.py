"""Outboxes: what the bot posts to Slack, queued per destination and sent in the background.

The service hands its messages over (``deliver``) inside the command that produced them; sending
them there would make the person who acted wait for every Web API call, and a channel that Slack
rate-limits would hold up the acknowledgement.  So each destination (a channel, or a user's DM) has a
queue and one worker task that sends its items in order, one at a time.

Coalescing.  A panel (a message edited in place: the lobby, the table, the turn ping) has at most one
update waiting per queue: a newer update of the same panel replaces the waiting one's content, so
when Slack slows us down the latest state wins and nothing stale is sent after it.  An update never
merges into an item being sent, and a ``fresh`` panel (a new message: a new round) never merges into
an older one.  Every other item (a dealt serial, the count, an announcement) is sent exactly once,
in order.

Rate limits.  slack_sdk's ``AsyncRateLimitErrorRetryHandler`` on the client already waits out a 429
once or twice; if Slack still says ``ratelimited``, the worker waits ``Retry-After`` and sends the
item again (with whatever newer content merged into it meanwhile), as long as it takes.  Connection
errors and Slack's 5xx are retried a few times with backoff; any other Slack error is final for that
item (the sender decides what it means: see :class:`~adapters.slack.notifier.SlackNotifier`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.background import spawn

__all__ = ["Item", "Outboxes", "retry_after"]

log = logging.getLogger(__name__)

TRANSIENT_ATTEMPTS = 5  # connection errors / 5xx: tries before an item is given up
MAX_BACKOFF = 8.0


@dataclass
class Item:
    """One thing to send.  ``panel`` is the coalescing key (None: never coalesced)."""

    payload: Any
    panel: Hashable | None = None
    fresh: bool = False
    sending: bool = False
    merged: int = 0  # how many newer updates were folded into this one


def api_error(exc: SlackApiError) -> str:
    """Slack's error code for a refused call (``not_in_channel``), or the HTTP status when the answer was
    not Slack's JSON (a proxy's plain-text 503: ``SlackResponse.get`` itself fails on such data)."""
    response: Any = exc.response
    data = getattr(response, "data", None)
    if isinstance(data, dict) and data.get("error"):
        return str(data["error"])
    return str(getattr(response, "status_code", "unknown"))


def retry_after(exc: SlackApiError) -> float | None:
    """Seconds Slack asked us to wait, if ``exc`` is a rate-limit answer (HTTP 429 or ``ratelimited``)."""
    response: Any = exc.response
    status = getattr(response, "status_code", None)
    error = api_error(exc)
    if status != 429 and error != "ratelimited":
        return None
    headers = getattr(response, "headers", None) or {}
    for name, value in dict(headers).items():
        if str(name).lower() == "retry-after":
            raw = value[0] if isinstance(value, list | tuple) else value
            with contextlib.suppress(TypeError, ValueError):
                return max(0.0, float(raw))
    return 1.0


class Outboxes:
    """One FIFO queue and worker per destination.  ``send`` does the real work for one item."""

    def __init__(self, send: Callable[[Hashable, Item], Awaitable[None]], *,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._send = send
        self._sleep = sleep
        self._queues: dict[Hashable, deque[Item]] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self.sent = 0
        self.coalesced = 0
        self.rate_limited = 0

    def put(self, dest: Hashable, item: Item) -> None:
        queue = self._queues.setdefault(dest, deque())
        if item.panel is not None and not item.fresh:
            for waiting in reversed(queue):
                if waiting.panel == item.panel:
                    if not waiting.sending:  # fold the newer state into the update still waiting
                        waiting.payload = item.payload
                        waiting.merged += 1
                        self.coalesced += 1
                        return
                    break
        queue.append(item)
        self._idle.clear()
        if dest not in self._workers:
            self._workers[dest] = spawn(self._work(dest, queue), f"the Slack outbox of {dest}",
                                        name=f"slack-outbox-{dest}", logger=log)

    @property
    def pending(self) -> int:
        return sum(len(q) for q in self._queues.values())

    async def idle(self) -> None:
        """Wait until every queue is empty (everything handed over so far has been sent or given up)."""
        await self._idle.wait()

    async def close(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 - a grace period at shutdown
        """Let the queues drain for at most ``timeout`` seconds, then stop the workers."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
        workers = list(self._workers.values())
        for task in workers:
            task.cancel()
        for task in workers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.pending:
            log.warning("stopping with %d Slack messages unsent", self.pending)

    async def _work(self, dest: Hashable, queue: deque[Item]) -> None:
        try:
            while queue:
                item = queue[0]
                await self._attempt(dest, item)
                queue.popleft()
                self.sent += 1
        finally:
            self._workers.pop(dest, None)
            if not queue:
                self._queues.pop(dest, None)
            if not self._workers:
                self._idle.set()

    async def _attempt(self, dest: Hashable, item: Item) -> None:
        transient = 0
        while True:
            item.sending = True
            try:
                await self._send(dest, item)
                return
            except SlackApiError as exc:
                wait = retry_after(exc)
                status = getattr(exc.response, "status_code", 200)
                if wait is not None:
                    self.rate_limited += 1
                    log.info("Slack rate-limits %s; sending again in %.1f s", dest, wait)
                elif isinstance(status, int) and status >= 500 and transient < TRANSIENT_ATTEMPTS:
                    transient += 1
                    wait = min(MAX_BACKOFF, 0.25 * 2**transient)
                    log.warning("Slack answered %s for %s; try %d again in %.1f s", status, dest, transient, wait)
                else:
                    return  # the sender has logged what the error means
            except (aiohttp.ClientError, TimeoutError) as exc:
                if transient >= TRANSIENT_ATTEMPTS:
                    log.warning("giving up a message to %s after %d connection errors (%s)", dest, transient,
                                type(exc).__name__)
                    return
                transient += 1
                wait = min(MAX_BACKOFF, 0.25 * 2**transient)
                log.warning("cannot reach Slack for %s (%s); try %d again in %.1f s", dest, type(exc).__name__,
                            transient, wait)
            except Exception:
                log.exception("sending a message to %s failed", dest)
                return
            finally:
                item.sending = False
            await self._sleep(wait)

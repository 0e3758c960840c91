"""The common path of every Slack request: commit, acknowledge, then answer; and redeliveries.

Commit, then acknowledge.  A listener calls ``service.handle(cmd)`` first; ``handle`` returns once the
command's events (and its request id) are durably committed.  Only then is the request acknowledged
(the app runs with ``process_before_response=True``, so the HTTP 200 or the Socket Mode ack goes out
when the listener returns), and only after that does the bot talk: the private answer to the person
who acted goes at once through ``response_url`` (one shared HTTP session), and the table's messages
follow: the service queues them in its per-table outbox after the commit, and the notifier holds
that table's back (``SlackNotifier.hold``) until the answer has been posted, then sends them from
its per-destination outboxes.  So an acknowledged request is a committed one.  If the commit
takes longer than :data:`ACK_BUDGET` (Slack allows 3 seconds), the request is *not* acknowledged
(HTTP 503, no Socket Mode ack): Slack's redelivery finds the first delivery still at work, waits for
it, and is acknowledged when it has committed.  A command that fails inside the bot commits nothing;
it is acknowledged with an apology to its sender.

The acknowledgement's body.  Most requests are acknowledged bare.  A submitted modal whose command was
refused (it changed nothing) is acknowledged with ``{"response_action": "errors", "errors": {...}}``:
the work returns an :class:`AckBody`, which becomes the acknowledgement (the HTTP response's JSON body,
or the Socket Mode ack's ``payload``; slack_bolt's ``ack(dict)`` sends either), so Slack keeps the
modal open with the refusal beside a field.  A redelivery is acknowledged with the first delivery's body.

Retries.  Slack redelivers a request whose acknowledgement it missed: over HTTP with
``X-Slack-Retry-Num``, over Socket Mode as a new envelope with the same payload.  A redelivery
carries the same ``trigger_id`` (unique per user action), so ``slack:<trigger_id>:<command>`` is a
stable request id.  A request id this process has already taken is acknowledged once the first
delivery's commit is done, and not answered again; one it has not (say, after a restart) still
reaches the service, which returns the stored reply of a command it has already applied and changes
nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.commands import resolve
from bot.model import TableKey

from .notifier import SlackNotifier

__all__ = ["ACK_BUDGET", "SEEN_LIMIT", "AckBody", "AckedRequests", "After", "Work", "nothing"]

log = logging.getLogger(__name__)

SEEN_LIMIT = 10_000
ACK_BUDGET = 2.5  # seconds a listener may spend before its acknowledgement (Slack allows 3)

After = Callable[[], Awaitable[None]]  # what a request does once it is acknowledged


@dataclass(frozen=True, slots=True)
class AckBody:
    """A request's work done, acknowledged with ``body`` (``ack(body)``) rather than bare."""

    body: dict[str, Any]
    afters: list[After] = field(default_factory=list)


Work = Callable[[], Awaitable[list[After] | AckBody]]  # a request's work: commit, then say what follows


class AckedRequests:
    """Runs each request's work (its commit) before its acknowledgement and its answers after; takes a
    redelivered request once.  The listeners (:class:`adapters.slack.handlers.Listeners`) build on it."""

    def __init__(self, notifier: SlackNotifier | None = None, *, ack_budget: float = ACK_BUDGET) -> None:
        self.notifier = notifier
        self.ack_budget = ack_budget
        self._seen: OrderedDict[str, asyncio.Future[dict[str, Any] | None]] = OrderedDict()
        self._inflight: set[asyncio.Future[Any]] = set()
        # (request id, "done" | "duplicate" | "error"), newest last: for logs, health checks and tests
        self.processed: deque[tuple[str, str]] = deque(maxlen=1000)
        self.work_times: deque[float] = deque(maxlen=100_000)  # seconds from receipt to committed, per request

    def summary(self) -> str:
        """How long requests spent before their acknowledgement (the service's commit included)."""
        times = sorted(self.work_times)
        if not times:
            return "no requests handled"
        def pct(q: float) -> float:
            return times[min(len(times) - 1, int(q * len(times)))] * 1000
        return (f"{len(times)} requests handled; receipt to commit p50 {pct(.5):.1f} ms, p99 {pct(.99):.1f} ms, "
                f"max {times[-1] * 1000:.1f} ms")

    async def drain(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 - a grace period at shutdown
        """Let work and answers under way finish (at shutdown), for at most ``timeout`` seconds."""
        pending = [t for t in self._inflight if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    @staticmethod
    def _request_id(body: Mapping[str, Any], name: str) -> str | None:
        trigger = body.get("trigger_id")
        return f"slack:{trigger}:{name}" if trigger else None

    @classmethod
    def _service_request_id(cls, body: Mapping[str, Any], name: str) -> str | None:
        """The request id the service sees: None for a command whose declaration says it changes nothing
        (the service neither looks one up nor stores it; a redelivery just reads again)."""
        spec = resolve(name)
        return None if spec is not None and not spec.changes else cls._request_id(body, name)

    async def _run(self, rid: str | None, request: AsyncBoltRequest, ack: AsyncAck, work: Work, apology: After,
                   key: TableKey | None) -> BoltResponse | None:
        """Do the work (commit), acknowledge, then start what comes after (the answers)."""
        retry = _header(request, "x-slack-retry-num")
        first = self._seen.get(rid) if rid is not None else None
        if first is not None:
            log.info("redelivery #%s of %s: already taken", retry, rid)
            self.processed.append((rid or "", "duplicate"))
            return await self._ack_when(first, ack, rid)
        job = asyncio.ensure_future(self._work(rid, retry, work, apology, key))
        self._track(job)
        if rid is not None:
            self._seen[rid] = job
            while len(self._seen) > SEEN_LIMIT:
                self._seen.popitem(last=False)
        return await self._ack_when(job, ack, rid)

    async def _ack_when(self, job: asyncio.Future[dict[str, Any] | None], ack: AsyncAck,
                        rid: str | None) -> BoltResponse | None:
        try:
            body = await asyncio.wait_for(asyncio.shield(job), self.ack_budget)
        except TimeoutError:
            log.warning("request %s is still committing after %.1f s: not acknowledged yet", rid, self.ack_budget)
            return BoltResponse(status=503, body="")
        if body is None:
            await ack()
        else:
            await ack(dict(body))  # bolt sends a dict as the whole response (JSON; Socket Mode: the payload)
        return None

    async def _work(self, rid: str | None, retry: str | None, work: Work, apology: After,
                    key: TableKey | None) -> dict[str, Any] | None:
        """The work, then its answers started; returns the acknowledgement's body (None: a bare one)."""
        # the table's messages from this request wait until its answers have been posted
        release = self.notifier.hold(key) if self.notifier is not None and key is not None else None
        started = time.perf_counter()
        body: dict[str, Any] | None = None
        try:
            done = await work()
            if isinstance(done, AckBody):
                body, afters = done.body, done.afters
            else:
                afters = done
            self.work_times.append(time.perf_counter() - started)
            self.processed.append((rid or "", "done"))
        except Exception:
            log.exception("handling Slack request %s (retry %s) failed", rid, retry)
            if rid is not None:
                self._seen.pop(rid, None)  # let a redelivery try again; the service applies a command once
            self.processed.append((rid or "", "error"))
            afters = [apology]
        # after the acknowledgement (the listener returns when this job is done)
        self._track(asyncio.ensure_future(self._after(afters, release)))
        return body

    async def _after(self, afters: list[After], release: Callable[[], None] | None) -> None:
        try:
            for after in afters:
                await self._quietly(after)
        finally:
            if release is not None:
                release()

    @staticmethod
    async def _quietly(after: After) -> None:
        try:
            await after()
        except Exception:
            log.exception("answering a Slack request failed")

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)


async def nothing() -> None:
    return None


def _header(request: AsyncBoltRequest, name: str) -> str | None:
    values = request.headers.get(name) if request is not None else None
    return values[0] if values else None

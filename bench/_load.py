"""What the two load benches share: the open schedule, percentiles, the bot's CPU, the report's lines.

``bench/slack_load.py`` and ``bench/discord_load.py`` each drive the real bot process (``liars slack``,
``liars discord``) against a fake platform on 127.0.0.1; each knows its platform (how a request is
sent and recognised), and this module does the rest the same way for both:

* :func:`run_schedule`: one request every ``1/rate`` seconds to whichever table is ready for its next
  move (a slot with no table ready is counted as missed), with the bot's CPU time measured over it;
* :func:`report`: p50/p99/max of ack, effect and answer beside their targets, the bot's CPU per request
  beside its target (CPU time, read from ``/proc``: on a shared machine it is the steadier figure,
  as latency depends on what else runs), and the counts posted against those that got their picture
  (exact, from what reached the fake), with the bot's own metrics (``liars_pictures_total``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

import aiohttp

from core.figures import percentile

__all__ = ["ACK_TARGET_MS", "CPU_TARGET_MS", "LATENCY_TARGET_MS", "Measured", "Schedule", "cpu_seconds",
           "log_errors", "metric", "pct", "picture_seconds", "report", "run_schedule", "scrape"]

ACK_TARGET_MS = 100.0
LATENCY_TARGET_MS = 300.0
CPU_TARGET_MS = 2.0  # the bot's CPU per request

T = TypeVar("T")


class Measured(Protocol):
    sent: float
    ack: float | None
    effect: float | None
    answer: float | None
    answer_text: str | None


def pct(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of ``values`` (seconds) in milliseconds (:func:`core.figures.percentile`,
    so never above the max); NaN when there are none."""
    if not values:
        return float("nan")
    return percentile(sorted(values), q) * 1000


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux ``/proc``); 0 where that is not available."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Schedule:
    """What :func:`run_schedule` measured."""

    elapsed: float = 0.0
    cpu: float = 0.0  # the bot's CPU seconds over ``elapsed``
    missed: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


async def run_schedule(tables: Sequence[T], send: Callable[[T], Awaitable[None]], *, rate: float, seconds: float,
                       pids: Sequence[int]) -> Schedule:
    """Send at ``rate`` for ``seconds``: each slot goes to the next ready table (``send`` returns when
    the table may move again); the bot processes' (``pids``) CPU is read before and after."""
    ready: deque[T] = deque(tables)
    out = Schedule()

    async def fire(table: T) -> None:
        await send(table)
        ready.append(table)

    interval = 1.0 / rate
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    t0 = time.perf_counter()
    n = 0
    while True:
        due = t0 + n * interval
        if due - t0 >= seconds:
            break
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        n += 1
        if not ready:
            out.missed += 1
            continue
        task = asyncio.create_task(fire(ready.popleft()))
        out.tasks.add(task)
        task.add_done_callback(out.tasks.discard)
    out.elapsed = time.perf_counter() - t0
    out.cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    if out.tasks:
        await asyncio.wait(out.tasks, timeout=10)
    return out


async def scrape(*urls: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """The bots' metrics (``GET /metrics``), summed over ``urls``, as ``{(name, labels): value}``; empty
    if none answers."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for url in urls:
        try:
            async with aiohttp.ClientSession() as http, http.get(url, timeout=aiohttp.ClientTimeout(total=5)) as resp:
                text = await resp.text()
        except (aiohttp.ClientError, TimeoutError):
            continue
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                key = (s.name, frozenset(s.labels.items()))
                out[key] = out.get(key, 0.0) + s.value
    return out


def metric(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> int:
    want = set(labels.items())
    return round(sum(v for (n, ls), v in samples.items() if n == name and want <= ls))


def _line(name: str, values: Sequence[float], target: float, note: str) -> str:
    p99 = pct(values, .99)
    verdict = "met" if p99 <= target else "NOT met"
    return (f"  {name:7s} p50 {pct(values, .5):7.1f} ms  p99 {p99:7.1f} ms  max {pct(values, 1):7.1f} ms   "
            f"target p99 <= {target:.0f} ms: {verdict}{'; ' + note if note else ''}")


def report(*, title: str, unit: str, reqs: Sequence[Measured], moved: Sequence[Measured], schedule: Schedule,
           counts: int, pictured: int, samples: dict[tuple[str, frozenset[tuple[str, str]]], float],
           extra: Sequence[str] = ()) -> list[str]:
    """The report's lines (printed by the bench)."""
    acks = [r.ack - r.sent for r in reqs if r.ack is not None]
    answers = [r.answer - r.sent for r in reqs if r.answer is not None]
    effects = [r.effect - r.sent for r in moved if r.effect is not None]
    elapsed, cpu = schedule.elapsed, schedule.cpu
    per = 1000 * cpu / max(1, len(reqs))
    shed, failed = (metric(samples, "liars_pictures_total", kind="count", outcome=o) for o in ("shed", "failed"))
    drawn = metric(samples, "liars_pictures_total", kind="count", outcome="drawn")
    lines = [
        title,
        f"  sent {len(reqs)} {unit}s in {elapsed:.1f} s = {len(reqs) / elapsed:.0f}/s "
        f"({schedule.missed} slots missed: no table ready)",
        _line("ack", acks, ACK_TARGET_MS, f"{len(reqs) - len(acks)} never acknowledged"),
        _line("effect", effects, LATENCY_TARGET_MS, f"{len(moved) - len(effects)} of {len(moved)} moves never seen"),
        _line("answer", answers, LATENCY_TARGET_MS, f"{len(reqs) - len(answers)} unanswered"),
        f"  the bot's CPU (all its processes): {cpu:.1f} s in {elapsed:.1f} s ({100 * cpu / elapsed:.0f}% of a core), "
        f"{per:.2f} ms per {unit}   target <= {CPU_TARGET_MS:.0f} ms: {'met' if per <= CPU_TARGET_MS else 'NOT met'}; "
        f"machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
        *extra,
        f"  counts posted (whole run) {counts}, with their picture {pictured}, WITHOUT {counts - pictured}   "
        f"target 0 without: {'met' if counts == pictured else 'NOT met'}",
        f"  the bot's metrics: count pictures drawn {drawn}, shed {shed} (too many waiting), failed {failed}"
        if samples else "  the bot's metrics: not reachable",
    ]
    return lines


def picture_seconds(samples: dict[tuple[str, frozenset[tuple[str, str]]], float]) -> str:
    """The count picture's ask-to-PNG time from the bot's histogram: the mean, and the share within 10 ms."""
    total = metric(samples, "liars_picture_seconds_count", kind="count")
    if not total:
        return "no count picture drawn"
    summed = sum(v for (n, ls), v in samples.items() if n == "liars_picture_seconds_sum" and ("kind", "count") in ls)
    within = metric(samples, "liars_picture_seconds_bucket", kind="count", le="0.01")
    return f"count picture ask-to-PNG mean {1000 * summed / total:.1f} ms, {100 * within / total:.0f}% within 10 ms"


def log_errors(log: str) -> list[str]:
    """The bot's log tail when it logged errors (one line otherwise: none)."""
    if "Traceback" in log or " ERROR " in log:
        return ["  the bot logged errors:\n" + log[-3000:]]
    return []


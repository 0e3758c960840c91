"""Drawing off the bot's process: a one-worker process pool that every adapter shares.

A count takes about 5 ms of CPU (Pillow), a chart tens (matplotlib).  On a worker *thread* that time
holds Python's interpreter lock, so under load every acknowledgement and answer of a busy bot waits
behind the drawing (measured with matplotlib's counts: Slack ack p99 478 ms at 100 requests/s).  In a
separate process it competes only for a core.  The pool starts on first use (``spawn``: a fresh
interpreter that imports the drawing code and draws a sample count once, so fonts and tiles are
cached before the first real count) and is shared for the life of the process; if the worker cannot
be started or dies, drawing falls back to a thread, so a picture is never lost to the pool.

``LIARS_PICTURE_PROCESS=0`` draws on a thread instead (one process, e.g. where forking is not allowed).

Pictures are the bot's least urgent work.  The worker runs a little below the bot's CPU priority
(``nice`` +2: on a contended machine it gets about 80% of the bot's share; at ``nice`` 10, with
matplotlib's pictures, it got a tenth and shed half the counts of a loaded 2-core machine); and when
``MAX_WAITING`` pictures are already waiting (asked for and not yet back: about a second of drawing;
on a starved machine the bot's own event loop, which takes the PNGs back, lags too, so a smaller
limit shed counts the worker would have drawn in time), another is refused at once with
:class:`TooManyWaiting` (its text goes alone, as when drawing fails): a picture that would arrive many
seconds late is worth less than the CPU it takes, and a backlog would grow without bound.  A WARNING
says so at most once a minute; ``liars_pictures_total`` counts every one (``outcome="shed"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from adapters import metrics

from .dispatch import kind, render

__all__ = ["MAX_WAITING", "TooManyWaiting", "draw", "shed", "shutdown", "start"]

log = logging.getLogger(__name__)

_pool: ProcessPoolExecutor | None = None
_guard = threading.Lock()

MAX_WAITING = 200  # pictures asked for and not yet back, beyond which another is refused (~1 s of drawing)
NICE = 2  # the worker's priority below the bot's
_waiting = 0
_shed = {"count": 0, "warned_at": float("-inf")}


class TooManyWaiting(RuntimeError):
    """Too many pictures are waiting to be drawn: this one is not drawn (its text goes alone)."""


def _warm_up(parent: int) -> None:
    """Run in the worker as it starts: import the count's drawing code before the first count (not
    matplotlib: the charts load it on the first chart), and leave with the bot: a bot killed with
    SIGKILL cannot stop its pool, and an orphaned worker would hold the bot's log pipe open (and its
    memory) for ever."""
    from .count import render_count
    from .samples import count_example

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (as it started, see _spawning: a pool made off the main thread)
    render_count(count_example())  # fonts opened, tiles and glyphs cached
    try:  # background work: the bot's acknowledgements and answers come first on a busy machine
        os.nice(NICE)
    except (AttributeError, OSError):  # pragma: no cover - no nice() here
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="liars-picture-parent-watch", daemon=True).start()


@contextlib.contextmanager
def _spawning() -> Iterator[None]:
    """While a task is handed to the pool (which starts its process then, if it has none), SIGINT is ignored, so the
    process starts with it ignored: Ctrl-C in a terminal reaches the whole process group, and a worker still
    importing printed a KeyboardInterrupt traceback.  The bot stops its worker itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _executor() -> ProcessPoolExecutor | None:
    global _pool
    if os.environ.get("LIARS_PICTURE_PROCESS", "1").strip() == "0":  # (the platforms' configs refuse other values)
        return None
    with _guard:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_warm_up, initargs=(os.getpid(),))
        return _pool


def _reset(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _guard:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


async def draw(picture: Mapping[str, Any], names: Mapping[str, str] | None = None) -> bytes:
    """The picture as PNG bytes, drawn in the worker process (a thread if there is none).  Raises what
    :func:`~adapters.pictures.render` raises for data it cannot draw.  Counted in ``liars_pictures_total``
    (drawn, shed, failed) and timed, waiting included, in ``liars_picture_seconds``."""
    global _waiting
    try:
        name = kind(picture)
    except ValueError:
        name = "unknown"
    if _waiting >= MAX_WAITING:
        _shed["count"] += 1
        metrics.PICTURES.labels(name, "shed").inc()
        if time.monotonic() - _shed["warned_at"] >= 60:
            log.warning("pictures are asked for faster than they can be drawn: %d skipped so far (their text "
                        "went alone)", _shed["count"])
            _shed["warned_at"] = time.monotonic()
        raise TooManyWaiting(f"{_waiting} pictures are waiting to be drawn")
    _waiting += 1
    started = time.perf_counter()
    try:
        png = await _draw(dict(picture), dict(names or {}))
    except Exception:
        metrics.PICTURES.labels(name, "failed").inc()
        raise
    finally:
        _waiting -= 1
    metrics.PICTURES.labels(name, "drawn").inc()
    metrics.PICTURE_SECONDS.labels(name).observe(time.perf_counter() - started)
    return png


def shed() -> int:
    """How many pictures this process has refused to draw so far (too many were waiting)."""
    return int(_shed["count"])


async def _draw(data: dict[str, Any], known: dict[str, str]) -> bytes:
    pool = _executor()
    if pool is not None:
        try:
            with _spawning():
                drawn = asyncio.get_running_loop().run_in_executor(pool, render, data, known)
            return await drawn
        except (BrokenProcessPool, OSError, RuntimeError) as exc:  # the worker, not the picture, failed
            log.warning("the picture worker failed (%s); drawing on a thread", type(exc).__name__)
            _reset(pool)
    return await asyncio.to_thread(render, data, known)


def start() -> None:
    """Start the worker now (a bot calls this as it starts serving), so the first counts of a busy
    minute do not queue behind the worker's start-up (a fresh interpreter, the imports, the warm-up
    drawing: a second or two on a loaded machine) and get shed."""
    pool = _executor()
    if pool is not None:
        try:
            with _spawning():
                pool.submit(os.getpid)  # the pool starts its process on the first task
        except (BrokenProcessPool, RuntimeError) as exc:  # pragma: no cover - cannot start here
            log.warning("the picture worker did not start (%s); pictures will be drawn on a thread",
                        type(exc).__name__)


def shutdown() -> None:
    """Stop the worker (tests and a clean exit; it is also stopped when the process exits)."""
    global _pool
    with _guard:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)

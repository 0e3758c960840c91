"""Every metric the bot exports, defined here once (Prometheus, ``prometheus_client``).

``GET /metrics`` on the Slack HTTP server (:func:`exposition`), and on ``LIARS_METRICS_PORT`` for
``liars discord`` (:func:`serve`), show them in Prometheus' text format.  The names (README,
"Metrics"):

==================================== =========== ==========================================================
``liars_requests_total``             counter     platform requests taken: ``platform``, ``outcome``
                                                 (``ok``; ``rejected``: Slack's door refused it — bad
                                                 signature, junk; ``error``: our bug)
``liars_request_seconds``            histogram   from a request's arrival to its acknowledgement (Slack's
                                                 HTTP answer; Discord: the interaction handled): ``platform``
``liars_commands_total``             counter     commands the service handled: ``command``, ``outcome``
                                                 (``ok``, ``refused``, ``error``)
``liars_command_seconds``            histogram   a command's time in the service (load, apply, commit):
                                                 ``command``
``liars_open_tables``                gauge       tables open in this process's memory
``liars_commit_conflicts_total``     counter     commits that found their table moved on in another process
``liars_command_retries_total``      counter     commands run again on the table as then stored
``liars_platform_calls_total``       counter     HTTP calls to the platform's API: ``platform``, ``status``
                                                 (the HTTP status, or ``failed``: no answer)
``liars_platform_rate_limited_total`` counter    of those, answered 429 (the libraries wait and retry)
``liars_platform_errors_total``      counter     of those, failed: HTTP >= 400 or no answer: ``platform``
``liars_pictures_total``             counter     pictures asked for: ``kind`` (count, challenge, a chart),
                                                 ``outcome`` (``drawn``; ``shed``: too many waiting, the
                                                 text went alone; ``failed``)
``liars_picture_seconds``            histogram   from asking for a picture to its PNG (waiting included):
                                                 ``kind``
==================================== =========== ==========================================================

Why here and not in ``bot/``: the service must not depend on an exporter, so it counts through a
three-method port (:class:`bot.metrics.Meter`) and :data:`METER` implements it; the platform-side
metrics (requests, API calls, pictures) are the adapters' own.  The metrics are process-wide, as
``prometheus_client`` means them to be (one process is one bot); open tables are read at scrape
time from every service that registered (:func:`watch`), so nothing has to keep a gauge up to date.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
import weakref
from collections.abc import Iterator, Sized
from socketserver import ThreadingMixIn
from types import SimpleNamespace
from typing import Any, Final
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import aiohttp
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

__all__ = [
    "CONTENT_TYPE",
    "METER",
    "PICTURES",
    "PICTURE_SECONDS",
    "REQUESTS",
    "REQUEST_SECONDS",
    "exposition",
    "http_trace",
    "serve",
    "watch",
]

log = logging.getLogger(__name__)

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
_FAST: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

REQUESTS: Final = Counter("liars_requests", "Platform requests taken", ["platform", "outcome"])
REQUEST_SECONDS: Final = Histogram("liars_request_seconds", "A request's arrival to its acknowledgement",
                                   ["platform"], buckets=_FAST)
COMMANDS: Final = Counter("liars_commands", "Commands the service handled", ["command", "outcome"])
COMMAND_SECONDS: Final = Histogram("liars_command_seconds", "A command's time in the service", ["command"],
                                   buckets=_FAST)
CONFLICTS: Final = Counter("liars_commit_conflicts", "Commits that found their table moved on in another process")
RETRIES: Final = Counter("liars_command_retries", "Commands run again on the table as then stored")
PLATFORM_CALLS: Final = Counter("liars_platform_calls", "HTTP calls to the platform's API", ["platform", "status"])
RATE_LIMITED: Final = Counter("liars_platform_rate_limited", "Platform API calls answered 429", ["platform"])
PLATFORM_ERRORS: Final = Counter("liars_platform_errors", "Platform API calls that failed (HTTP >= 400 or no answer)",
                                 ["platform"])
PICTURES: Final = Counter("liars_pictures", "Pictures asked for", ["kind", "outcome"])
PICTURE_SECONDS: Final = Histogram("liars_picture_seconds", "Asking for a picture to its PNG", ["kind"],
                                   buckets=_FAST)


class _Meter:
    """The service's :class:`bot.metrics.Meter`, exporting to the counters above."""

    def command(self, name: str, outcome: str, seconds: float) -> None:
        COMMANDS.labels(name, outcome).inc()
        COMMAND_SECONDS.labels(name).observe(seconds)

    def conflict(self) -> None:
        CONFLICTS.inc()

    def retry(self) -> None:
        RETRIES.inc()


METER: Final = _Meter()


class _OpenTables(Collector):
    def __init__(self) -> None:
        self._sources: weakref.WeakSet[Any] = weakref.WeakSet()
        self._lock = threading.Lock()

    def add(self, tables: Any) -> None:
        with self._lock:
            self._sources.add(tables)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self._lock:
            sources = list(self._sources)
        total = sum(len(s.tables) for s in sources if isinstance(s.tables, Sized))
        yield GaugeMetricFamily("liars_open_tables", "Tables open in this process's memory", value=total)


_OPEN_TABLES: Final = _OpenTables()
REGISTRY.register(_OPEN_TABLES)


def watch(runtime: Any) -> None:
    """Count ``runtime.tables`` (a service's open tables) in ``liars_open_tables`` while it lives (its
    counts go to :data:`METER`, which the composition root hands the service)."""
    _OPEN_TABLES.add(runtime)


def exposition() -> bytes:
    """The metrics in Prometheus' text format (``GET /metrics``; content type :data:`CONTENT_TYPE`)."""
    return generate_latest(REGISTRY)


class _Quiet(WSGIRequestHandler):
    timeout = 5  # seconds a client may take to send its request: one that sends nothing held a thread for good

    def log_message(self, format: str, *args: Any) -> None:
        """Not a line on stderr per scrape."""


MOST_CLIENTS: Final = 16
"""Scrapes served at once; a connection beyond them is closed at once (200 idle ones held 200 threads and
file descriptors, and the bot's own files failed to open)."""


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = threading.BoundedSemaphore(MOST_CLIENTS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):  # full: this one is dropped, not queued
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread to give the slot back (it could not start): given back here
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away or timed out: a line at DEBUG, not a traceback on stderr per connection."""
        log.debug("metrics client %s: %s", client_address, sys.exc_info()[1])


def _server_class(host: str) -> type[_Server]:
    """The server for ``host``'s address family (wsgiref's own is IPv4 only: "::" failed)."""
    family = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM)[0][0]
    return type("_FamilyServer", (_Server,), {"address_family": family})


def _routes(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """``GET /metrics`` and ``GET /healthz``, as the Slack process serves them; 404 elsewhere (prometheus_client's
    own server answered every path with the metrics), 405 for another method."""
    path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET")
    if path not in ("/metrics", "/healthz"):
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found: GET /metrics or /healthz"]
    if method not in ("GET", "HEAD"):
        start_response("405 Method Not Allowed", [("Content-Type", "text/plain"), ("Allow", "GET, HEAD")])
        return [b"method not allowed"]
    if path == "/healthz":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]
    start_response("200 OK", [("Content-Type", CONTENT_TYPE)])
    return [exposition()]


def serve(port: int, host: str = "0.0.0.0") -> Any:
    """Serve ``GET /metrics`` (and ``/healthz``) on ``port`` from a daemon thread (``liars discord``); returns
    the server (``.shutdown()`` stops it; ``.server_port`` is the port bound, for ``port=0``)."""
    server = make_server(host, port, _routes, server_class=_server_class(host), handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, name="liars-metrics", daemon=True).start()
    return server


def start(port: int, host: str) -> Any | None:
    """:func:`serve`, saying where (INFO) — or, when it cannot listen there (the port taken, the host no address
    here), one ERROR line naming the settings and None (the caller ends with exit code 1)."""
    try:
        server = serve(port, host)
    except OSError as exc:
        log.error("cannot serve metrics on %s:%d (LIARS_METRICS_HOST, LIARS_METRICS_PORT): %s", host, port, exc)
        return None
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    shown = f"[{shown}]" if ":" in shown else shown  # an IPv6 address, as a URL writes it
    log.info("serving metrics at http://%s:%d/metrics", shown, server.server_port)
    return server


def http_trace(platform: str) -> aiohttp.TraceConfig:
    """An aiohttp trace that counts every API call a client session makes, by HTTP status (the Slack
    Web API client's session; discord.py's ``http_trace``)."""
    trace = aiohttp.TraceConfig()

    async def ended(_: aiohttp.ClientSession, __: SimpleNamespace, params: aiohttp.TraceRequestEndParams) -> None:
        status = params.response.status
        PLATFORM_CALLS.labels(platform, str(status)).inc()
        if status == 429:
            RATE_LIMITED.labels(platform).inc()
        if status >= 400:
            PLATFORM_ERRORS.labels(platform).inc()

    async def failed(_: aiohttp.ClientSession, __: SimpleNamespace,
                     params: aiohttp.TraceRequestExceptionParams) -> None:
        PLATFORM_CALLS.labels(platform, "failed").inc()
        PLATFORM_ERRORS.labels(platform).inc()

    trace.on_request_end.append(ended)
    trace.on_request_exception.append(failed)
    trace.freeze()
    return trace

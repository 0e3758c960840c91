"""Metrics, scraped as Prometheus would: ``GET /metrics`` on the Slack HTTP server after a round, and the
``liars discord`` exporter after a Discord round; the counters each part of the bot owns have moved."""

from __future__ import annotations

import asyncio
import socket
import time

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from adapters import metrics
from tests.adapters.slack.harness import HttpDriver, play_round
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness

world = discord_helpers.world
no_errors = discord_helpers.no_errors

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(url: str) -> Samples:
    async with aiohttp.ClientSession() as http, http.get(url) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain")
        text = await resp.text()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when there are none)."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


async def test_slack_metrics_move_with_a_round(driver: HttpDriver) -> None:
    endpoint = driver.url.rsplit("/slack/", 1)[0] + "/metrics"
    before = await scrape(endpoint)
    await play_round(driver)
    await driver.bot.notifier.idle()  # the count's picture has been drawn and uploaded
    after = await scrape(endpoint)
    # every request the round took: slash commands, buttons, the Raise… form (opened and submitted)
    assert moved(before, after, "liars_requests_total", platform="slack", outcome="ok") >= 8
    assert moved(before, after, "liars_request_seconds_count", platform="slack") >= 8
    assert moved(before, after, "liars_commands_total", command="start", outcome="ok") == 1
    assert moved(before, after, "liars_commands_total", command="join", outcome="ok") == 2
    assert moved(before, after, "liars_commands_total", command="challenge", outcome="ok") == 2
    assert moved(before, after, "liars_command_seconds_count", command="deal") == 1
    assert value(after, "liars_open_tables") >= 1
    assert moved(before, after, "liars_platform_calls_total", platform="slack", status="200") >= 10
    assert moved(before, after, "liars_pictures_total", kind="count", outcome="drawn") == 1
    assert moved(before, after, "liars_picture_seconds_count", kind="count") == 1
    # named, even at zero (a dashboard needs the series before the first conflict)
    assert ("liars_commit_conflicts_total", frozenset()) in after
    assert ("liars_command_retries_total", frozenset()) in after


async def test_a_refused_command_and_junk_are_counted_as_such(driver: HttpDriver) -> None:
    endpoint = driver.url.rsplit("/slack/", 1)[0] + "/metrics"
    before = await scrape(endpoint)
    reply = await driver.slash("U0ALICE", "challenge")  # no table here: refused, nothing changed
    assert reply.text is not None and "no table" in reply.text.lower()
    async with aiohttp.ClientSession() as http, http.post(driver.url, data=b"junk") as resp:
        assert resp.status == 401
    after = await scrape(endpoint)
    assert moved(before, after, "liars_commands_total", command="challenge", outcome="refused") == 1
    assert moved(before, after, "liars_requests_total", platform="slack", outcome="rejected") == 1


async def test_the_discord_exporter_counts_a_round(world: Harness) -> None:
    h = world
    exporter = metrics.serve(0, host="127.0.0.1")
    try:
        endpoint = f"http://127.0.0.1:{exporter.server_port}/metrics"
        await h.start()
        before = await scrape(endpoint)
        await h.open_table()
        await h.wait_dms(1)
        opener = h.to_act()
        second, third = h.after(opener), h.after(h.after(opener))
        assert (await h.ask(opener, "bid", quantity=1, digit=5)).ephemeral
        assert (await h.ask(second, "challenge")).ephemeral
        assert (await h.ask(third, "challenge")).ephemeral
        await h.fake.wait_for_message(lambda m: "**The count**" in m.content and bool(m.attachments))
        for _ in range(50):  # an interaction is counted as its answer goes: the last one may be a moment late
            after = await scrape(endpoint)
            if moved(before, after, "liars_requests_total", platform="discord", outcome="ok") >= 7:
                break
            await asyncio.sleep(0.1)
    finally:
        exporter.shutdown()
        exporter.server_close()
    assert moved(before, after, "liars_requests_total", platform="discord", outcome="ok") >= 7
    assert moved(before, after, "liars_commands_total", command="bid", outcome="ok") == 1
    assert moved(before, after, "liars_commands_total", command="challenge", outcome="ok") == 2
    assert moved(before, after, "liars_platform_calls_total", platform="discord", status="200") >= 7
    assert moved(before, after, "liars_pictures_total", kind="count", outcome="drawn") == 1
    assert value(after, "liars_open_tables") >= 1


async def test_the_discord_exporter_answers_its_own_paths_only() -> None:
    """prometheus_client's server answered every path (`/`, `/nonsense`, `/healthz`) with the metrics."""
    exporter = metrics.serve(0, host="127.0.0.1")
    base = f"http://127.0.0.1:{exporter.server_port}"
    try:
        async with aiohttp.ClientSession() as http:
            for path, status, body in (("/metrics", 200, "liars_requests_total"), ("/healthz", 200, "ok"),
                                       ("/", 404, "not found"), ("/nonsense", 404, "not found")):
                async with http.get(base + path) as resp:
                    assert resp.status == status and body in await resp.text(), path
            async with http.post(base + "/metrics") as resp:
                assert resp.status == 405
    finally:
        exporter.shutdown()
        exporter.server_close()


async def test_the_discord_exporter_listens_on_ipv6_too() -> None:
    """The standard library's WSGI server is IPv4 only: LIARS_METRICS_HOST=:: (or ::1) failed at start-up."""
    try:  # whether this machine has an IPv6 loopback at all (the bot's answer is not what decides it)
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError as exc:
        pytest.skip(f"no IPv6 loopback here: {exc}")
    exporter = metrics.serve(0, host="::1")
    try:
        async with aiohttp.ClientSession() as http, http.get(f"http://[::1]:{exporter.server_port}/healthz") as resp:
            assert resp.status == 200 and await resp.text() == "ok"
    finally:
        exporter.shutdown()
        exporter.server_close()



def test_idle_or_broken_clients_of_the_discord_exporter_are_let_go_and_print_nothing(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """A client that sent nothing (or half a request) held a thread and a file descriptor for good (200 of them
    and the bot's own files failed to open), and one that reset printed a traceback on stderr: now no more than
    ``MOST_CLIENTS`` are served at once — one more is closed unanswered —, a client gets ``_Quiet.timeout``
    seconds to send its request, and what goes wrong with a client is a line at DEBUG."""
    import struct
    import urllib.request

    def get(port: int) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
            client.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
            return client.recv(12)

    monkeypatch.setattr(metrics._Quiet, "timeout", 30)
    exporter = metrics.serve(0, host="127.0.0.1")
    port = exporter.server_port
    try:
        idle = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(metrics.MOST_CLIENTS)]
        idle[0].sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # half a request: the blank line never comes
        assert get(port) == b""  # one more than it serves: closed unanswered, not queued behind the idle ones
        for client in idle:
            client.close()
        for _ in range(600):  # their slots come back as their threads see them closed
            if get(port).startswith(b"HTTP/1.0 200"):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the slots never came back")
        monkeypatch.setattr(metrics._Quiet, "timeout", 0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as silent:
            assert silent.recv(1) == b""  # let go once its time to send a request is up (it waited for good)
        for _ in range(3):  # reset mid-request
            reset = socket.create_connection(("127.0.0.1", port), timeout=30)
            reset.sendall(b"GET /metrics HTTP/1.1\r\nHost: x")
            reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            reset.close()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
            assert answer.status == 200  # the slots came back
    finally:
        exporter.shutdown()
        exporter.server_close()
    assert "Traceback" not in capfd.readouterr().err


def test_a_request_thread_that_cannot_start_gives_its_slot_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of threads for a moment (RuntimeError "can't start new thread"), each connection kept its slot: after
    ``MOST_CLIENTS`` of them no scrape was served again."""
    import threading

    exporter = metrics.serve(0, host="127.0.0.1")
    port = exporter.server_port
    real_start = threading.Thread.start
    failures = [metrics.MOST_CLIENTS]

    def start(self: threading.Thread) -> None:
        if getattr(getattr(self, "_target", None), "__name__", "") == "process_request_thread" and failures[0]:
            failures[0] -= 1
            raise RuntimeError("can't start new thread")
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    try:
        for _ in range(metrics.MOST_CLIENTS):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
                assert client.recv(12) == b""
        assert failures == [0]
        with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
            client.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
            assert client.recv(12).startswith(b"HTTP/1.0 200")
    finally:
        exporter.shutdown()
        exporter.server_close()

"""A TCP proxy on 127.0.0.1 in front of the test PostgreSQL's Unix socket that can make the connections through
it go silent, kept open with no reset: a network partition, a failover, the database host gone."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

__all__ = ["SilentProxy"]


class SilentProxy:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.socket = parse_qs(parts.query)["host"][0] + "/.s.PGSQL.5432"
        self.database = parts.path
        self.connections = 0
        self.silent: set[int] = set()  # the connections whose bytes are swallowed, both ways
        self.unanswered: set[int] = set()  # the connections whose answers are swallowed (what they send goes on)
        self._lose_next_answer = False
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> str:
        """Listen; the URL to connect through it."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"postgresql://postgres@127.0.0.1:{port}{self.database}"

    def silence_all(self) -> None:
        """Every connection open now stops passing bytes, kept open (new connections pass as before)."""
        self.silent.update(range(self.connections))

    def lose_every_answer(self) -> None:
        """Every connection open now has what it sends delivered, and the database's answers swallowed."""
        self.unanswered.update(range(self.connections))

    def lose_the_next_answer(self) -> None:
        """The next connection to send anything has what it sends delivered — a commit is made — but the database's
        answers to it swallowed from then on: a commit whose answer is lost on the way back."""
        self._lose_next_answer = True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        number = self.connections
        self.connections += 1
        self._writers.append(writer)
        upstream_reader, upstream_writer = await asyncio.open_unix_connection(self.socket)
        self._writers.append(upstream_writer)

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, answers: bool) -> None:
            try:
                while data := await source.read(65536):
                    if not answers and self._lose_next_answer:
                        self._lose_next_answer = False
                        self.unanswered.add(number)
                    if number in self.silent or (answers and number in self.unanswered):
                        continue  # swallowed: never delivered, never answered
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            if number not in self.silent and number not in self.unanswered:
                sink.close()

        for task in (asyncio.create_task(pump(reader, upstream_writer, answers=False)),
                     asyncio.create_task(pump(upstream_reader, writer, answers=True))):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for writer in self._writers:
            writer.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

"""The local table in the terminal (``liars play``): you and computer players, through the same
service and the same SQLite ledger as the chat platforms (server ``local``)."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import logging
import random
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from adapters import pictures
from adapters.stores import StoreUnavailable, is_postgres_url, redacted, sqlite_path, store_url_from_env
from bot.bootstrap import terminal_table
from bot.commands import resolve, table_commands
from bot.model import Actor, Command, Message, Reply, TableKey, render_mentions
from bot.service import Service
from bot.table import TableState
from core.commands import CommandSpec, Section
from core.game import Game
from core.registry import DEFAULT_GAME, get_game

__all__ = ["ConsoleNotifier", "play"]

log = logging.getLogger(__name__)

DEFAULT_SEATS = 4  # `liars play` without --seats: a new table's seats, you included
KEY = TableKey("local", "local", "terminal")
YOU = "you"
QUIT = frozenset({"quit", "exit", "q"})  # the terminal's own word: leave (the table stays open)


# what a chat surface offers that the terminal does not: a move's form, by its button ("or **Declare…**") or typed bare
_FORMS = re.compile(r",? or \*\*[^*\n]+…\*\*|\s*\(none: its form\)")


def plain(text: str) -> str:
    """Chat markup to terminal text, without the forms the terminal has not (the games' words name them)."""
    return _FORMS.sub("", text).replace("**", "").replace("`", "").replace("<#terminal>", "this table")


def _write_png(directory: Path, stem: str, picture: Mapping[str, Any], png: bytes) -> Path:
    """Write a drawn picture next to the database as ``<db>-<picture>.png`` (a new name each time)."""
    base = f"{stem}-{pictures.filename(picture).removesuffix('.png')}"
    directory.mkdir(parents=True, exist_ok=True)
    path, n = directory / f"{base}.png", 1
    while path.exists():
        n += 1
        path = directory / f"{base}-{n}.png"
    path.write_bytes(png)
    return path


def _picture_place(db_path: str | None) -> tuple[Path, str]:
    """Pictures go next to a SQLite database, named after it: ``/data/liars.sqlite3`` →
    ``/data/liars-count-1.png``; with a PostgreSQL database (no file to sit beside), into
    ``liars-pictures`` in the system's temporary folder.  The path is printed with each picture."""
    db_file = _sqlite_file(db_path)
    if db_file is None:
        return Path(tempfile.gettempdir()) / "liars-pictures", "liars"
    db_file = db_file.resolve()
    return db_file.parent, db_file.stem


def _sqlite_file(db_path: str | None) -> Path | None:
    """The SQLite file ``--db`` (else the environment) names; None for a PostgreSQL database."""
    url = db_path or store_url_from_env()
    if is_postgres_url(url):
        return None
    try:
        return Path(sqlite_path(url))
    except ValueError as exc:  # `--db mysql://…`: said as the store says it, not a traceback
        raise StoreUnavailable(f"cannot open {redacted(url)}: {exc}") from None


class ConsoleNotifier:
    """Prints what the channel sees, and the private messages addressed to the human at the terminal.

    A message with a ``picture`` (the count, a challenge, a chart) is also drawn, on a worker thread, to a
    PNG file in ``picture_dir`` (next to the database) and its path printed after the text; if drawing
    fails, the text goes alone and one WARNING is logged.  ``picture_dir=None``: text only.
    """

    def __init__(self, out: TextIO, viewer: str | None, picture_dir: Path | None = None,
                 picture_stem: str = "liars", viewer_name: str = "you") -> None:
        self.out = out
        self.viewer = viewer
        self.viewer_name = viewer_name
        self.picture_dir = picture_dir
        self.picture_stem = picture_stem
        self._last_panel = ""

    async def _picture(self, m: Message) -> str:
        if m.picture is None or self.picture_dir is None:
            return ""
        try:
            png = await pictures.draw(m.picture, m.names)
            path = await asyncio.to_thread(_write_png, self.picture_dir, self.picture_stem, m.picture, png)
        except Exception as exc:
            log.warning("drawing the %s picture failed (%s); the text goes alone", m.kind, type(exc).__name__)
            return ""
        return f"\n🖼  Picture: {path}"

    async def deliver(self, messages: Sequence[Message]) -> None:
        for m in messages:
            if m.to is not None and m.to != self.viewer:
                continue  # someone else's private message: never shown here
            if (m.kind == "lobby" and m.panel) or m.kind == "turn":
                continue  # the lobby panel and the turn ping repeat what the play messages say
            if m.panel == "table" and not m.fresh:
                # a terminal scrolls: say what changed, not the whole panel again
                note = m.note
                to_act = m.to_act
                if to_act == self.viewer and to_act is not None:
                    last = render_mentions(m, self._mention).splitlines()[-1]
                    note = f"{note}\n{last}" if note else last
                if not note:
                    continue
                text = plain(render_mentions(_with_text(m, note), self._mention))
            else:
                text = plain(render_mentions(m, self._mention))
            text += await self._picture(m)
            self.out.write(text + "\n\n")
        self.out.flush()

    def _mention(self, uid: str) -> str:
        """The person at the terminal by the name the table knows them by (as in replies and after a
        resume), so every line reads the same ("Ann opens", not "you opens")."""
        return self.viewer_name if uid == self.viewer else uid


def player_name() -> str:
    """The person at the terminal: their login name, capitalised."""
    try:
        return getpass.getuser().capitalize()
    except Exception:
        return "You"


def _with_text(m: Message, text: str) -> Message:
    return Message(key=m.key, text=text, kind=m.kind, names=m.names, humans=m.humans)


def parse_line(line: str, game: Game) -> tuple[str, list[str]] | None:
    """A command and its words; ``quit``; or, for anything that is not a command, the game's move for
    bare text with all the words (a bid: ``5 7``, ``five sevens``; a declaration: ``two pair``)."""
    words = line.strip().split()
    if not words:
        return None
    first = words[0].lower()
    default = next((s for s in game.commands if s.default), None)
    # A short name that takes no words, followed by words, is bare text: "T high" and "Q high" declare
    # ten high and queen high instead of taking the hand or leaving the table.
    text = len(words) > 1 and default is not None
    if (bare := first.rstrip(".!?…")) in QUIT and not (text and bare == "q"):  # ("quit." as "hand?" is read)
        return "quit", []
    spec = resolve(first)
    if spec is not None and not (text and first != spec.name and not spec.params):
        return spec.name, words[1:]
    return (default.name, words) if default is not None else (first, words[1:])


def how_to_play(game: Game) -> str:
    """The game's own words, then what to type here: its moves and reads with their short names."""
    def named(spec: CommandSpec) -> str:
        return f"`{spec.name}`" + (f" ({', '.join(spec.aliases)})" if spec.aliases else "")

    own = [s for s in table_commands() if s.section is Section.READ]
    moves = [s for s in game.commands if s.section is Section.MOVE]
    reads = [s for s in game.commands if s.section is Section.READ and s.name not in {o.name for o in own}]
    default = next((s for s in moves if s.default), None)
    lines = [game.how_to_play, "",
             "Moves: " + ", ".join(named(s) for s in moves) + ".",
             "Also: " + ", ".join(named(s) for s in [*reads, *own]) + "; `help` lists every command; `quit` (q)."]
    if default is not None:
        lines.append(f"Anything else you type is taken as `{default.name}`.")
    return "\n".join(lines) + "\n\n"


async def play(
    *,
    seats: int | None,
    preset: str | None,
    stake: int | None,
    humans: int,
    rounds: int | None,
    seed: int | None,
    level: str,
    db_path: str | None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
    options: Sequence[str] = (),
    game: str = DEFAULT_GAME,
    new_only: Sequence[str] = (),
    err: TextIO | None = None,
) -> int:
    """``new_only``: the flags given that only a new table takes (a table left open is resumed, saying so).
    ``err``: where a table refused before play is said, as ``liars: …`` (exit code 2), like the other commands'
    refusals (standard error)."""
    if stdin is None:
        stdin = sys.stdin
        with contextlib.suppress(AttributeError, ValueError):  # (not a text stream, or closed: read as it is)
            # a stray byte in a UTF-8 terminal ended the session ("could not be read any further"); in the C
            # locale it was echoed as an escape
            stdin.reconfigure(errors="replace")  # type: ignore[union-attr,attr-defined,unused-ignore]
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    rng = random.Random(seed) if seed is not None else None
    viewer = YOU if humans else None
    picture_dir, stem = _picture_place(db_path)
    made = None if (db_file := _sqlite_file(db_path)) is None or db_file.exists() else db_file  # a file it makes
    service, notifier = await terminal_table(out, viewer, db_path=db_path, rng=rng, picture_dir=picture_dir,
                                             picture_stem=stem, viewer_name=player_name())
    code: int | None = None  # (an interruption or a failure leaves it None: the database stays, whatever it holds)
    try:
        code = await _run(service, notifier, game=game, seats=seats, preset=preset, stake=stake, humans=humans,
                          rounds=rounds, level=level, stdin=stdin, out=out, err=err, options=options,
                          new_only=new_only)
        return code
    finally:
        await service.close()
        if made is not None and code == 2:  # a table refused before play, on a database this run made: not left
            for leftover in (made, made.with_name(made.name + "-wal"), made.with_name(made.name + "-shm")):
                leftover.unlink(missing_ok=True)



def _not_for_this_table(table: TableState, *, seats: int | None, preset: str | None, stake: int | None,
                        rounds: int | None, new_only: Sequence[str] = ()) -> str:
    """The flags given to a resumed table that would have made another table ("" if none); ``new_only``:
    flags given that only a new table takes (--format, --option, --level)."""
    given = [flag for flag, differs in (
        ("--seats", seats is not None and seats != table.seat_limit),  # (given: its default is a new table's)
        ("--preset", preset is not None and preset.lower() != table.rules.preset),
        ("--stake", stake is not None and stake != table.rules.stake),
        ("--rounds", rounds is not None and rounds != table.max_rounds),
    ) if differs] + list(new_only)
    return ", ".join(given) + (" apply" if len(given) > 1 else " applies") if given else ""


def _readable(line: str) -> str:
    """A line with each byte its decoding kept as a lone surrogate (the C locale's ``surrogateescape``) shown as
    the replacement character (a refusal quoted such a byte back as Python's escape of it)."""
    return re.sub("[\ud800-\udfff]", "\ufffd", line)


def _read_lines(readline: Callable[[], str]) -> asyncio.Queue[str]:
    """What is typed, line by line ("" at the end), read by a daemon thread: Ctrl-C at the prompt ends the
    program at once (a read in the loop's executor held it until Enter was pressed)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue()

    def pump() -> None:
        while True:
            try:
                line = _readable(readline())
            except Exception as exc:  # (undecodable input, a closed stream): the end of the input, not a hang
                log.warning("standard input could not be read any further (%s); ending", type(exc).__name__)
                line = ""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the loop is closed: the program is ending
                return
            if not line:
                return

    threading.Thread(target=pump, name="liars-stdin", daemon=True).start()
    return queue


async def _run(
    service: Service, notifier: ConsoleNotifier, *, game: str, seats: int | None, preset: str | None, stake: int | None,
    humans: int,
    rounds: int | None, level: str, stdin: TextIO, out: TextIO, err: TextIO, options: Sequence[str],
    new_only: Sequence[str] = (),
) -> int:
    if humans:
        actor = Actor(YOU, notifier.viewer_name, is_admin=True)
    else:
        actor = Actor("cpu-house", f"House ({level})", is_admin=True)

    async def send(name: str, args: Sequence[str] = (), opts: dict[str, str] | None = None) -> Reply:
        try:
            reply = await service.handle(Command(name, KEY, actor, tuple(args), opts or {}))
            await service.drain()  # what the table says comes before the next prompt
            return reply
        except Exception:
            log.exception("command %s failed", name)
            return Reply("Sorry, something went wrong; nothing was changed. The details are in the log.", ok=False)

    def show(reply: Reply) -> None:
        out.write(("" if reply.ok else "⚠️  ") + plain(reply.text) + "\n\n")
        record = (reply.data or {}).get("record") if reply.ok else None
        if isinstance(record, str):  # `export`: the record itself (a chat attaches it as a file)
            out.write(record + "\n\n")
        out.flush()

    def refused(text: str) -> int:
        """The table cannot be played as asked: said on standard error, as every command's refusal is."""
        err.write("liars: " + plain(text) + "\n")
        err.flush()
        return 2

    table = service.table(KEY)
    if table is not None and not humans and YOU in table.seats:
        # the demo once closed it ("closed by the terminal", its round void) to run in its place
        return refused("A table you play is open in this database: `liars play` resumes it (type `end` there to "
                       "close it). Run the demo on another database (--db FILE).")
    if table is not None and (humans and YOU in table.seats):
        if table.game.name != game:  # --game (or --seats, --preset) applies to a new table only
            out.write(f"Resuming the table left open in this database: it plays {table.game.title}, not "
                      f"{get_game(game).title}. Type `end` to close it; the next `liars play` opens a new one.\n\n")
        elif ignored := _not_for_this_table(table, seats=seats, preset=preset, stake=stake, rounds=rounds,
                                            new_only=new_only):
            out.write(f"Resuming the table left open in this database ({table.seat_limit} seats, preset "
                      f"{table.rules.preset}, stake {table.rules.stake}): {ignored} to a new table only. Type `end` "
                      "to close this one; the next `liars play` opens a new one.\n\n")
        else:
            out.write("Resuming the table left open in this database.\n\n")
        await service.resume(KEY)
        show(await send("status"))
        if table.live and (held := await send("hand")).ok:  # under the gun in the card game one holds nothing
            show(held)
    else:
        if table is not None:
            await service.handle(Command("end", KEY, Actor("cli", "the terminal", is_admin=True)))
            await service.drain()
        count = DEFAULT_SEATS if seats is None else seats
        start_opts = {"game": game, "seats": str(count), "computers": str(count - 1), "level": level}
        if preset:
            start_opts["preset"] = preset
        if stake is not None:
            start_opts["stake"] = str(stake)
        if rounds is not None:  # 0 is refused by the table as in chat ("rounds must be from 1"), not dropped
            start_opts["rounds"] = str(rounds)
        if not humans:
            start_opts["host_computer"] = level
        for word in options:
            k, _, v = word.partition("=")
            start_opts[k] = v  # "rebid" (no "=") is "" and refused by the table, as "rebid=" is in chat
        reply = await send("start", opts=start_opts)
        if not reply.ok:
            return refused(reply.text)
        reply = await send("deal")
        if not reply.ok:  # the table cannot be played: it is not left open for the next `liars play` to resume
            await send("end")
            return refused(reply.text)
    if not humans:
        show(await send("ledger"))
        return 0

    out.write(plain(how_to_play(current.game if (current := service.table(KEY)) else get_game(game))))
    out.flush()
    lines = _read_lines(stdin.readline)
    while service.table(KEY) is not None:
        out.write("> ")
        out.flush()
        line = await lines.get()
        if not line:
            break
        table = service.table(KEY)
        parsed = parse_line(line, table.game if table is not None else get_game(game))
        if parsed is None:
            continue
        name, args = parsed
        if name == "quit":
            break
        reply = await send(name, args)
        spec = resolve(name)
        if spec is None or spec.section is not Section.MOVE or not reply.ok:
            show(reply)  # a move that went through shows as the table's note
    out.write("Goodbye. The table stays open in the database: `liars play` resumes it.\n"
              if service.table(KEY) is not None else "The table is closed.\n")
    return 0

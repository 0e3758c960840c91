"""One composition root: ``bot.bootstrap`` builds every process, and nothing below it imports an adapter.

Read from the source (the modules' syntax trees), so a lazy import inside a function counts too:

* no module of ``bot/`` but the root and the command line's glue imports ``adapters``;
* the service, the panel book, the notifiers, the Discord client and the stores are constructed by the
  root only (each exception below says why);
* each process's entry point (``liars discord``, ``liars slack``, ``liars play``, ``liars ledger``/
  ``sheet``/``export``, ``bench/service.py``) reaches its objects through the root's function for it;
* ``bot/`` (its command line too) and the stores reach a game only through ``core.registry``: none
  imports a game's package (``core.serial``, ``core.cards``, …).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPOSITION_ROOT = "bot/bootstrap.py"
CLI_GLUE = {"bot/cli.py", "bot/cli_play.py"}  # the console script: it dispatches to each process's entry
BUILT_BY_THE_ROOT = {"Service", "Panels", "DiscordNotifier", "SlackNotifier", "ConsoleNotifier", "LiarsBot",
                     "make_store", "SqliteStore", "PostgresStore"}
STORE_CHOOSERS = {"make_store", "open_store"}  # adapters.stores's: the root's open_store is the way to them
ALSO_BUILT_IN = {
    ("bot/service.py", "Panels"),  # a service built without a book (no notifier keeps panels) makes its own
    ("adapters/discord/bot.py", "DiscordNotifier"),  # the client builds its notifier on itself, then the
    # service through the root's factory: the notifier needs the client, the client the service
    ("adapters/stores.py", "SqliteStore"), ("adapters/stores.py", "PostgresStore"),  # the store for a URL
    ("adapters/stores.py", "make_store"),
    # ``liars migrate`` copies a SQLite file into PostgreSQL, store to store: no service, no notifier
    ("adapters/migrate.py", "SqliteStore"), ("adapters/migrate.py", "PostgresStore"),
}
ENTRY_POINTS = [  # (file, function, the root's function it reaches its objects through)
    ("adapters/discord/bot.py", "_run", "discord_bot"),
    ("adapters/slack/app.py", "run", "slack_bot"),
    ("adapters/console/app.py", "play", "terminal_table"),
    ("bot/cli_play.py", "cmd_ledger", "build_service"),
    ("bot/cli.py", "cmd_forget", "open_store"),
    ("bench/service.py", "open_service", "build_service"),
]


def _sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _imports(tree: ast.AST) -> list[str]:
    """Every absolute import, and each name imported from a module as ``module.name`` (``from core
    import serial`` imports ``core`` and ``core.serial``)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return names


def _called(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def test_nothing_below_the_root_imports_an_adapter() -> None:
    checked = 0
    for path in _sources("bot"):
        name = _name(path)
        if name == COMPOSITION_ROOT or name in CLI_GLUE:
            continue
        adapters = [m for m in _imports(ast.parse(path.read_text())) if m.split(".")[0] == "adapters"]
        assert adapters == [], f"{name} imports {adapters}"
        checked += 1
    assert checked > 10


def _store_choosers_imported(tree: ast.AST) -> set[str]:
    return {alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "adapters.stores"
            for alias in node.names if alias.name in STORE_CHOOSERS}


def test_the_root_builds_the_service_its_notifier_panels_and_store() -> None:
    found: dict[str, set[str]] = {}
    for path in _sources("bot", "adapters", "bench"):
        tree = ast.parse(path.read_text())
        for called in (_called(tree) & BUILT_BY_THE_ROOT) | _store_choosers_imported(tree):
            found.setdefault(_name(path), set()).add(called)
    elsewhere = {(f, c) for f, calls in found.items() if f != COMPOSITION_ROOT for c in calls} - ALSO_BUILT_IN
    assert elsewhere == set(), "built outside the composition root"
    assert {"Service", "Panels", "SlackNotifier", "ConsoleNotifier", "LiarsBot"} <= found[COMPOSITION_ROOT]


@pytest.mark.parametrize(("file", "function", "root_function"), ENTRY_POINTS)
def test_each_entry_point_starts_from_the_root(file: str, function: str, root_function: str) -> None:
    tree = ast.parse((ROOT / file).read_text())
    [body] = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function]
    assert root_function in _called(body), f"{file}:{function} does not call bot.bootstrap.{root_function}"
    root = ast.parse((ROOT / COMPOSITION_ROOT).read_text())
    assert any(isinstance(n, ast.AsyncFunctionDef) and n.name == root_function for n in root.body)


GAMES = sorted(p.name for p in (ROOT / "core").iterdir() if (p / "__init__.py").exists())  # core's packages: one a game


def _game_imports(tree: ast.AST) -> list[str]:
    """The game packages a module imports, however it is spelt."""
    return [n for n in _imports(tree) if any(n == f"core.{g}" or n.startswith(f"core.{g}.") for g in GAMES)]


def test_bot_and_the_stores_reach_games_only_through_the_registry() -> None:
    assert {"serial", "cards"} <= set(GAMES)
    checked = 0
    for path in [*_sources("bot", "adapters/sqlite", "adapters/postgres"), ROOT / "adapters" / "storebase.py"]:
        assert _game_imports(ast.parse(path.read_text())) == [], f"{_name(path)}: use core.registry"
        checked += 1
    assert checked > 25


def test_the_checks_see_a_violation() -> None:
    """The checkers are not vacuous: an adapter import and a construction in a function are found."""
    tree = ast.parse("def f():\n    from adapters.stores import open_store\n    return Service(open_store())\n")
    assert _imports(tree) == ["adapters.stores", "adapters.stores.open_store"]
    assert _store_choosers_imported(tree) == {"open_store"}
    assert "Service" in _called(tree)
    for game_import in ("import core.serial.odds", "from core.cards.game import CARDS", "from core import serial",
                        "def f():\n    from core.serial import Serial\n"):
        assert _game_imports(ast.parse(game_import)) != [], game_import
    assert _game_imports(ast.parse("from core.registry import GAMES\nfrom core import game, commands")) == []


def test_no_public_signature_of_the_root_names_slacks_port() -> None:
    """The root wires Slack's installations into Slack's adapter inside ``slack_bot``; what it hands the
    tools (``open_store``: ``liars forget``, the service bench) is the store's ``Books``, and no public
    function of it takes or returns a type that carries ``SlackInstalls``."""
    import inspect
    import typing

    import bot.bootstrap as root
    from adapters.console.app import ConsoleNotifier
    from adapters.discord.bot import LiarsBot
    from adapters.discord.config import DiscordConfig
    from adapters.installs import SlackInstalls
    from adapters.slack.app import SlackBot
    from adapters.slack.config import SlackConfig
    from adapters.stores import Books, Database

    known = {"ConsoleNotifier": ConsoleNotifier, "LiarsBot": LiarsBot, "DiscordConfig": DiscordConfig,
             "SlackBot": SlackBot, "SlackConfig": SlackConfig, "Books": Books, "Database": Database}
    checked = 0
    for name in root.__all__:
        function = getattr(root, name)
        if not inspect.iscoroutinefunction(function):
            continue
        hints = typing.get_type_hints(function, localns=known)
        named = [t for hint in hints.values() for t in (hint, *typing.get_args(hint)) if isinstance(t, type)]
        assert not [t for t in named if SlackInstalls in t.__mro__], (name, hints)
        checked += 1
    assert checked >= 5
    assert typing.get_type_hints(root.open_store, localns=known)["return"] is Books
    assert SlackInstalls in Database.__mro__ and SlackInstalls not in Books.__mro__

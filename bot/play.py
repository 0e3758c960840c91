"""Play: every game's moves through one use case (``act``), computer seats, and what follows a move.

A player's command names one of the game's verbs (``bid``, ``declare``, ``take`` …); the game parses
it, checks it (raising before anything changes), and the table stores and applies it.  Then the
follow-up deals the next round when one has ended and lets computer seats move.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from core.game import Checked, Json, Say, SayKind

from . import messages as M
from . import refusals as R
from .commands import game_of_command
from .lobby import Lobby
from .model import Command, MessageKind, Reply, TableKey
from .parsing import UserError
from .runtime import Behind, Runtime
from .table import AWAY_TURNS, TableState, TableStatus

__all__ = ["Play"]

log = logging.getLogger(__name__)

class Play:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.lobby = Lobby(rt, self.after_change)

    async def act(self, cmd: Command) -> Reply:
        """Any game verb, from a command, a button or a form."""
        rt = self.rt
        async with rt.lock(cmd.key):
            rt.need_same_table(cmd)  # again under the lock: a move queued before this one may have passed the turn
            table = rt.need_table(cmd.key)
            rt.need_seat(table, cmd.actor.user_id)
            rt.need_round(table)
            assert table.match is not None
            spec = game_of_command(table.game.name, cmd.name)
            if spec is None:
                raise UserError(R.not_in_game(cmd.name, table.game.title), "unknown-command")
            action = table.match.parse(cmd.actor.user_id, cmd.name, cmd.args, cmd.options)
            checked = table.match.check(action)  # raises GameError before anything changes
            reply = Reply(M.done(spec))
            await self.apply(table, checked, cmd, reply)
        await self.after_change(cmd.key)
        return reply

    async def apply(self, table: TableState, action: Checked | Json, cmd: Command | None = None,
                    reply: Reply | None = None, timed_out: bool = False, held: bool = False) -> bool:
        """Store and apply an action (checked, or a game's own: a timeout's, a computer's); queue what it
        says (under the table's lock).

        A timed-out turn may be several moves (the card game's take, then declare): while the same player
        is still to act, what a move tells them privately ("you may discard…") is held back, since the timer
        moves for them at once; after the last (``held``: something was), they are told what the game says
        to them now.  Returns whether this move's private words were held back."""
        rt = self.rt
        checked = action if isinstance(action, Checked) else None
        payload = action.action if isinstance(action, Checked) else action
        event: dict[str, Any] = {"t": "act", **payload}
        if timed_out:
            event["timeout"] = True
        [step] = await rt.commit(table, [event], cmd, reply, checked=checked)
        settings = rt.cached_settings(table.key.server)
        note = M.move_note(event, step)
        actor = str(event.get("player", ""))
        nxt = table.to_act
        turn = M.turn_message(table) if nxt is not None and nxt != actor and not table.is_computer(nxt) else None
        says = list(step.says)
        goes_on = timed_out and table.live and nxt == actor
        if goes_on:
            says = [say for say in says if not (say.kind is SayKind.PRIVATE and say.to == actor)]
        elif held and table.match is not None and (now := table.match.private_text(actor)) is not None:
            says.append(Say(now, SayKind.PRIVATE, to=actor))
        rt.post([M.panel_message(table, settings, note=note), turn, *M.say_messages(table, says, settings)])
        return goes_on

    # -- what follows a move ----------------------------------------------------------------------
    async def after_change(self, key: TableKey) -> None:
        """Deal the next round after one ends, and let computer seats act (at once when there is no delay).

        The command that led here is already applied and stored; a failure now is logged, not
        reported to its sender, and the table's timer retries it.
        """
        try:
            await self._follow_up(key)
        except Behind:
            log.info("table %s was followed up in another process", key)
        except Exception:
            log.exception("following up on table %s failed; its timer will retry", key)

    async def _follow_up(self, key: TableKey) -> None:
        rt = self.rt
        for _ in range(10_000):
            async with rt.lock(key):
                table = rt.tables.get(key)
                if table is None or table.status != TableStatus.PLAYING:
                    return
                if not table.live:
                    await self.next_round(table)
                    continue
                player = table.to_act
                if rt.computer_delay > 0 or player is None or not table.is_computer(player):
                    return
                await self.computer_move(table, player)

    async def next_round(self, table: TableState) -> None:
        assert table.match is not None
        remaining = table.players_for_next_deal()
        if table.max_rounds and table.rounds_settled >= table.max_rounds:
            await self.lobby.close(table, None, M.all_rounds_played(table.max_rounds))
        elif table.match.over:
            await self.lobby.close(table, None, table.match.end_text)
        elif table.closing_by is not None:
            await self.lobby.close(table, None, M.closed_by(table.closing_by, void=False))
        elif table.seat_change_ends_game():  # e.g. the card game's last rival left: the game settles
            [step] = await self.rt.commit(table, [{"t": "seat", "players": remaining}])
            settings = self.rt.cached_settings(table.key.server)
            self.rt.post(M.say_messages(table, step.says, settings))
            await self.lobby.close(table, None, table.match.end_text)
        elif len(remaining) < table.game.min_players:
            await self.lobby.close(table, None, M.TOO_FEW_REMAIN)
        elif all(table.is_computer(p) for p in remaining) and table.humans and not table.match.settles_at_end:
            # (a game at stake plays on, computers only, at their usual pace: what the people who left owe or are
            # owed is paid at its end, to its winner or by its payer)
            await self.lobby.close(table, None, M.ONLY_COMPUTERS_REMAIN)
        else:
            # away, and the leave another process was writing did not land: they leave now all the same, said so
            unsaid = [p for p in table.seats if table.is_away(p) and p not in table.pending_leave]
            await self.lobby.deal_round(table, before=[M.table_message(table, M.away(p, AWAY_TURNS), MessageKind.INFO)
                                                       for p in unsaid])  # (a deal another process made says its own)

    async def computer_move(self, table: TableState, player: str) -> None:
        assert table.match is not None
        rng = random.Random(f"{table.computer_seed}:{table.id}:{table.events}")  # secret: see deal_event
        # What the decision needs (the seat's view, a copy) is taken here, under the table's lock; the decision
        # itself may take up to a second (the serial game's expert), so it runs in a worker thread, from that
        # copy alone: if this task is cancelled (shutdown, a timer), the lock goes and the match may change
        # while the thread still thinks, but the thread no longer reads the match.
        decision = table.match.computer_decision(player, table.computers[player])
        action = await asyncio.to_thread(decision, rng)
        await self.apply(table, action)

"""The ids of the messages each table's panels were posted as: the one place a process keeps them.

A *panel* is a message a platform edits in place (the lobby, the table message) or replaces (the turn
ping: a mention notifies only in a new message, so each turn posts a new ping and deletes the last).
The notifier reads a panel's id here when it sends (:meth:`Panels.ref`) and tells this book the id of
a message it posted (:meth:`Panels.posted`); the notifier knows nothing of the service.

* A lobby or table message's id is stored with its table at once: another process (or this one after a
  restart) edits the same message; the table repository merges the ids other processes stored when it
  catches up (:meth:`Panels.adopt`).  A new round's table message is posted (and its id stored) only after
  the deal's commit: a process that catches up with another's deal before that id is stored marks the id it
  holds as the last round's, and :meth:`Panels.current` (which the Slack notifier asks before drawing a table)
  reads the store again, answering None — draw nothing — until the new id is there, for
  :data:`STALE_SECONDS` at most; the dealing process draws the table as it then stands once its post is back.
* A turn ping's id is kept here only: a ping is never edited, only deleted by the next ping this
  process posts, so storing it would cost a second write transaction for every turn.  A ping posted by
  a process that then stops (or by another process) stays in the channel.

Each channel's ids are kept for its latest table until another table opens there, so the messages that
close a table still edit its panels after the table is gone from the service's cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from .model import Message, TableKey
from .ports import Store

__all__ = ["STALE_SECONDS", "Panels"]

STALE_SECONDS = 15.0
"""How long a table message another process is posting is waited for (its post is back within seconds, or
never: then this process draws the table in the message it knows)."""


class Panels:
    def __init__(self, store: Store, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._clock = clock
        self._refs: dict[TableKey, tuple[int, dict[str, str]]] = {}  # per channel: (table id, panel -> id)
        # per channel: (table id, the table message id known when another process dealt a round whose new
        # message was not stored yet — the last round's, or None — and when that was seen)
        self._stale: dict[TableKey, tuple[int, str | None, float]] = {}

    def ref(self, key: TableKey, panel: str, table_id: int | None = None) -> str | None:
        """The id of the channel's latest table's ``panel`` message, if one was posted (None if it is
        not table ``table_id``'s, when one is named)."""
        known = self._refs.get(key)
        if known is None or (table_id is not None and known[0] != table_id):
            return None
        return known[1].get(panel)

    async def posted(self, message: Message, ref: str) -> None:
        """``message`` (a panel of table ``message.table_id``) was posted as ``ref``."""
        assert message.panel is not None and message.table_id is not None
        if message.panel == "table":
            self._stale.pop(message.key, None)  # this process's own table message for the round
        refs = self._refs_of(message.key, message.table_id)
        if refs.get(message.panel) == ref:
            return
        refs[message.panel] = ref
        if not message.replace:  # a turn ping is not stored (see the module's docstring)
            await self._store.set_panel(message.table_id, message.panel, ref)

    def adopt(self, key: TableKey, table_id: int, stored: Mapping[str, str], *, dealt_elsewhere: bool = False) -> None:
        """Take the ids stored for the channel's table (another process may have posted new ones);
        they win over the ones known here for the same table.  ``dealt_elsewhere``: among what was caught up
        is a deal by another process, whose new table message is posted (and its id stored) only after the
        deal's commit: if the stored id is still the one known, it is the last round's, not to be edited."""
        refs = self._refs_of(key, table_id)
        before = refs.get("table")
        refs.update(stored)
        if dealt_elsewhere and refs.get("table") == before:
            self._stale[key] = (table_id, before, self._clock())

    async def current(self, key: TableKey, table_id: int) -> str | None:
        """See :meth:`bot.ports.PanelRefs.current`."""
        ref = self.ref(key, "table", table_id)
        stale = self._stale.get(key)
        if stale is None or stale[0] != table_id or ref != stale[1]:
            return ref
        if self._clock() - stale[2] > STALE_SECONDS:  # its poster never stored it (stopped, refused): draw here
            self._stale.pop(key, None)
            return ref
        self.adopt(key, table_id, await self._store.table_panels(table_id))
        ref = self.ref(key, "table", table_id)
        if ref == stale[1]:
            return None  # not stored yet
        self._stale.pop(key, None)
        return ref

    def _refs_of(self, key: TableKey, table_id: int) -> dict[str, str]:
        known = self._refs.get(key)
        if known is None or known[0] != table_id:
            if known is not None and known[0] > table_id:  # a message of a table the channel has left behind
                return {}
            known = self._refs[key] = (table_id, {})
        return known[1]

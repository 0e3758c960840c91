"""The ids of the messages each table's panels were posted as: the one place a process keeps them.

A *panel* is a message a platform edits in place (the lobby, the table message) or replaces (the turn
ping: a mention notifies only in a new message, so each turn posts a new ping and deletes the last).
The notifier reads a panel's id here when it sends (:meth:`Panels.ref`) and tells this book the id of
a message it posted (:meth:`Panels.posted`); the notifier knows nothing of the service.

* A lobby or table message's id is stored with its table at once: another process (or this one after a
  restart) edits the same message; the table repository merges the ids other processes stored when it
  catches up (:meth:`Panels.adopt`).
* A turn ping's id is kept here only: a ping is never edited, only deleted by the next ping this
  process posts, so storing it would cost a second write transaction for every turn.  A ping posted by
  a process that then stops (or by another process) stays in the channel.

Each channel's ids are kept for its latest table until another table opens there, so the messages that
close a table still edit its panels after the table is gone from the service's cache.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import Message, TableKey
from .ports import Store

__all__ = ["Panels"]


class Panels:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._refs: dict[TableKey, tuple[int, dict[str, str]]] = {}  # per channel: (table id, panel -> id)

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
        refs = self._refs_of(message.key, message.table_id)
        if refs.get(message.panel) == ref:
            return
        refs[message.panel] = ref
        if not message.replace:  # a turn ping is not stored (see the module's docstring)
            await self._store.set_panel(message.table_id, message.panel, ref)

    def adopt(self, key: TableKey, table_id: int, stored: Mapping[str, str]) -> None:
        """Take the ids stored for the channel's table (another process may have posted new ones);
        they win over the ones known here for the same table."""
        self._refs_of(key, table_id).update(stored)

    def _refs_of(self, key: TableKey, table_id: int) -> dict[str, str]:
        known = self._refs.get(key)
        if known is None or known[0] != table_id:
            if known is not None and known[0] > table_id:  # a message of a table the channel has left behind
                return {}
            known = self._refs[key] = (table_id, {})
        return known[1]

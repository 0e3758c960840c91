"""The fake Discord's user-installed app and Components V2 (mixed into :class:`FakeDiscord`).

Group DMs and DMs between friends
---------------------------------
* ``add_group_dm(name, users)`` makes a group DM (channel type 3) of those users; the app is installed
  to the users, not to a server, and the bot is not in it: ``POST /channels/{id}/messages`` there gives
  403 ``50001 Missing Access``, as on Discord.  ``dm_between(a, b)`` is a DM between two friends (type 1,
  the bot not in it either).
* ``without_bot(guild)``: a server where the app is installed only to its members (the server allows
  external apps), not to the server: no GUILD_CREATE for it, its interactions are authorized by the
  user's install (``{"1": user}``), and the bot cannot post in its channels either (403 ``50001``).
* A slash command or a click in such a channel is an interaction of context 2 (``PRIVATE_CHANNEL``)
  authorized by the user's install (``authorizing_integration_owners: {"1": user}``).  The command must
  have been registered for it (``integration_types`` with 1 and ``contexts`` with 2), or injecting it
  fails, as Discord would not offer the command there.

Interaction webhooks
--------------------
* ``PATCH``/``DELETE /webhooks/{app}/{token}/messages/{id}`` edit or delete a follow-up the same
  interaction sent (another interaction's message: 404 ``10008``), ``@original`` the interaction's own
  message (for a click, the message the button is on).
* A token lasts ``token_ttl`` seconds (15 minutes, as on Discord) from its interaction: afterwards
  follow-ups and edits with it get 401 ``50027 Invalid Webhook Token``.  ``advance(seconds)`` moves the
  fake's clock for that.

Components V2
-------------
A message with the ``IS_COMPONENTS_V2`` flag (1 << 15, kept once set) is checked as Discord checks it:
no ``content`` or embeds (400 ``50035`` ``MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2``); top-level
components are containers, text displays, sections, media galleries, files, separators or action rows;
at most 40 components and 4,000 characters of text; action rows of at most 5 buttons; a media item
``attachment://name`` must name a file of the message.  ``RecordedMessage.text()`` reads the text
displays too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["COMPONENTS_V2", "PrivateFake", "v2_texts"]

JSON = dict[str, Any]
COMPONENTS_V2 = 1 << 15
TOKEN_TTL = 15 * 60.0
_TOP = {1, 9, 10, 12, 13, 14, 17}  # action row, section, text display, media gallery, file, separator, container
_IN_CONTAINER = {1, 9, 10, 12, 13, 14}


def _walk(components: Sequence[JSON]) -> Iterator[JSON]:
    for comp in components:
        yield comp
        inner = comp.get("components")
        if isinstance(inner, list):
            yield from _walk(inner)
        for key in ("accessory",):
            if isinstance(comp.get(key), dict):
                yield from _walk([comp[key]])


def v2_texts(components: Sequence[JSON]) -> list[str]:
    """The text displays' contents, in order."""
    return [str(c.get("content") or "") for c in _walk(components) if c.get("type") == 10]


class PrivateFake:
    """Group DMs, the interaction webhooks' edits and Components V2 (see the module's docstring)."""

    group_dms: dict[int, list[int]]
    apart: set[int]
    token_ttl: float
    _skew: float

    def _init_private(self) -> None:
        self.group_dms = {}  # channel id -> its users
        self.apart = set()  # servers the bot is not in (the app installed to their members only)
        self.token_ttl = TOKEN_TTL
        self._skew = 0.0

    def without_bot(self, guild_id: int) -> None:
        """The app is installed to this server's members, not to the server: the bot is not in it."""
        self.apart.add(guild_id)

    def now(self) -> float:
        return time.monotonic() + self._skew

    def advance(self, seconds: float) -> None:
        """Move the fake's clock on (interaction tokens age)."""
        self._skew += seconds

    # ---------------------------------------------------------------- Components V2

    def _v2_errors(self, body: JSON, files: Sequence[str]) -> list[tuple[str, str, str]]:
        errors: list[tuple[str, str, str]] = []
        if body.get("content") or body.get("embeds"):
            errors.append(("content", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                           "The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2"))
        components = list(body.get("components") or [])
        everything = list(_walk(components))
        if len(everything) > 40:
            errors.append(("components", "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length."))
        if sum(len(t) for t in v2_texts(components)) > 4000:
            errors.append(("components", "BASE_TYPE_MAX_LENGTH", "Text must be 4000 or fewer in length."))
        for i, comp in enumerate(components):
            if comp.get("type") not in _TOP:
                errors.append((f"components.{i}.type", "UNION_TYPE_CHOICES", "Value of field type must be one of"
                               f" {sorted(_TOP)}."))
            if comp.get("type") == 17:
                for j, child in enumerate(comp.get("components") or []):
                    if child.get("type") not in _IN_CONTAINER:
                        errors.append((f"components.{i}.components.{j}.type", "UNION_TYPE_CHOICES",
                                       "Not allowed in a container."))
        for comp in everything:
            if comp.get("type") == 1 and not 1 <= len(comp.get("components") or []) <= 5:
                errors.append(("components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length."))
            if comp.get("type") == 12:
                for item in comp.get("items") or []:
                    url = str((item.get("media") or {}).get("url") or "")
                    if url.startswith("attachment://") and url.removeprefix("attachment://") not in files:
                        errors.append(("components", "UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND",
                                       f"Attachment {url!r} not found."))
        return errors

    # ---------------------------------------------------------------- private channels

    def _private_context(self, channel_type: int, user_id: int) -> JSON:
        """The fields of an interaction in a group DM or a DM between friends (the user's install)."""
        if channel_type == 1:  # the bot's own DM with the user
            return {"authorizing_integration_owners": {"0": "0"}, "context": 1}
        return {"authorizing_integration_owners": {"1": str(user_id)}, "context": 2}

    @staticmethod
    def _allows_private(cmd: JSON) -> bool:
        return 1 in (cmd.get("integration_types") or []) and 2 in (cmd.get("contexts") or [])

    def _token_expired(self, created: float) -> bool:
        return self.now() - created > self.token_ttl

"""The sheet keeper's discretion: the server setting ``history=month|all`` (the seeds: the keeper "was not
expected to keep or share statistics with players beyond the past month's tally").

With ``month`` nobody but the server's admins sees a figure from before the current ledger period:
``ledger`` shows this period only, ``sheet`` refuses an earlier period, ``stats`` counts this period's
rounds and shows the period's rating (the season's own ratings, :class:`~bot.ratings.RatingBook`),
``leaderboard all`` is this period's board, ``history`` lists this period's rounds, and ``export``
refuses a table whose record reaches into an earlier period (a record cut short would not replay).
The App Home and charts read those same commands.  Admins keep the full sheet.  Nothing is deleted
and the all-time ratings keep learning from every round: only what is shown changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .model import Command
from .parsing import UserError
from .runtime import Runtime
from .settings import HISTORY_CHOICES

__all__ = ["HISTORY_CHOICES", "Discretion", "history_setting", "only_period"]


def history_setting(value: str) -> str:
    """A ``config history=…`` value, checked."""
    text = value.strip().lower()
    if text not in HISTORY_CHOICES:
        raise UserError(f"history is `month` (players see this period's figures only; admins see all) "
                        f"or `all`, not {value!r}.", "bad-option")
    return text


def only_period(rows: Sequence[Mapping[str, Any]], period: str | None) -> list[Mapping[str, Any]]:
    """The stored round rows of ``period`` (all of them when ``period`` is None)."""
    return list(rows) if period is None else [r for r in rows if r.get("period") == period]


class Discretion:
    """What the sender of a reading command may see."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def period(self, cmd: Command, settings: Mapping[str, Any], *, public: bool = False) -> str | None:
        """The only period the sender may see (this one), or None when they see the full sheet;
        ``settings``: the server's, as the report has read them (once per report).  ``public``: what is
        asked for is posted in the channel (a chart), where every player reads it: an admin's too is
        this period's only (an admin's chart once posted earlier months' figures for all to see)."""
        if settings.get("history", "all") != "month":
            return None
        if not public and await self.rt.is_admin(cmd, settings):
            return None
        return self.rt.period()

    def refuse_earlier(self, asked: str | None, shown: str | None, *, chart: bool = False) -> None:
        """An explicit earlier (or later) period the sender may not see (``chart``: not in the channel, where
        its chart would go, whoever asks)."""
        if shown is not None and asked is not None and asked != shown:
            raise UserError(refused_chart(shown, asked) if chart else refused(shown), "history-month")


def refused_chart(period: str, asked: str) -> str:
    return (f"This server's sheet keeper shows players this period's figures only ({period}), and a chart is "
            f"posted where they read it: ask for {asked} without `chart`.")


def refused(period: str) -> str:
    return (f"This server's sheet keeper shows players this period's figures only ({period}); "
            "an admin can see earlier periods.")


NOTE_MONTH: Final = " (this server shows players this period's figures only)"

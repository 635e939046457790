"""Date windows: the service takes From/To as UTC calendar days, both included, at most one month
apart. Calendar months (01-31, then 01-28, ...) never overlap and never exceed that, so a range of
any length is read month by month, and a month too large for one export is halved down to days."""
from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import List, NamedTuple, Optional, Tuple, Union

DateLike = Union[str, dt.date]


class Window(NamedTuple):
    """Whole UTC days, both ends included."""

    start: dt.date
    end: dt.date


def parse_day(value: DateLike, name: str) -> dt.date:
    """A calendar day from a ``date`` (a ``datetime`` is refused: the service counts whole days) or ``YYYY-MM-DD``."""
    if isinstance(value, dt.datetime):
        raise ValueError(f"{name} must be a date or YYYY-MM-DD, not a datetime: the service takes whole UTC days")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and re.fullmatch("[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{name} must be a calendar day YYYY-MM-DD (or a datetime.date), not {value!r}")


def month_windows(start: dt.date, end: dt.date) -> List[Window]:
    """The calendar-month windows of ``start``..``end`` (both included), the first and last cut to the range."""
    if start > end:
        raise ValueError(f"start {start} is after end {end}")
    windows: List[Window] = []
    cursor = start
    while cursor <= end:
        month_end = cursor.replace(day=calendar.monthrange(cursor.year, cursor.month)[1])
        last = min(month_end, end)
        windows.append(Window(cursor, last))
        if last == dt.date.max:
            break
        cursor = last + dt.timedelta(days=1)
    return windows


def halves(window: Window) -> Optional[Tuple[Window, Window]]:
    """The two halves of a window of more than one day (the first takes the middle day); None for one day."""
    days = (window.end - window.start).days
    if days == 0:
        return None
    middle = window.start + dt.timedelta(days=days // 2)
    return Window(window.start, middle), Window(middle + dt.timedelta(days=1), window.end)

"""simple_history's ``HistoricalRecords``, with the history manager's class built once.

``instance.history`` is a manager bound to the instance, and simple_history builds its class
on every access (``Manager.from_queryset``: a new class with every queryset method copied
onto it); it reads that attribute for every row it records, so each span write paid for a
class (a fifth of its history record: cProfile under ``bench/annotate_api.py``'s requests).
Here each (manager, queryset) class is built once and reused; the managers themselves are
still made per access, bound to their instance, as before.
"""

from __future__ import annotations

from typing import Any, ClassVar

from simple_history.manager import HistoryManager as BaseHistoryManager
from simple_history.models import HistoricalRecords as BaseHistoricalRecords


class HistoryManager(BaseHistoryManager):
    _built: ClassVar[dict[tuple[type, type, str | None], type]] = {}

    @classmethod
    def from_queryset(cls, queryset_class: type, class_name: str | None = None) -> type:
        key = (cls, queryset_class, class_name)
        if key not in HistoryManager._built:
            HistoryManager._built[key] = super().from_queryset(queryset_class, class_name)
        return HistoryManager._built[key]


class HistoricalRecords(BaseHistoricalRecords):
    def __init__(self, *args: Any, history_manager: type = HistoryManager, **kwargs: Any) -> None:
        super().__init__(*args, history_manager=history_manager, **kwargs)

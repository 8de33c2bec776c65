"""Input serializers that build their fields once per thread instead of once per request.

DRF's ``Serializer.get_fields`` deep-copies every declared field for each serializer
instance: for the span write's input (five plain fields) that copy was about a tenth of the
request's CPU in the web process (``bench/span_write_inprocess.py --profile``). A serializer
class with ``ReusedFieldsMixin`` copies its declared fields once per thread and binds that
same set to each new instance (``Serializer.fields`` binds whatever ``get_fields`` returns).

Safe because each thread validates one instance of such a class at a time (a request's
view makes one) and plain fields keep no state between validations: they read their
parent only to reach the root serializer (``partial``, ``context``), which binding sets to
the current instance. Nested serializers would keep state (their own ``_errors``,
``_validated_data``), so the mixin refuses them.
"""

from __future__ import annotations

import copy
import threading

from rest_framework import serializers

_per_thread = threading.local()


class ReusedFieldsMixin:
    _declared_fields: dict[str, serializers.Field]

    def get_fields(self) -> dict[str, serializers.Field]:
        cache: dict[type, dict[str, serializers.Field]] = _per_thread.__dict__.setdefault(
            "fields", {}
        )
        fields = cache.get(type(self))
        if fields is None:
            for name, field in self._declared_fields.items():
                if isinstance(field, serializers.BaseSerializer):
                    raise TypeError(
                        f"{type(self).__name__}.{name}: ReusedFieldsMixin takes plain fields"
                        " only (a nested serializer keeps per-validation state)"
                    )
            fields = cache[type(self)] = copy.deepcopy(self._declared_fields)
        for name, field in fields.items():
            if field.source == name:  # set by the last binding; bind() refuses it as given
                field.source = None
        return dict(fields)  # the same field objects; Serializer.fields binds them to self

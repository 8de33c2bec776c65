"""Matching raw label strings (imported files, model outputs) to canonical taxonomy labels.

Pure Python: importable without Django settings. Matching ignores case and collapses
whitespace; it does not guess (no fuzzy matching), so an unknown label stays unknown.
"""

from __future__ import annotations

from collections.abc import Iterable

# ⊥, "no fallacy is an acceptable alternative". Must equal annotations.models.NO_FALLACY
# (a test checks it); defined here too so pure modules need not import Django.
NO_FALLACY = "no fallacy"
# Spellings of ⊥ met in data and model outputs ("nothing" is MAFALDA's).
NO_FALLACY_ALIASES: tuple[str, ...] = (
    NO_FALLACY,
    "no_fallacy",
    "no-fallacy",
    "nothing",
    "none",
    "⊥",
)


def normalise_label(raw: str) -> str:
    """The matching key of a label: case-folded, whitespace trimmed and collapsed."""
    return " ".join(raw.split()).casefold()


class LabelResolver:
    """Resolves raw label strings to canonical type names (or ``NO_FALLACY``).

    Built from ``(type name, aliases)`` pairs (``TaxonomySpec.label_resolver()`` makes one
    from a taxonomy file, ``selectors.taxonomy.label_resolver`` from the database); raises
    ``ValueError`` if two types claim the same spelling or a type claims a spelling of ⊥.
    """

    def __init__(self, entries: Iterable[tuple[str, Iterable[str]]]) -> None:
        self._by_key: dict[str, str] = {
            normalise_label(alias): NO_FALLACY for alias in NO_FALLACY_ALIASES
        }
        names: list[str] = []
        for name, aliases in entries:
            names.append(name)
            for spelling in (name, *aliases):
                key = normalise_label(spelling)
                claimed_by = self._by_key.get(key)
                if claimed_by is not None and claimed_by != name:
                    raise ValueError(
                        f'label "{spelling}" of type "{name}" is already taken by "{claimed_by}"'
                    )
                self._by_key[key] = name
        self.names: tuple[str, ...] = tuple(names)

    def resolve(self, raw: str) -> str | None:
        """The canonical name for ``raw``; ``NO_FALLACY`` for ⊥; ``None`` if unknown."""
        return self._by_key.get(normalise_label(raw))

    def is_no_fallacy(self, raw: str) -> bool:
        return self.resolve(raw) == NO_FALLACY

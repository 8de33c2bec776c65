"""Taxonomy levels: level 2 = fallacy type, level 1 = its category, level 0 = "fallacy".

⊥ (``NO_FALLACY``) stays ⊥ at every level. The MAFALDA table below is the published
grouping (``/shared/specs/taxonomy-mafalda.md``); the ``mafalda-2024`` profile always uses
it, the default mapping prefers the project's preset file when it can be read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from .core import NO_FALLACY, ScoringInputError, normalise_label

LEVELS: tuple[int, ...] = (0, 1, 2)
LEVEL_0_LABEL = "fallacy"

MAFALDA_TYPE_TO_CATEGORY: Mapping[str, str] = MappingProxyType(
    {
        "appeal to positive emotion": "emotion",
        "appeal to anger": "emotion",
        "appeal to fear": "emotion",
        "appeal to pity": "emotion",
        "appeal to ridicule": "emotion",
        "appeal to worse problems": "emotion",
        "causal oversimplification": "logic",
        "circular reasoning": "logic",
        "equivocation": "logic",
        "false analogy": "logic",
        "false causality": "logic",
        "false dilemma": "logic",
        "hasty generalization": "logic",
        "slippery slope": "logic",
        "straw man": "logic",
        "fallacy of division": "logic",
        "ad hominem": "credibility",
        "ad populum": "credibility",
        "appeal to (false) authority": "credibility",
        "appeal to nature": "credibility",
        "appeal to tradition": "credibility",
        "guilt by association": "credibility",
        "tu quoque": "credibility",
    }
)

PRESET_PATH = Path(__file__).resolve().parents[2] / "annotations" / "presets" / "mafalda.yaml"


@dataclass(frozen=True)
class LevelMapping:
    """Maps level-2 labels to level ``k``; built from a type -> category dict.

    ``aliases`` maps other spellings (normalised) to type names. Labels outside the
    taxonomy are errors at level 1 (there is no category to map them to).
    """

    type_to_category: Mapping[str, str]
    aliases: Mapping[str, str] = field(default_factory=dict)
    name: str = "custom"

    def __post_init__(self) -> None:
        normalised = {
            normalise_label(t): normalise_label(c) for t, c in self.type_to_category.items()
        }
        object.__setattr__(self, "type_to_category", MappingProxyType(normalised))
        object.__setattr__(
            self,
            "aliases",
            MappingProxyType(
                {normalise_label(a): normalise_label(t) for a, t in self.aliases.items()}
            ),
        )

    @property
    def types(self) -> frozenset[str]:
        return frozenset(self.type_to_category)

    @property
    def categories(self) -> frozenset[str]:
        return frozenset(self.type_to_category.values())

    def canonical(self, label: str) -> str:
        """The type name of a (normalised) spelling; unknown labels are returned unchanged."""
        return self.aliases.get(label, label)

    def knows(self, label: str) -> bool:
        return label == NO_FALLACY or self.canonical(label) in self.type_to_category

    def labels_at(self, level: int) -> frozenset[str]:
        """Every label that can occur at ``level`` (⊥ excluded)."""
        if level == 2:
            return self.types
        if level == 1:
            return self.categories
        return frozenset({LEVEL_0_LABEL})

    def map_label(self, label: str, level: int, where: str = "") -> str:
        """``label`` (a type or ⊥) at ``level``."""
        if label == NO_FALLACY:
            return NO_FALLACY
        type_name = self.canonical(label)
        if level == 2:
            if type_name not in self.type_to_category:
                raise ScoringInputError(f"{where}: label {label!r} is not in the taxonomy")
            return type_name
        if level == 1:
            category = self.type_to_category.get(type_name)
            if category is None:
                raise ScoringInputError(f"{where}: label {label!r} is not in the taxonomy")
            return category
        if level == 0:
            if type_name not in self.type_to_category:
                raise ScoringInputError(f"{where}: label {label!r} is not in the taxonomy")
            return LEVEL_0_LABEL
        raise ScoringInputError(f"level must be 0, 1 or 2, got {level!r}")

    def map_set(self, labels: Iterable[str], level: int, where: str = "") -> frozenset[str]:
        """A label set at ``level``; duplicates collapse."""
        return frozenset(self.map_label(label, level, where) for label in labels)


def published_mafalda_mapping() -> LevelMapping:
    """The published MAFALDA table (the ``mafalda-2024`` reproduction contract)."""
    return LevelMapping(MAFALDA_TYPE_TO_CATEGORY, name="mafalda-published")


def mafalda_mapping(preset_path: Path = PRESET_PATH) -> LevelMapping:
    """MAFALDA from the project's preset file if present, else the published table.

    Only a missing file or reader falls back (the scoring package installed on its own has
    neither ``annotations`` nor its presets); a preset that fails to load is an error.
    """
    if not preset_path.exists():
        return published_mafalda_mapping()
    try:
        from annotations.taxonomy_files import read_taxonomy_file
    except ImportError:
        return published_mafalda_mapping()
    spec = read_taxonomy_file(preset_path)
    aliases = {alias: type_.name for type_ in spec.types() for alias in type_.aliases}
    return LevelMapping(spec.type_to_category(), aliases, name=f"preset:{preset_path.name}")

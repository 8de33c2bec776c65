"""Taxonomy files: parsing and validation into frozen dataclasses (pure Python, no Django).

A taxonomy file is YAML (``.yaml``/``.yml``) or JSON (``.json``)::

    name: mafalda          # slug (letters, digits, - and _), at most 64 characters
    version: "1.0"         # a YAML number is accepted and turned into a string; quote it
                           # anyway (YAML reads 1.10 as the number 1.1)
    title: MAFALDA         # optional, defaults to name
    description: ...       # optional
    categories:            # level 1
      - name: emotion
        definition: ...    # optional
        types:             # level 2, at least one
          - name: appeal to positive emotion
            aliases: []    # optional: other spellings matched when importing labels
            definition: ...
            template: ...  # the formal pattern, written with the slot variables
            slots: [P]
            example: ...

Flat files: a file may instead list ``types:`` at the top level with no ``categories:``
(e.g. a benchmark with an unstructured list of types, like FLUB or SmartyPat). All its
types are then put under one level-1 category named ``"fallacy types"``
(``FLAT_CATEGORY``).

Rules (every problem is collected, then reported together in one ``TaxonomyFileError``
whose lines name the file and the place, e.g. ``categories[1].types[3].slots[0]``):

- Unknown keys are rejected, and so are duplicate keys, so a typo never passes silently.
- Required: ``name``, ``version``, ``categories`` (or ``types``); a category's ``name``
  and ``types``; a type's ``name``. Text fields must be strings, ``aliases``/``slots``
  lists of strings.
- Names and aliases are trimmed, whitespace-collapsed and lower-cased (canonical labels
  are lower case). Every category name, type name and alias is unique case-insensitively
  across the whole file, and none may be ``"fallacy"`` (the level-0 root) or a spelling
  of "no fallacy" (``labels.NO_FALLACY_ALIASES``).
- Slot names start with a capital letter followed by letters, digits and ``'``
  (``E1``, ``P'``); they are unique within a type, and each must appear in the type's
  template as a whole token (``P`` is not found inside ``P'`` or ``P1``; a possessive
  ``E1's`` counts as ``E1``). A slot missing from the template is an error, not a
  warning: the template is what a filled-in justification is checked against.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from annotations.importing.formats.storable import TOO_DEEP, json_problem, shown
from annotations.labels import NO_FALLACY_ALIASES, LabelResolver, normalise_label

ROOT_NAME = "fallacy"  # the level-0 node every taxonomy gets
FLAT_CATEGORY = "fallacy types"
FLAT_CATEGORY_DEFINITION = "All the types of a taxonomy file that has no categories."

# Field sizes of the database columns (annotations.models) the spec ends up in.
MAX_TAXONOMY_NAME = 64
MAX_VERSION = 32
MAX_TITLE = 200
MAX_NODE_NAME = 120

SLUG_RE = re.compile(r"^[-a-zA-Z0-9_]+$")
SLOT_RE = re.compile(r"^[A-Z][A-Za-z0-9']*$")

TOP_KEYS = ("name", "version", "title", "description", "categories", "types")
CATEGORY_KEYS = ("name", "definition", "types")
TYPE_KEYS = ("name", "aliases", "definition", "template", "slots", "example")


class TaxonomyFileError(ValueError):
    """A taxonomy file that cannot be used; ``problems`` holds every ``(place, message)``."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [
            f"{source}: {place}: {message}" if place else f"{source}: {message}"
            for place, message in problems
        ]
        if len(lines) == 1:
            text = lines[0]
        else:
            text = f"{source}: {len(lines)} problems:\n" + "\n".join(f"  {line}" for line in lines)
        super().__init__(text)


@dataclass(frozen=True)
class TypeSpec:
    """A level-2 label."""

    name: str
    aliases: tuple[str, ...] = ()
    definition: str = ""
    template: str = ""
    slots: tuple[str, ...] = ()
    example: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "aliases": list(self.aliases),
            "definition": self.definition,
            "template": self.template,
            "slots": list(self.slots),
            "example": self.example,
        }


@dataclass(frozen=True)
class CategorySpec:
    """A level-1 label and its types."""

    name: str
    definition: str
    types: tuple[TypeSpec, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "definition": self.definition,
            "types": [type_.to_dict() for type_ in self.types],
        }


@dataclass(frozen=True)
class TaxonomySpec:
    """A whole taxonomy file, validated."""

    name: str
    version: str
    title: str
    description: str
    categories: tuple[CategorySpec, ...]

    def types(self) -> Iterator[TypeSpec]:
        """Every level-2 type, in file order."""
        for category in self.categories:
            yield from category.types

    def label_names(self) -> tuple[str, ...]:
        """The canonical level-2 names, in file order (``NO_FALLACY`` is not among them)."""
        return tuple(type_.name for type_ in self.types())

    def label_resolver(self) -> LabelResolver:
        """Matches raw labels to this taxonomy's type names (and ⊥ spellings to NO_FALLACY)."""
        return LabelResolver((type_.name, type_.aliases) for type_ in self.types())

    def type_to_category(self) -> dict[str, str]:
        """Level-2 name -> level-1 name."""
        return {
            type_.name: category.name for category in self.categories for type_ in category.types
        }

    def to_dict(self) -> dict[str, Any]:
        """The file form (always with categories); ``parse_taxonomy`` reads it back."""
        return {
            "name": self.name,
            "version": self.version,
            "title": self.title,
            "description": self.description,
            "categories": [category.to_dict() for category in self.categories],
        }


def read_taxonomy_file(path: Path | str) -> TaxonomySpec:
    """Read and validate a ``.yaml``/``.yml``/``.json`` taxonomy file."""
    path = Path(path)
    source = str(path)
    _check_suffix(source)
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise TaxonomyFileError(source, [("", f"cannot read the file: {exc}")]) from exc
    return read_taxonomy_bytes(content, source=source)


def read_taxonomy_bytes(content: bytes, *, source: str) -> TaxonomySpec:
    """Validate the content of a taxonomy file (an upload); ``source`` is its file name,
    whose suffix says YAML or JSON. The same checks and messages as ``read_taxonomy_file``."""
    suffix = _check_suffix(source)
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TaxonomyFileError(source, [("", f"cannot read the file: {exc}")]) from exc
    try:
        if suffix == ".json":
            data = json.loads(text, object_pairs_hook=_json_object)
        else:
            data = yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except (json.JSONDecodeError, yaml.YAMLError, _DuplicateKeyError) as exc:
        raise TaxonomyFileError(source, [("", f"cannot parse the file: {exc}")]) from exc
    except RecursionError:
        raise TaxonomyFileError(source, [("", f"cannot parse the file: {TOO_DEEP}")]) from None
    return parse_taxonomy(data, source=source)


def _check_suffix(source: str) -> str:
    suffix = Path(source).suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise TaxonomyFileError(
            source, [("", f'unknown file type "{suffix}" (use .yaml, .yml or .json)')]
        )
    return suffix


def parse_taxonomy(data: Any, *, source: str = "<taxonomy>") -> TaxonomySpec:
    """Validate already-loaded file content (a dict); raises ``TaxonomyFileError``."""
    found = json_problem(data)  # text no database stores (NUL, lone surrogate), or too deep
    if found:
        raise TaxonomyFileError(source, [(shown(found[0]), found[1])])
    return _Validator(source).taxonomy(data)


# --- loading ---------------------------------------------------------------------------


class _DuplicateKeyError(ValueError):
    pass


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(f'duplicate key "{key}"')
        result[key] = value
    return result


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing duplicate keys (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f'duplicate key "{key}"', key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# --- validation ------------------------------------------------------------------------


def _slot_pattern(slot: str) -> re.Pattern[str]:
    # A whole token: not part of a longer name (P1, P', EP); a possessive 's may follow.
    return re.compile(rf"(?<![\w']){re.escape(slot)}(?!\w)(?!'(?!s\b))")


def slot_in_template(slot: str, template: str) -> bool:
    return _slot_pattern(slot).search(template) is not None


_RESERVED = {normalise_label(ROOT_NAME): "the level-0 root"} | {
    normalise_label(alias): '"no fallacy"' for alias in NO_FALLACY_ALIASES
}


class _Validator:
    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[tuple[str, str]] = []
        self.claimed: dict[str, str] = {}  # matching key -> place that first used it

    def problem(self, place: str, message: str) -> None:
        self.problems.append((place, message))

    def taxonomy(self, data: Any) -> TaxonomySpec:
        if not isinstance(data, Mapping):
            self.problem("", f"the file must hold a mapping of keys, not {_kind(data)}")
            raise TaxonomyFileError(self.source, self.problems)
        self.unknown_keys(data, TOP_KEYS, "")
        name = self.text(data, "name", "", required=True)
        if name and not SLUG_RE.match(name):
            self.problem("name", f'"{name}" is not a slug (letters, digits, - and _ only)')
        self.max_length(name, MAX_TAXONOMY_NAME, "name")
        version = self.version(data)
        title = self.text(data, "title", "") or name
        self.max_length(title, MAX_TITLE, "title")
        description = self.text(data, "description", "")

        categories: tuple[CategorySpec, ...] = ()
        has_categories, has_types = "categories" in data, "types" in data
        if has_categories and has_types:
            self.problem("", 'give either "categories" or a flat "types" list, not both')
        elif has_categories:
            items = self.nonempty_list(data, "categories", "")
            categories = tuple(
                category
                for index, item in enumerate(items)
                if (category := self.category(item, f"categories[{index}]")) is not None
            )
        elif has_types:
            self.claim(FLAT_CATEGORY, "(the category of a flat file)")
            types = self.types(data, "")
            categories = (CategorySpec(FLAT_CATEGORY, FLAT_CATEGORY_DEFINITION, types),)
        else:
            self.problem("", 'missing "categories" (or a flat "types" list)')

        if self.problems:
            raise TaxonomyFileError(self.source, self.problems)
        return TaxonomySpec(name, version, title, description, categories)

    def category(self, item: Any, place: str) -> CategorySpec | None:
        if not isinstance(item, Mapping):
            self.problem(place, f"a category must be a mapping, not {_kind(item)}")
            return None
        self.unknown_keys(item, CATEGORY_KEYS, place)
        name = self.label(item, "name", place)
        definition = self.text(item, "definition", place)
        types = self.types(item, place)
        return CategorySpec(name, definition, types)

    def types(self, mapping: Mapping, place: str) -> tuple[TypeSpec, ...]:
        items = self.nonempty_list(mapping, "types", place)
        result = []
        for index, item in enumerate(items):
            type_place = _join(place, f"types[{index}]")
            if not isinstance(item, Mapping):
                self.problem(type_place, f"a type must be a mapping, not {_kind(item)}")
                continue
            result.append(self.type_(item, type_place))
        return tuple(result)

    def type_(self, item: Mapping, place: str) -> TypeSpec:
        self.unknown_keys(item, TYPE_KEYS, place)
        name = self.label(item, "name", place)
        aliases = []
        for index, raw in enumerate(self.list_(item, "aliases", place)):
            alias_place = _join(place, f"aliases[{index}]")
            alias = self.clean_label(raw, alias_place)
            if alias:
                aliases.append(alias)
        definition = self.text(item, "definition", place)
        template = self.text(item, "template", place)
        example = self.text(item, "example", place)
        slots: list[str] = []
        for index, raw in enumerate(self.list_(item, "slots", place)):
            slot_place = _join(place, f"slots[{index}]")
            if not isinstance(raw, str):
                self.problem(slot_place, f"a slot name must be a string, not {_kind(raw)}")
                continue
            slot = raw.strip()
            if not SLOT_RE.match(slot):
                self.problem(
                    slot_place,
                    f'slot name "{raw}" is not a valid variable '
                    "(letters, digits and ' only, starting with a capital letter)",
                )
            elif slot in slots:
                self.problem(slot_place, f'slot "{slot}" is listed twice')
            elif not slot_in_template(slot, template):
                self.problem(slot_place, f'slot "{slot}" does not appear in the template')
            slots.append(slot)
        return TypeSpec(name, tuple(aliases), definition, template, tuple(slots), example)

    # --- field helpers ---

    def unknown_keys(self, mapping: Mapping, allowed: tuple[str, ...], place: str) -> None:
        for key in mapping:
            if key not in allowed:
                hint = difflib.get_close_matches(str(key), allowed, n=1)
                suggestion = f' (did you mean "{hint[0]}"?)' if hint else ""
                allowed_text = ", ".join(allowed)
                self.problem(
                    _join(place, str(key)),
                    f"unknown key{suggestion}; allowed keys: {allowed_text}",
                )

    def text(self, mapping: Mapping, key: str, place: str, *, required: bool = False) -> str:
        value = mapping.get(key)
        if value is None:
            if required:
                self.problem(_join(place, key), "missing (required)")
            return ""
        if not isinstance(value, str):
            self.problem(_join(place, key), f"must be text, not {_kind(value)}")
            return ""
        value = value.strip()
        if required and not value:
            self.problem(_join(place, key), "must not be empty")
        return value

    def version(self, mapping: Mapping) -> str:
        value = mapping.get("version")
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if value is None:
            self.problem("version", "missing (required)")
            return ""
        if not isinstance(value, str):
            self.problem("version", f"must be text or a number, not {_kind(value)}")
            return ""
        value = value.strip()
        if not value:
            self.problem("version", "must not be empty")
        self.max_length(value, MAX_VERSION, "version")
        return value

    def label(self, mapping: Mapping, key: str, place: str) -> str:
        """A category or type name: required, normalised, unique."""
        label_place = _join(place, key)
        if mapping.get(key) is None:
            self.problem(label_place, "missing (required)")
            return ""
        return self.clean_label(mapping[key], label_place)

    def clean_label(self, raw: Any, place: str) -> str:
        if not isinstance(raw, str):
            self.problem(place, f"must be text, not {_kind(raw)}")
            return ""
        label = normalise_label(raw)
        if not label:
            self.problem(place, "must not be empty")
            return ""
        self.max_length(label, MAX_NODE_NAME, place)
        self.claim(label, place)
        return label

    def claim(self, label: str, place: str) -> None:
        key = normalise_label(label)
        if key in _RESERVED:
            self.problem(place, f'"{label}" is reserved for {_RESERVED[key]}')
        elif key in self.claimed:
            self.problem(place, f'"{label}" is already used at {self.claimed[key]}')
        else:
            self.claimed[key] = place

    def list_(self, mapping: Mapping, key: str, place: str) -> list:
        value = mapping.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem(_join(place, key), f"must be a list, not {_kind(value)}")
            return []
        return value

    def nonempty_list(self, mapping: Mapping, key: str, place: str) -> list:
        if mapping.get(key) is None:
            self.problem(_join(place, key), "missing (required)")
            return []
        items = self.list_(mapping, key, place)
        if isinstance(mapping[key], list) and not items:
            self.problem(_join(place, key), "must not be empty")
        return items

    def max_length(self, value: str, limit: int, place: str) -> None:
        if len(value) > limit:
            self.problem(place, f"too long ({len(value)} characters, at most {limit})")


def _join(place: str, key: str) -> str:
    return f"{place}.{key}" if place else key


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "a mapping",
    }.get(type(value), type(value).__name__)


PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def available_presets() -> list[str]:
    """The names of the built-in taxonomy presets (``annotations/presets/*.yaml``)."""
    return sorted(path.stem for path in PRESETS_DIR.glob("*.yaml"))


def preset_path(name: str) -> Path:
    """The file of a built-in preset; ``LookupError`` naming the presets if there is none."""
    path = PRESETS_DIR / f"{name}.yaml"
    if not re.fullmatch(r"[-a-z0-9_]+", name) or not path.is_file():
        known = ", ".join(available_presets())
        raise LookupError(f'no taxonomy preset "{name}" (available: {known})')
    return path

"""Reads of a taxonomy's node tree (one query each)."""

from __future__ import annotations

from typing import Any

from annotations.labels import LabelResolver
from annotations.models import Taxonomy, TaxonomyNode
from annotations.taxonomy_files import CategorySpec, TaxonomySpec, TypeSpec


def taxonomy_spec(taxonomy: Taxonomy) -> TaxonomySpec:
    """The taxonomy as it would be written to a file (categories and types in order)."""
    nodes = list(
        TaxonomyNode.objects.filter(taxonomy=taxonomy, level__gt=TaxonomyNode.Level.FALLACY)
        .order_by("level", "position", "id")
        .only(
            "id",
            "parent_id",
            "level",
            "name",
            "aliases",
            "definition",
            "template",
            "slots",
            "example",
        )
    )
    types_by_parent: dict[int, list[TypeSpec]] = {}
    for node in nodes:
        if node.level == TaxonomyNode.Level.TYPE:
            types_by_parent.setdefault(node.parent_id, []).append(
                TypeSpec(
                    name=node.name,
                    aliases=tuple(node.aliases),
                    definition=node.definition,
                    template=node.template,
                    slots=tuple(node.slots),
                    example=node.example,
                )
            )
    categories = tuple(
        CategorySpec(node.name, node.definition, tuple(types_by_parent.get(node.id, [])))
        for node in nodes
        if node.level == TaxonomyNode.Level.CATEGORY
    )
    return TaxonomySpec(
        name=taxonomy.name,
        version=taxonomy.version,
        title=taxonomy.title,
        description=taxonomy.description,
        categories=categories,
    )


def taxonomy_tree(taxonomy: Taxonomy) -> dict[str, Any]:
    """JSON-ready tree: id, name, version, title, description, categories with types."""
    return {"id": taxonomy.pk, **taxonomy_spec(taxonomy).to_dict()}


def label_resolver(taxonomy: Taxonomy) -> LabelResolver:
    """Matches raw labels to this taxonomy's type names (and ⊥ spellings to NO_FALLACY)."""
    rows = (
        TaxonomyNode.objects.filter(taxonomy=taxonomy, level=TaxonomyNode.Level.TYPE)
        .order_by("position", "id")
        .values_list("name", "aliases")
    )
    return LabelResolver(rows)


def type_to_category(taxonomy: Taxonomy) -> dict[str, str]:
    """Level-2 name -> level-1 name."""
    return dict(
        TaxonomyNode.objects.filter(taxonomy=taxonomy, level=TaxonomyNode.Level.TYPE)
        .order_by("position", "id")
        .values_list("name", "parent__name")
    )

"""Writes for taxonomies: creating the node tree from a validated spec, installing presets.

Concurrency: a taxonomy is created in one transaction; two concurrent creates of the same
name and version end with one taxonomy and a ``TaxonomyExistsError`` (or, for presets and
identical uploads, the installed taxonomy) for the other.
"""

from __future__ import annotations

from pathlib import Path

from django.db import IntegrityError, transaction

from annotations.models import Taxonomy, TaxonomyNode
from annotations.selectors.taxonomy import taxonomy_spec
from annotations.taxonomy_files import (
    ROOT_NAME,
    TaxonomySpec,
    preset_path,
    read_taxonomy_bytes,
    read_taxonomy_file,
)

ROOT_DEFINITION = "An argument whose reasoning is flawed in a way that can mislead."


class TaxonomyExistsError(ValueError):
    """A taxonomy with this name and version is already in the database."""


def create_taxonomy(*, spec: TaxonomySpec) -> Taxonomy:
    """Create the taxonomy and its nodes: root "fallacy", categories, types (file order)."""
    if Taxonomy.objects.filter(name=spec.name, version=spec.version).exists():
        raise TaxonomyExistsError(f"taxonomy {spec.name} v{spec.version} already exists")
    try:
        with transaction.atomic():
            taxonomy = Taxonomy.objects.create(
                name=spec.name,
                version=spec.version,
                title=spec.title,
                description=spec.description,
            )
            root = TaxonomyNode.objects.create(
                taxonomy=taxonomy,
                level=TaxonomyNode.Level.FALLACY,
                name=ROOT_NAME,
                definition=ROOT_DEFINITION,
            )
            category_nodes = TaxonomyNode.objects.bulk_create(
                TaxonomyNode(
                    taxonomy=taxonomy,
                    parent=root,
                    level=TaxonomyNode.Level.CATEGORY,
                    name=category.name,
                    definition=category.definition,
                    position=position,
                )
                for position, category in enumerate(spec.categories)
            )
            # Types are numbered across the whole taxonomy, so ordering by (level,
            # position) lists them in file order.
            type_rows = [
                (category_node, type_)
                for category_node, category in zip(category_nodes, spec.categories, strict=True)
                for type_ in category.types
            ]
            TaxonomyNode.objects.bulk_create(
                TaxonomyNode(
                    taxonomy=taxonomy,
                    parent=category_node,
                    level=TaxonomyNode.Level.TYPE,
                    name=type_.name,
                    aliases=list(type_.aliases),
                    definition=type_.definition,
                    template=type_.template,
                    slots=list(type_.slots),
                    example=type_.example,
                    position=position,
                )
                for position, (category_node, type_) in enumerate(type_rows)
            )
    except IntegrityError as exc:  # a concurrent create of the same name and version
        if Taxonomy.objects.filter(name=spec.name, version=spec.version).exists():
            raise TaxonomyExistsError(
                f"taxonomy {spec.name} v{spec.version} already exists"
            ) from exc
        raise
    return taxonomy


def load_taxonomy_file(*, path: Path) -> Taxonomy:
    """Validate a taxonomy file and create it (``TaxonomyFileError`` creates nothing)."""
    return create_taxonomy(spec=read_taxonomy_file(path))


def install_preset(*, name: str = "mafalda") -> Taxonomy:
    """Install a built-in preset, or return it if that name and version is already there."""
    return install_preset_reporting(name=name)[0]


def install_preset_reporting(*, name: str) -> tuple[Taxonomy, bool]:
    """``install_preset``, also saying whether it was created now (``LookupError`` for an
    unknown preset)."""
    spec = read_taxonomy_file(preset_path(name))
    existing = Taxonomy.objects.filter(name=spec.name, version=spec.version).first()
    if existing is not None:
        return existing, False
    try:
        return create_taxonomy(spec=spec), True
    except TaxonomyExistsError:  # installed concurrently
        return Taxonomy.objects.get(name=spec.name, version=spec.version), False


def load_taxonomy_upload(*, content: bytes, file_name: str) -> tuple[Taxonomy, bool]:
    """Validate an uploaded taxonomy file and create it; ``(taxonomy, created)``.

    ``TaxonomyFileError`` (the problems ``manage.py load_taxonomy`` reports) creates nothing.
    A file whose name and version is installed already with the same content returns that
    taxonomy (``created`` false); with other content it is a ``TaxonomyExistsError``.
    """
    spec = read_taxonomy_bytes(content, source=file_name)
    for _ in range(2):  # a second look when a concurrent upload created it meanwhile
        existing = Taxonomy.objects.filter(name=spec.name, version=spec.version).first()
        if existing is not None:
            if taxonomy_spec(existing) == spec:
                return existing, False
            raise TaxonomyExistsError(
                f"taxonomy {spec.name} v{spec.version} already exists with other content;"
                " give the file another version"
            )
        try:
            return create_taxonomy(spec=spec), True
        except TaxonomyExistsError:
            continue
    raise TaxonomyExistsError(f"taxonomy {spec.name} v{spec.version} already exists")

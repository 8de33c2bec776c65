"""``manage.py load_taxonomy PATH`` or ``manage.py load_taxonomy --preset mafalda``."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.models import Taxonomy, TaxonomyNode
from annotations.services.taxonomy import (
    TaxonomyExistsError,
    install_preset,
    load_taxonomy_file,
)
from annotations.taxonomy_files import (
    TaxonomyFileError,
    available_presets,
    preset_path,
    read_taxonomy_file,
)


class Command(BaseCommand):
    help = "Load a taxonomy file (YAML or JSON) or install a built-in preset."

    def add_arguments(self, parser: CommandParser) -> None:
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("path", nargs="?", type=Path, help="taxonomy file (.yaml or .json)")
        source.add_argument("--preset", help=f"built-in preset: {', '.join(available_presets())}")

    def handle(self, *args, path: Path | None, preset: str | None, **options) -> None:
        try:
            if preset:
                spec = read_taxonomy_file(preset_path(preset))
                created = not Taxonomy.objects.filter(name=spec.name, version=spec.version).exists()
                taxonomy = install_preset(name=preset)
            else:
                taxonomy = load_taxonomy_file(path=path)
                created = True
        except (TaxonomyFileError, TaxonomyExistsError, LookupError) as exc:
            raise CommandError(str(exc)) from exc
        if not created:
            self.stdout.write(f"Taxonomy {taxonomy} is already installed; nothing created.")
            return
        categories = taxonomy.nodes.filter(level=TaxonomyNode.Level.CATEGORY).count()
        types = taxonomy.nodes.filter(level=TaxonomyNode.Level.TYPE).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Created taxonomy {taxonomy} (id {taxonomy.pk}): "
                f"{_count(categories, 'category', 'categories')}, {_count(types, 'type', 'types')}."
            )
        )


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"

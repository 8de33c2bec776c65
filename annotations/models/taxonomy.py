"""Taxonomies: versioned trees of fallacy labels."""

from django.db import models
from django.db.models import Q


class Taxonomy(models.Model):
    """A versioned tree of labels: level 0 (fallacy), level 1 (categories), level 2 (types)."""

    name = models.SlugField(max_length=64)
    version = models.CharField(max_length=32)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "taxonomies"
        ordering = ["name", "version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="taxonomy_name_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class TaxonomyNode(models.Model):
    class Level(models.IntegerChoices):
        FALLACY = 0, "fallacy"
        CATEGORY = 1, "category"
        TYPE = 2, "type"

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="nodes")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    level = models.PositiveSmallIntegerField(choices=Level.choices)
    name = models.CharField(max_length=120, help_text="Canonical label, lower case.")
    aliases = models.JSONField(
        default=list, blank=True, help_text="Other spellings matched when importing labels."
    )
    definition = models.TextField(blank=True)
    template = models.TextField(blank=True, help_text="The formal pattern, using the slots.")
    slots = models.JSONField(default=list, blank=True, help_text='Slot names, e.g. ["E", "P"].')
    example = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["taxonomy", "level", "position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "name"], name="taxonomy_node_name_unique"),
            models.CheckConstraint(condition=Q(level__lte=2), name="taxonomy_node_level_0_2"),
            models.CheckConstraint(
                condition=Q(level=0, parent__isnull=True) | Q(level__gt=0, parent__isnull=False),
                name="taxonomy_node_parent_iff_not_root",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (level {self.level})"

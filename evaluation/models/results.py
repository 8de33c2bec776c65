"""Stored result boards: the computed JSON of a project's Results tab or a gold version's
leaderboard, kept with the fingerprint of the inputs it was computed from
(``evaluation.results``)."""

from django.db import models

from annotations.models import GoldStandard, Project


class StoredBoard(models.Model):
    """One board's JSON body for one query, valid while ``fingerprint`` matches the inputs.

    ``kind`` names the board (``items``: an item project's results; ``gold``: a gold
    version's leaderboard), ``scope`` its project or gold version id, ``query`` the
    canonical query (profile, subset, compared pair) it answers. The body does not depend
    on who asks (the views only check that the user may see the project).
    """

    class Kind(models.TextChoices):
        ITEMS = "items", "item project results"
        GOLD = "gold", "gold version leaderboard"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    scope = models.PositiveIntegerField(help_text="The project (items) or gold version (gold).")
    query = models.CharField(max_length=64, help_text="sha256 of the canonical query.")
    query_text = models.TextField(help_text="The canonical query (JSON).")
    # the project (and gold version) the board belongs to: deleted with them
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    gold_standard = models.ForeignKey(
        GoldStandard, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the inputs' state.")
    body = models.TextField(help_text="The board as the API sends it (JSON).")
    seconds = models.FloatField(default=0.0, help_text="How long computing it took.")
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "scope", "query"], name="stored_board_unique"),
            models.CheckConstraint(
                condition=models.Q(kind__in=["items", "gold"]), name="stored_board_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} board of {self.scope} ({self.query_text})"

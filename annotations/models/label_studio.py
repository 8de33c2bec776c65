"""Which platform user holds a Label Studio annotator's work, per project.

Label Studio names an annotator by its user id on the Label Studio server (the Export
button's ``completed_by: 1``) and, in a snapshot export, also by e-mail
(``completed_by: {"id": 1, "email": ...}``). One row per project remembers the platform user
chosen or created for that annotator, so that both routes, in either order, land on the
same user. ``invitation``: the pending invitation whose holder takes the annotations over
when they accept it (the row's user is then an inactive placeholder).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotations.models.invitations import Invitation
from annotations.models.projects import Project


class LabelStudioAnnotator(models.Model):
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="label_studio_annotators"
    )
    source_id = models.CharField(
        max_length=64, blank=True, default="", help_text="The Label Studio user id ('' unknown)."
    )
    email = models.CharField(max_length=254, blank=True, default="")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    invitation = models.ForeignKey(
        Invitation, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "source_id"],
                condition=~Q(source_id=""),
                name="label_studio_annotator_id_unique",
            ),
            models.CheckConstraint(
                condition=~Q(source_id="") | ~Q(email=""),
                name="label_studio_annotator_named",
            ),
        ]

    def __str__(self) -> str:
        return f"Label Studio annotator {self.source_id or self.email} in {self.project_id}"

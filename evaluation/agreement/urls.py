"""Routes of a project's agreement figures (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation.agreement import api

urlpatterns = [
    path(
        "projects/<int:pk>/agreement/",
        api.ProjectAgreementView.as_view(),
        name="evaluation-project-agreement",
    ),
]

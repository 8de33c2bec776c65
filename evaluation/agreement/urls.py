"""REST routes for agreement figures (mounted at /api/evaluation/)."""

from django.urls import path

from evaluation.agreement import api as api_agreement

urlpatterns = [
    path(
        "projects/<int:pk>/agreement/",
        api_agreement.ProjectAgreementView.as_view(),
        name="evaluation-project-agreement",
    ),
]

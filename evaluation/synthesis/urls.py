"""Routes of Prolog rule files and generation jobs, their review and report (mounted at
/api/evaluation/)."""

from django.urls import path

from evaluation.synthesis import api, rules_api

urlpatterns = [
    path("prolog-rules/", rules_api.PrologRuleListView.as_view(), name="evaluation-prolog-rules"),
    path(
        "prolog-rules/<int:pk>/",
        rules_api.PrologRuleDetailView.as_view(),
        name="evaluation-prolog-rule-detail",
    ),
    path(
        "generation-jobs/", api.GenerationJobListView.as_view(), name="evaluation-generation-jobs"
    ),
    path(
        "generation-credentials/",
        api.GenerationCredentialsView.as_view(),
        name="evaluation-generation-credentials",
    ),
    path(
        "generation-options/",
        api.GenerationOptionsView.as_view(),
        name="evaluation-generation-options",
    ),
    path(
        "generation-jobs/<int:pk>/",
        api.GenerationJobDetailView.as_view(),
        name="evaluation-generation-job",
    ),
    path(
        "generation-jobs/<int:pk>/items/",
        api.GenerationItemsView.as_view(),
        name="evaluation-generation-items",
    ),
    path(
        "generation-items/<int:pk>/review/",
        api.GeneratedItemReviewView.as_view(),
        name="evaluation-generation-item-review",
    ),
    path(
        "projects/<int:pk>/generation-releases/",
        api.GenerationReleasesView.as_view(),
        name="evaluation-generation-releases",
    ),
    path(
        "generation-report/",
        api.GenerationReportView.as_view(),
        name="evaluation-generation-report",
    ),
]
